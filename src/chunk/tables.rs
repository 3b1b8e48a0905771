//! What a table's rows sit under: the statement's title ("Consolidated Statements of Cash
//! Flows") and the line naming the periods its columns hold ("2018 2017 2016", "December 31,
//! 2019 December 31, 2018"). A chunk that starts below such lines, without them, is searched
//! with them, so a row's numbers are found by the statement and the year they are for.

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
    let lower = line.trim().to_lowercase();
    let words = lower.split_whitespace().count();
    if words == 0 || words > MAX_TITLE_WORDS {
        return false;
    }
    let rest = lower
        .split_whitespace()
        .skip_while(|w| matches!(*w, "consolidated" | "condensed" | "combined" | "unaudited" | "interim"))
        .collect::<Vec<_>>()
        .join(" ");
    rest.starts_with("statement of") || rest.starts_with("statements of") || rest.starts_with("balance sheet")
}

/// True for a short line naming at least two distinct years, whose other numbers are days of a
/// month ("December 31, 2019") or quarters ("Q3"): a header of period columns, not a row of
/// figures ("2,018" is a figure).
fn is_column_header(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() < 2 || words.len() > MAX_WORDS {
        return false;
    }
    let mut years: Vec<&str> = Vec::new();
    for word in &words {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        let digits = word.trim_start_matches(|c: char| c.is_alphabetic());
        if !word.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return false;
        }
        let prefixed = digits.len() < word.len();
        match digits.len() {
            4 if digits.starts_with("19") || digits.starts_with("20") => {
                if !years.contains(&digits) {
                    years.push(digits);
                }
            }
            1 | 2 if prefixed || digits.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d)) => {}
            _ => return false,
        }
    }
    years.len() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

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
            table_heads("Q3 2019 Q3 2018\nFY2018 FY2017\nNet sales 1,577 2019 2018\nBalance Sheets"),
            [
                (0, false, "Q3 2019 Q3 2018".to_string()),
                (16, false, "FY2018 FY2017".to_string()),
                (56, true, "Balance Sheets".to_string())
            ]
        );
    }
}
