//! A table's rows as the model reads them: under a line naming its columns' periods ("2018 2017
//! 2016"), a row with one figure a column is written with each figure's period ("Capital
//! expenditures — 2018: (1,577); 2017: (1,373); 2016: (1,420)"), so that a small model cannot
//! take the next column's figure for the year it was asked about. The figures stay as the page
//! writes them, so every number the model may quote is still in its passage.

use crate::chunk::column_periods;

/// A line of this many words without figures is prose: the table above it has ended.
const PROSE_WORDS: usize = 12;

/// `text` with each row under a header of periods (a line of `text`, or `above`, the periods of
/// the header the passage sits under) written with its figures' periods. Rows whose figures do
/// not match the columns one for one are left as they are.
pub fn with_periods(text: &str, above: Option<Vec<String>>) -> String {
    let mut rows = period_rows(text, above, true).into_iter().peekable();
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match rows.next_if(|row| row.line == i) {
            Some(row) => {
                let cells: Vec<String> = row.cells.iter().map(|(p, c)| format!("{p}: {c}")).collect();
                if !row.label.is_empty() {
                    out.push_str(row.label);
                    out.push_str(" — ");
                }
                out.push_str(&cells.join("; "));
            }
            None => out.push_str(line),
        }
    }
    out
}

/// A row of a table under a header of periods: one figure a column.
#[derive(Debug, Clone, PartialEq)]
pub struct PeriodRow<'t> {
    /// Which line of the text it is (0-based).
    pub line: usize,
    /// Its label, without a colon at its end ("" for a row of figures alone).
    pub label: &'t str,
    /// Each figure as the page writes it ("$ (58.5)", "—"), with its column's period.
    pub cells: Vec<(String, String)>,
}

/// The rows of `text` with one figure for each period of the header above them (a line of
/// `text`, or `above`, the periods of the header the passage sits under), until the next header
/// or, if `prose_ends` says so, a line of prose.
pub fn period_rows(text: &str, above: Option<Vec<String>>, prose_ends: bool) -> Vec<PeriodRow<'_>> {
    let mut periods = above;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(header) = column_periods(line) {
            periods = Some(header);
            continue;
        }
        let (label, cells) = split_row(line);
        match &periods {
            Some(columns) if cells.len() == columns.len() => rows.push(PeriodRow {
                line: i,
                label,
                cells: columns.iter().cloned().zip(cells).collect(),
            }),
            _ => {
                if prose_ends && cells.is_empty() && line.split_whitespace().count() >= PROSE_WORDS {
                    periods = None;
                }
            }
        }
    }
    rows
}

/// A row's label and the figures that end it: "Net sales $ 32,765 31,657 (3)%" gives "Net
/// sales" and "$ 32,765", "31,657", "(3)%". A currency sign before a figure and a percent sign
/// after one go with it; a dash or asterisks stand for an empty cell.
fn split_row(line: &str) -> (&str, Vec<String>) {
    let words: Vec<(usize, &str)> = line
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
        .collect();
    let mut cells: Vec<String> = Vec::new();
    let mut end = words.len();
    while end > 0 {
        let word = words[end - 1].1;
        if word == "%" && end >= 2 && is_figure(words[end - 2].1) {
            cells.push(format!("{} %", words[end - 2].1));
            end -= 2;
        } else if is_figure(word) || is_blank(word) {
            cells.push(word.to_string());
            end -= 1;
        } else if word == "$" && !cells.is_empty() {
            if let Some(last) = cells.last_mut() {
                *last = format!("$ {last}");
            }
            end -= 1;
        } else {
            break;
        }
    }
    cells.reverse();
    let label = words.get(end).map_or(line, |&(at, _)| &line[..at]);
    (label.trim().trim_end_matches(':').trim_end(), cells)
}

/// A written figure: digits with separators, maybe a currency sign, parentheses (a negative)
/// and a percent sign ("$5.3", "(1,577)", "12%", "(60)%").
fn is_figure(word: &str) -> bool {
    // "6)" closes "(Note 6)": a reference, not a negative figure.
    if word.trim_end_matches(['%', ',']).ends_with(')') && !word.contains('(') {
        return false;
    }
    let core = word
        .trim_start_matches(['$', '€', '£', '('])
        .trim_end_matches([')', '%', ',']);
    core.chars().next().is_some_and(|c| c.is_ascii_digit())
        && core.chars().all(|c| c.is_ascii_digit() || c == ',' || c == '.')
}

/// A cell with no figure: a dash ("—", nil) or asterisks (a footnote's "not meaningful").
fn is_blank(word: &str) -> bool {
    matches!(word, "—" | "–" | "-") || (!word.is_empty() && word.chars().all(|c| c == '*'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_figure_of_a_row_is_written_with_its_columns_period() {
        let text = "Non-Operating Income (Expense), Net (dollars in millions)\n\
                    Fiscal Fiscal Fiscal % Change % Change\n\
                    2016 2015 2014 2016-2015 2015-2014\n\
                    Interest expense (70.4) (64.2) (59.7) 10 % 8 %\n\
                    Total non-operating income (expense), net $ (58.5) $ (29.3) $ (51.3) 100 % (43)%\n\
                    Percentage of total revenue (1)% (1)% (1)%";
        assert_eq!(
            with_periods(text, None),
            "Non-Operating Income (Expense), Net (dollars in millions)\n\
             Fiscal Fiscal Fiscal % Change % Change\n\
             2016 2015 2014 2016-2015 2015-2014\n\
             Interest expense — 2016: (70.4); 2015: (64.2); 2014: (59.7); 2016-2015: 10 %; 2015-2014: 8 %\n\
             Total non-operating income (expense), net — 2016: $ (58.5); 2015: $ (29.3); 2014: $ (51.3); \
             2016-2015: 100 %; 2015-2014: (43)%\n\
             Percentage of total revenue (1)% (1)% (1)%"
        );
    }

    #[test]
    fn the_header_a_passage_sits_under_labels_its_rows_until_prose_ends_the_table() {
        let text = "Capital expenditures (1,577) (1,373)\n\
                    Dividends paid — (500)\n\
                    50,447 48,640\n\
                    The company spent more on its plants in the year than it did in the year before.\n\
                    Other 12 13";
        assert_eq!(
            with_periods(text, column_periods("December 31, 2018 December 31, 2017")),
            "Capital expenditures — December 31, 2018: (1,577); December 31, 2017: (1,373)\n\
             Dividends paid — December 31, 2018: —; December 31, 2017: (500)\n\
             December 31, 2018: 50,447; December 31, 2017: 48,640\n\
             The company spent more on its plants in the year than it did in the year before.\n\
             Other 12 13"
        );
    }

    #[test]
    fn rows_without_a_header_or_with_other_counts_of_figures_stay_as_they_are() {
        let text = "Net sales 32,765 31,657\nSee Note 12 on page 64";
        assert_eq!(with_periods(text, None), text);
        let text = "Level 3 1,204 1,377\nShares 5";
        assert_eq!(with_periods(text, column_periods("2019 2018")), text);
    }
}
