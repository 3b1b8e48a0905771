//! The rows of figures of one document, read from its indexed passages put back into pages: each
//! row's label, its figures with the fiscal year of their column, the statement it stands under
//! (a title in a line above it on its page; not the passages' context, which keeps a title for
//! the notes that follow a statement) and the scale its table states ("in millions"), with
//! where on the page the row is, so that an answer can cite the row itself. A row under a
//! quarter's or a half's header ("Three Months Ended"), or any row of a quarterly report, is an
//! interim row: its years are not fiscal years' figures.

use super::items::{label_rank, normalise, spec, Item};
use crate::answer::columns::period_rows;
use crate::answer::numbers::numbers;
use crate::chunk::{column_periods, statement_titled, Chunk, Statement};
use crate::dates::is_year;
use crate::index::keywords::page_with_gaps;

/// A figure of a row, in its column's year.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub year: u16,
    /// As the page writes it ("(1,577)").
    pub written: String,
    pub value: f64,
}

/// One row of figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The label as the page writes it.
    pub label: String,
    normalised: String,
    pub statement: Option<Statement>,
    /// What a figure of the table multiplies by ("in millions": 1e6), if the table says.
    pub scale: Option<f64>,
    pub figures: Vec<Figure>,
    /// The passage it was read from (an index into the chunks the sheet was made of).
    pub chunk: usize,
    pub page: u32,
    /// The row's line: its character range in the page's text, and its text.
    pub char_start: u32,
    pub char_end: u32,
    pub line: String,
    /// Read under a header of a part of a year, or in a quarterly report.
    pub interim: bool,
}

/// The rows of a document's tables.
#[derive(Debug, Default)]
pub struct Sheet {
    rows: Vec<Row>,
    /// The month and year a quarterly report's cover says its quarter ended ("For the
    /// quarterly period ended June 30, 2023": 6 and 2023).
    quarter_ended: Option<(u8, u16)>,
    /// The month a quarterly report's fiscal year ends: that of its balance sheet's header's
    /// last column, the end of the last fiscal year ("December 31, 2022").
    year_end_month: Option<u8>,
}

/// Whether a short line heads columns of a part of a year (`Some(true)`: "Three Months Ended",
/// "Second Quarter") or of whole years (`Some(false)`: "Years Ended December 31").
fn interim_heading(line: &str) -> Option<bool> {
    let lower = line.to_lowercase();
    if lower.split_whitespace().count() > 8 {
        return None;
    }
    const PART: [&str; 12] = [
        "three months",
        "six months",
        "nine months",
        "quarter ended",
        "quarters ended",
        "first quarter",
        "second quarter",
        "third quarter",
        "fourth quarter",
        "13 weeks",
        "26 weeks",
        "39 weeks",
    ];
    const WHOLE: [&str; 5] = ["year ended", "years ended", "twelve months", "52 weeks", "53 weeks"];
    if PART.iter().any(|w| lower.contains(w)) {
        Some(true)
    } else if WHOLE.iter().any(|w| lower.contains(w)) {
        Some(false)
    } else {
        None
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// The month (1-12) the first of `words` naming one names.
fn month_in<'w>(words: impl IntoIterator<Item = &'w str>) -> Option<u8> {
    words.into_iter().find_map(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphabetic()).to_lowercase();
        MONTHS.iter().position(|m| *m == w).map(|at| at as u8 + 1)
    })
}

/// The month (1-12) and year of the end of the period a quarterly report's cover says it
/// covers: "For the quarterly period ended June 30, 2023".
fn quarter_ended(text: &str) -> Option<(u8, u16)> {
    let lower = text.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
    let at = lower.find("quarterly period ended")? + "quarterly period ended".len();
    let words: Vec<&str> = lower[at..].split(' ').take(4).collect();
    let month = month_in(words.iter().copied())?;
    let year = words
        .iter()
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_digit()))
        .find(|w| is_year(w))?
        .parse()
        .ok()?;
    Some((month, year))
}

/// A quarterly report's fiscal quarter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FiscalQuarter {
    /// 1-4.
    pub quarter: u8,
    pub fiscal_year: u16,
    /// How many years the fiscal year is after the calendar year its columns name: 1 for the
    /// quarter ended December 31, 2022 of a fiscal year 2023 that ends on June 30.
    pub ahead: u16,
}

/// The scale a line states: "(In millions, except per share data)", "($ in thousands)".
fn scale_stated(line: &str) -> Option<f64> {
    let lower = line.to_lowercase();
    if lower.split_whitespace().count() > 12 {
        return None;
    }
    [("in billions", 1e9), ("in millions", 1e6), ("in thousands", 1e3)]
        .iter()
        .find(|(words, _)| lower.contains(words))
        .map(|&(_, scale)| scale)
}

/// The passage of `page` that holds the characters `start..end` (one that holds their start
/// where none holds them all), by its index in `chunks`.
fn holding(chunks: &[Chunk], page: u32, start: u32, end: u32) -> Option<usize> {
    let on_page = |c: &Chunk| c.page == page && c.char_start <= start;
    chunks
        .iter()
        .position(|c| on_page(c) && c.char_end >= end)
        .or_else(|| chunks.iter().position(|c| on_page(c) && c.char_end > start))
}

/// How many short lines a header of periods may be spread over ("2020", "December 31,", "2019").
const HEADER_LINES: usize = 4;

/// `lines` joined again as a text, where a header of periods spread over several short lines is
/// written whole on its last line and its other lines are left empty (every line keeps its
/// place, so a row's line is the page's).
fn with_joined_headers(lines: &[&str]) -> String {
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let short = |l: &str| {
        let words = l.split_whitespace().count();
        (1..=3).contains(&words)
    };
    let mut i = 0;
    while i < lines.len() {
        let joined = (2..=HEADER_LINES).rev().find_map(|n| {
            let run = lines.get(i..i + n)?;
            if !run.iter().all(|l| short(l)) || column_periods(run[n - 1]).is_some() {
                return None;
            }
            let whole = run.join(" ");
            column_periods(&whole).map(|_| (n, whole))
        });
        match joined {
            Some((n, whole)) => {
                for line in &mut out[i..i + n - 1] {
                    line.clear();
                }
                out[i + n - 1] = whole;
                i += n;
            }
            None => i += 1,
        }
    }
    out.join("\n")
}

/// Words a label may take from the line above it.
const WRAPPED_WORDS: usize = 10;

/// A row's label with the start it wrapped from: "activities" under "Net cash provided by
/// operating" (a line without figures) is "Net cash provided by operating activities".
fn wrapped_label(lines: &[&str], at: usize, label: &str) -> String {
    if label.is_empty() {
        return label_above(lines, at);
    }
    let above = at.checked_sub(1).map(|i| lines[i].trim());
    match above {
        Some(above)
            if label.starts_with(|c: char| c.is_lowercase())
                && !above.is_empty()
                && above.split_whitespace().count() <= WRAPPED_WORDS
                && !above.chars().any(|c| c.is_ascii_digit()) =>
        {
            format!("{above} {label}")
        }
        _ => label.to_string(),
    }
}

/// The label of a row of figures alone, set above the header of its table: "Net sales", "$",
/// "Fiscal Year", "2019 2018 2017", then "16,865.2 $ 15,740.4 $ 15,619.8". Lines of a header
/// (periods, currency signs, words naming periods) are passed over; the first other line is the
/// label if it has no digits. Empty when there is none.
fn label_above(lines: &[&str], at: usize) -> String {
    const PERIOD_WORDS: [&str; 8] = ["fiscal", "year", "years", "ended", "ending", "december", "as", "of"];
    for line in lines[..at].iter().rev().take(HEADER_LINES + 1).map(|l| l.trim()) {
        let header = line.is_empty()
            || column_periods(line).is_some()
            || line.chars().all(|c| "$€£ ".contains(c))
            || line
                .split_whitespace()
                .all(|w| PERIOD_WORDS.contains(&w.to_lowercase().trim_end_matches(',')) || is_year(w));
        if header {
            continue;
        }
        let label = !line.chars().any(|c| c.is_ascii_digit()) && line.split_whitespace().count() <= WRAPPED_WORDS;
        return if label { line.to_string() } else { String::new() };
    }
    String::new()
}

/// The fiscal year a column's period names: its last year ("December 31, 2019", "Fiscal
/// 2019"); none for a span of years (a change's column, "2019-2018").
fn column_year(period: &str) -> Option<u16> {
    if period.contains(['-', '–']) {
        return None;
    }
    period
        .split(|c: char| !c.is_ascii_digit())
        .rfind(|w| is_year(w))
        .and_then(|w| w.parse().ok())
}

impl Sheet {
    /// The rows of `chunks` (one document's passages), read in page order.
    pub fn of(chunks: &[Chunk]) -> Sheet {
        let mut pages: Vec<u32> = chunks.iter().map(|c| c.page).collect();
        pages.sort_unstable();
        pages.dedup();
        let mut rows = Vec::new();
        let mut quarterly = None;
        let mut year_end_month = None;
        for page in pages {
            // A gap no passage covers is white space the chunker dropped between two passages,
            // where a line ends: a line break keeps the rows on either side apart.
            let text = page_with_gaps(chunks, page, '\n');
            // A quarterly report says so on its cover.
            if page <= 3 && quarterly.is_none() {
                quarterly = quarter_ended(&text);
            }
            let lines: Vec<&str> = text.split('\n').collect();
            let headed = with_joined_headers(&lines);
            // Each line's statement, scale and whether it is under a part of a year's header: a
            // title, a unit line or a header holds from its line on.
            let (mut statement, mut scale, mut interim) = (None, None, quarterly.is_some());
            let mut at = 0u32;
            let mut placed = Vec::with_capacity(lines.len());
            for (line, header) in lines.iter().zip(headed.split('\n')) {
                statement = statement_titled(line).or(statement);
                scale = scale_stated(line).or(scale);
                interim = quarterly.is_some() || interim_heading(line).unwrap_or(interim);
                // A quarterly report's balance sheet is headed by the quarter's end and the last
                // fiscal year's ("December 31, 2022 June 30, 2022").
                if quarterly.is_some() && year_end_month.is_none() && statement == Some(Statement::Balance) {
                    let months: Vec<u8> = header.split(' ').filter_map(|w| month_in([w])).collect();
                    if months.len() >= 2 {
                        year_end_month = months.last().copied();
                    }
                }
                let length = line.chars().count() as u32;
                placed.push((statement, scale, interim, at, at + length));
                at += length + 1;
            }
            // A statement's long line ("Common stock ($0.01 par value; 500,000,000 shares
            // authorized; ...") is no end of its table.
            for row in period_rows(&headed, None, false) {
                let figures: Vec<Figure> = row
                    .cells
                    .iter()
                    .filter_map(|(period, cell)| {
                        let year = column_year(period)?;
                        let value = numbers(cell).first().map_or(0.0, |n| n.value);
                        (!cell.contains('%')).then(|| Figure {
                            year,
                            written: cell.trim_start_matches(['$', ' ']).to_string(),
                            value,
                        })
                    })
                    .collect();
                if figures.is_empty() {
                    continue;
                }
                let (statement, scale, interim, char_start, char_end) = placed[row.line];
                let Some(chunk) = holding(chunks, page, char_start, char_end) else {
                    continue;
                };
                let label = wrapped_label(&lines, row.line, row.label);
                if label.is_empty() {
                    continue;
                }
                rows.push(Row {
                    normalised: normalise(&label),
                    label,
                    statement,
                    scale,
                    figures,
                    chunk,
                    page,
                    char_start,
                    char_end,
                    line: lines[row.line].to_string(),
                    interim,
                });
            }
        }
        Sheet {
            rows,
            quarter_ended: quarterly,
            year_end_month,
        }
    }

    /// The fiscal quarter a quarterly report covers: counted from the month its fiscal year
    /// ends (its balance sheet's, else December) to the month its cover says the quarter ended.
    pub fn fiscal_quarter(&self) -> Option<FiscalQuarter> {
        let (month, year) = self.quarter_ended?;
        let year_end = self.year_end_month.unwrap_or(12);
        let ahead = u16::from(month > year_end);
        Some(FiscalQuarter {
            quarter: (month + 12 - year_end - 1) % 12 / 3 + 1,
            fiscal_year: year + ahead,
            ahead,
        })
    }

    /// The scale every row that states one states, where they agree: the filing's, for a table
    /// whose page lost its "(In millions)" line.
    pub fn filing_scale(&self) -> Option<f64> {
        let mut scales = self.rows.iter().filter_map(|r| r.scale);
        let first = scales.next()?;
        scales.all(|s| s == first).then_some(first)
    }

    /// The row that best gives `item` in `year`, and its figure: a row under the item's own
    /// statement before one under no statement, and one under another statement last (the cash
    /// flow statement's "Inventories" is a change, not the balance); then the better label;
    /// then the earlier page (a filing's statements come before its notes). Only interim rows
    /// where `interim`, whose first column of the year is the quarter's (a quarterly report
    /// puts the quarter's columns before the year to date's); else only the others.
    pub fn find(&self, item: Item, year: u16, interim: bool) -> Option<(&Row, &Figure)> {
        let own = spec(item).statement;
        self.rows
            .iter()
            .filter(|row| row.interim == interim)
            .filter_map(|row| {
                let rank = label_rank(item, &row.normalised)?;
                let figure = row.figures.iter().find(|f| f.year == year)?;
                let place = match row.statement {
                    Some(s) if s == own => 0,
                    None => 1,
                    Some(_) => 2,
                };
                Some(((place, rank, row.page, row.char_start), row, figure))
            })
            .min_by_key(|(key, ..)| *key)
            .map(|(_, row, figure)| (row, figure))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ChunkId;

    fn chunk(page: u32, start: u32, context: &str, text: &str) -> Chunk {
        Chunk {
            id: ChunkId(format!("c{page}-{start}")),
            page,
            char_start: start,
            char_end: start + text.chars().count() as u32,
            text: text.into(),
            context: context.into(),
        }
    }

    #[test]
    fn rows_know_their_statement_scale_and_years_from_the_page_above_them() {
        let chunks = [
            chunk(
                40,
                0,
                "ACME 10-K",
                "ACME CORP\nCONSOLIDATED BALANCE SHEETS\n(In millions)\nDecember 31, 2019 December 31, 2018\nInventories 5,409 5,209",
            ),
            chunk(40, 120, "ACME 10-K\nDecember 31, 2019 December 31, 2018", "Total current liabilities $ 8,000 $ 7,500"),
            chunk(
                44,
                0,
                "ACME 10-K\nConsolidated Statements of Cash Flows",
                "Years ended 2019 2018 2017\nInventories (194) (52) 12",
            ),
            chunk(12, 0, "ACME 10-K\nSelected financial data", "2019 2018\nInventories 5,400 5,200"),
        ];
        let sheet = Sheet::of(&chunks);
        let (row, figure) = sheet.find(Item::Inventory, 2019, false).unwrap();
        assert_eq!((row.page, figure.value, row.scale), (40, 5409.0, Some(1e6)));
        assert_eq!(row.statement, Some(Statement::Balance));
        assert_eq!(row.line, "Inventories 5,409 5,209");
        let start = "ACME CORP\nCONSOLIDATED BALANCE SHEETS\n(In millions)\nDecember 31, 2019 December 31, 2018\n"
            .chars()
            .count() as u32;
        assert_eq!((row.char_start, row.char_end), (start, start + 23));
        let (row, figure) = sheet.find(Item::TotalCurrentLiabilities, 2018, false).unwrap();
        assert_eq!(
            (figure.written.as_str(), row.scale, row.char_start),
            ("7,500", Some(1e6), 120)
        );
        assert!(sheet
            .find(Item::Inventory, 2017, false)
            .is_some_and(|(r, _)| r.page == 44));
        assert!(sheet.find(Item::Revenue, 2019, false).is_none());
    }

    #[test]
    fn rows_under_a_quarters_header_are_interim_until_a_years_header() {
        let chunks = [chunk(
            30,
            0,
            "ACME 10-K",
            "Quarterly results\nFourth Quarter\n2019 2018\nNet sales 300 250\nYears Ended December 31,\n\
             2019 2018\nNet sales 1,200 1,000",
        )];
        let sheet = Sheet::of(&chunks);
        let (row, figure) = sheet.find(Item::Revenue, 2019, false).expect("the year's row");
        assert_eq!((row.interim, figure.written.as_str()), (false, "1,200"));
        let (row, _) = sheet.find(Item::Revenue, 2019, true).expect("the quarter's row");
        assert_eq!(row.line, "Net sales 300 250");
        assert_eq!(sheet.fiscal_quarter(), None, "a 10-K is no quarterly report");
    }

    #[test]
    fn a_quarterly_reports_fiscal_quarter_counts_from_its_fiscal_years_end() {
        assert_eq!(
            quarter_ended("For the quarterly period ended\nJune 30, 2023"),
            Some((6, 2023))
        );
        assert_eq!(quarter_ended("FORM 10-K ANNUAL REPORT for the fiscal year ended"), None);
        let quarter = |cover: &str, balance_header: &str| {
            let text = format!("{cover}\nCONSOLIDATED BALANCE SHEETS\n{balance_header}\nTotal assets 9,000 8,000");
            Sheet::of(&[chunk(1, 0, "10-Q", &text)]).fiscal_quarter()
        };
        let q = |quarter, fiscal_year, ahead| {
            Some(FiscalQuarter {
                quarter,
                fiscal_year,
                ahead,
            })
        };
        let calendar = "December 31, 2023 December 31, 2022";
        assert_eq!(
            quarter(
                "For the quarterly period ended June 30, 2023",
                "June 30, 2023 December 31, 2022"
            ),
            q(2, 2023, 0)
        );
        assert_eq!(
            quarter("For the quarterly period ended March 31, 2021", calendar),
            q(1, 2021, 0)
        );
        // A fiscal year ending on June 30: the quarter ended December 31, 2022 is its second
        // quarter of fiscal 2023, and the quarter ended March 31, 2023 its third.
        let june = "December 31, 2022 June 30, 2022";
        assert_eq!(
            quarter("For the quarterly period ended December 31, 2022", june),
            q(2, 2023, 1)
        );
        assert_eq!(
            quarter(
                "For the quarterly period ended March 31, 2023",
                "March 31, 2023 June 30, 2022"
            ),
            q(3, 2023, 0)
        );
    }

    #[test]
    fn a_label_wrapped_over_two_lines_is_read_whole() {
        let chunks = [chunk(
            9,
            0,
            "ACME 10-K",
            "Consolidated Statements of Cash Flows\n2019 2018\nNet cash provided by operating\nactivities 2,912 2,199",
        )];
        let sheet = Sheet::of(&chunks);
        let (row, figure) = sheet.find(Item::OperatingCashFlow, 2018, false).unwrap();
        assert_eq!(
            (row.label.as_str(), figure.value),
            ("Net cash provided by operating activities", 2199.0)
        );
    }

    #[test]
    fn a_header_spread_over_lines_and_a_label_above_it_are_read() {
        let chunks = [chunk(
            53,
            0,
            "GM 10-K",
            "Consolidated Statements of Earnings\n(In Millions)\nNet sales\n$\nFiscal Year\n2019 2018 2017\n\
             16,865.2 $ 15,740.4 $ 15,619.8\nCost of sales 11,108.4 10,304.8 10,052.0",
        )];
        let sheet = Sheet::of(&chunks);
        let (row, figure) = sheet.find(Item::Revenue, 2018, false).unwrap();
        assert_eq!((row.label.as_str(), figure.value), ("Net sales", 15740.4));
        let chunks = [chunk(
            72,
            0,
            "CORNING 10-K",
            "Consolidated Balance Sheets\n2020\nDecember 31,\n2019\nInventories, net (Note 6) 2,438 2,320\n\
             Accounts payable 1,174 1,587",
        )];
        let sheet = Sheet::of(&chunks);
        assert_eq!(
            sheet.find(Item::AccountsPayable, 2019, false).map(|(_, f)| f.value),
            Some(1587.0)
        );
        assert_eq!(
            sheet.find(Item::Inventory, 2020, false).map(|(_, f)| f.value),
            Some(2438.0)
        );
    }

    #[test]
    fn a_column_names_the_last_year_it_holds_and_a_span_none() {
        assert_eq!(column_year("February 2, 2019"), Some(2019));
        assert_eq!(column_year("Fiscal 2016"), Some(2016));
        assert_eq!(column_year("2016-2015"), None);
    }
}
