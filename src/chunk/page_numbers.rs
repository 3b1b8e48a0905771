//! Printed page numbers. A report's page 17 is often the PDF's 20th (a cover and contents
//! come first), and a reader asking for "page 17" means the number printed in its header or
//! footer: the first line of the page's first passage or the last line of its last, starting or
//! ending with the number ("Alibaba Cloud | Introducing Alibaba Cloud 17", "8", "Page 8 of 40",
//! "17/40").

/// Whether a passage of a page (`first` and `last` say if it begins or ends the page) prints
/// `number` as the page's number.
pub fn prints_page_number(text: &str, number: u32, first: bool, last: bool) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|line| !line.is_empty());
    (first && lines.next().is_some_and(|line| carries(line, number)))
        || (last && lines.next_back().is_some_and(|line| carries(line, number)))
}

/// Whether `line` starts or ends with `number`, stands as "page N", or as "N/M".
fn carries(line: &str, number: u32) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '|')
        .filter(|w| !w.is_empty())
        .collect();
    let is_number = |word: &str| word.parse::<u32>() == Ok(number) || of_pages(word) == Some(number);
    words.first().is_some_and(|w| is_number(w))
        || words.last().is_some_and(|w| is_number(w))
        || words
            .windows(2)
            .any(|pair| pair[0].eq_ignore_ascii_case("page") && is_number(pair[1]))
}

/// The `N` of "N/M", where both are numbers and `N` is at most `M` (a date has three parts).
fn of_pages(word: &str) -> Option<u32> {
    let (n, m) = word.split_once('/')?;
    let (n, m) = (n.parse::<u32>().ok()?, m.parse::<u32>().ok()?);
    (n <= m).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_footers_print_the_number() {
        assert!(prints_page_number(
            "Alibaba Cloud | Introducing Alibaba Cloud    17\nPRODUCTS",
            17,
            true,
            false
        ));
        assert!(prints_page_number(
            "Storage\nIssue 26 (2024-02-28)   Copyright Huawei   8\n",
            8,
            false,
            true
        ));
        assert!(prints_page_number("Report\nPage 8 of 40", 8, false, true));
        assert!(prints_page_number("17/40\nText", 17, true, false));
    }

    #[test]
    fn numbers_elsewhere_are_not_the_page_number() {
        // Not the page's first or last passage.
        assert!(!prints_page_number("17\nText", 17, false, false));
        // Inside a line, a date, or another number.
        assert!(!prints_page_number("It grew 17 percent\nmore", 17, true, true));
        assert!(!prints_page_number("5/28/2020 Quick-Start Guide", 5, true, false));
        assert!(!prints_page_number("170\nText", 17, true, false));
    }
}
