//! What a table's rows sit under: the statement's title ("Consolidated Statements of Cash
//! Flows") and the line naming the periods its columns hold ("2018 2017 2016", "December 31,
//! 2019 December 31, 2018"). A chunk that starts below such lines, without them, is searched
//! with them, so a row's numbers are found by the statement and the year they are for.

use crate::dates::is_year;

/// At most this many words in a line of column headers.
const MAX_WORDS: usize = 16;
/// At most this many words in a statement's title.
const MAX_TITLE_WORDS: usize = 12;

/// The lines of a page's text that title a table or head its columns, each with the character
/// offset where it starts and whether it is a title.
pub fn table_heads(text: &str) -> Vec<(u32, bool, String)> {
    let mut out = Vec::new();
    let mut offset = 0u32;
    for line in text.split('\n') {
        let title = is_statement_title(line);
        if title || is_column_header(line) {
            out.push((offset, title, line.split_whitespace().collect::<Vec<_>>().join(" ")));
        }
        offset += line.chars().count() as u32 + 1;
    }
    out
}

/// True for the title of a financial statement: "Consolidated Balance Sheets", "Condensed
/// Consolidated Statements of Operations", "Statement of Cash Flows".
fn is_statement_title(line: &str) -> bool {
    title_rest(line).is_some()
}

/// A statement's title without its leading "consolidated", "condensed" and the like, in lower
/// case; `None` for a line that is no statement's title.
fn title_rest(line: &str) -> Option<String> {
    let lower = line.trim().to_lowercase();
    let words = lower.split_whitespace().count();
    if words == 0 || words > MAX_TITLE_WORDS {
        return None;
    }
    let rest = lower
        .split_whitespace()
        .skip_while(|w| matches!(*w, "consolidated" | "condensed" | "combined" | "unaudited" | "interim"))
        .collect::<Vec<_>>()
        .join(" ");
    (rest.starts_with("statement of") || rest.starts_with("statements of") || rest.starts_with("balance sheet"))
        .then_some(rest)
}

/// The four statements of a company's accounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Statement {
    /// The balance sheet (statement of financial position).
    Balance,
    /// The income statement (of operations, of earnings; the P&L).
    Income,
    /// The statement of cash flows.
    CashFlows,
    /// The statement of stockholders' equity.
    Equity,
}

/// The statement `line` is the title of, if it is one.
pub fn statement_titled(line: &str) -> Option<Statement> {
    let rest = title_rest(line)?;
    if rest.starts_with("balance sheet") || rest.contains("financial position") || rest.contains("financial condition")
    {
        Some(Statement::Balance)
    } else if rest.contains("cash flow") {
        Some(Statement::CashFlows)
    } else if rest.contains("equity") && !rest.contains("income") {
        Some(Statement::Equity)
    } else if ["income", "operations", "earnings", "loss"]
        .iter()
        .any(|w| rest.contains(w))
    {
        Some(Statement::Income)
    } else {
        None
    }
}

/// True for a short line naming at least two distinct years, whose other numbers are days of a
/// month ("December 31, 2019") or quarters ("Q3"): a header of period columns, not a row of
/// figures ("2,018" is a figure).
fn is_column_header(line: &str) -> bool {
    column_periods(line).is_some()
}

/// At most this many words name one column: "December 31, 2019", "Q3 2019", "Fiscal 2016".
const PERIOD_WORDS: usize = 3;

/// The periods a line of column headers names, one a column, in order ("Years ended December 31,
/// 2018 2017 2016" gives "2018", "2017" and "2016"; "2016-2015", a change's column, is one),
/// each with the words before it since the previous period when they are few ("Q3 2019",
/// "December 31, 2019"); `None` for a line that is not such a header ([`is_column_header`]).
pub fn column_periods(line: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 2 || words.len() > MAX_WORDS {
        return None;
    }
    let mut years: Vec<&str> = Vec::new();
    let mut columns = Vec::new();
    let mut since = 0;
    for (i, word) in words.iter().enumerate() {
        // A span of years ("2016-2015") is its years, in one column.
        let span: Vec<&str> = match word.split_once(['-', '–']) {
            Some((a, b)) if is_year(a) && is_year(b) => vec![a, b],
            _ => vec![*word],
        };
        let mut names_year = false;
        for part in span {
            let part = part.trim_matches(|c: char| !c.is_alphanumeric());
            let digits = part.trim_start_matches(|c: char| c.is_alphabetic());
            if !part.chars().any(|c| c.is_ascii_digit()) {
                continue;
            }
            if !digits.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let prefixed = digits.len() < part.len();
            match digits.len() {
                4 if is_year(digits) => {
                    names_year = true;
                    if !years.contains(&digits) {
                        years.push(digits);
                    }
                }
                1 | 2 if prefixed || digits.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d)) => {}
                _ => return None,
            }
        }
        if names_year {
            let from = if i + 1 - since <= PERIOD_WORDS { since } else { i };
            columns.push(words[from..=i].join(" "));
            since = i + 1;
        }
    }
    (years.len() >= 2).then_some(columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_names_its_statement() {
        assert_eq!(
            statement_titled("CONSOLIDATED BALANCE SHEETS"),
            Some(Statement::Balance)
        );
        assert_eq!(
            statement_titled("Condensed Consolidated Statements of Operations"),
            Some(Statement::Income)
        );
        assert_eq!(statement_titled("Statement of Cash Flows"), Some(Statement::CashFlows));
        assert_eq!(
            statement_titled("Consolidated Statements of Stockholders' Equity"),
            Some(Statement::Equity)
        );
        assert_eq!(
            statement_titled("Consolidated Statements of Financial Position"),
            Some(Statement::Balance)
        );
        assert_eq!(statement_titled("The statements of the officers are below."), None);
        assert_eq!(statement_titled("Net sales rose in the year"), None);
    }

    #[test]
    fn a_header_names_one_period_a_column() {
        let periods = |line| column_periods(line).unwrap_or_default();
        assert_eq!(
            periods("Years ended December 31, 2018 2017 2016"),
            ["2018", "2017", "2016"]
        );
        assert_eq!(
            periods("December 31, 2019 December 31, 2018"),
            ["December 31, 2019", "December 31, 2018"]
        );
        assert_eq!(periods("Q3 2019 Q3 2018"), ["Q3 2019", "Q3 2018"]);
        assert_eq!(
            periods("2016 2015 2014 2016-2015 2015-2014"),
            ["2016", "2015", "2014", "2016-2015", "2015-2014"]
        );
        assert_eq!(column_periods("Total 2,018 2,017"), None);
        assert_eq!(column_periods("Filed 2019"), None);
    }

    #[test]
    fn statement_titles_and_period_lines_are_heads_and_rows_of_figures_are_not() {
        let text = "CONSOLIDATED STATEMENTS OF CASH FLOWS\n(in millions)\nYears ended December 31, 2018 2017 2016\nCapital expenditures (1,577) (1,373) (1,420)\nDecember 31, 2019 December 31, 2018\nFiled 2019\nTotal 2,018 2,017\nThe statements of the officers are below.";
        assert_eq!(
            table_heads(text),
            [
                (0, true, "CONSOLIDATED STATEMENTS OF CASH FLOWS".to_string()),
                (52, false, "Years ended December 31, 2018 2017 2016".to_string()),
                (137, false, "December 31, 2019 December 31, 2018".to_string())
            ]
        );
        assert_eq!(
            table_heads(
                "Q3 2019 Q3 2018\nFY2018 FY2017\nNet sales 1,577 2019 2018\nBalance Sheets\n2016 2015 2016-2015"
            ),
            [
                (0, false, "Q3 2019 Q3 2018".to_string()),
                (16, false, "FY2018 FY2017".to_string()),
                (56, true, "Balance Sheets".to_string()),
                (71, false, "2016 2015 2016-2015".to_string())
            ]
        );
    }
}
