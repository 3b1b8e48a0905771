//! The name a document is shown by, chosen here once for the app, the CLI and the starter
//! questions: its PDF's metadata title when that reads as a title, else its file name without
//! `.pdf`. Many titles are not titles: an SEC accession number ("0000004962-23-000010"), EDGAR's
//! cover string ("10-K - 02/07/2019 - AMERICAN EXPRESS CO"), a word processor's "Microsoft Word -
//! report.docx", "untitled", "Slide 1", a path, an id.

/// Endings that make a title the name of a file ("Q3 report.docx").
const FILE_ENDINGS: &[&str] = &[
    "pdf", "doc", "docx", "dot", "dotx", "rtf", "odt", "ods", "odp", "txt", "md", "tex", "dvi", "ps", "eps", "htm",
    "html", "xml", "ppt", "pptx", "pps", "xls", "xlsx", "csv", "indd", "qxd", "qxp", "wpd", "psd", "jpg", "jpeg",
    "png", "tif", "tiff",
];

/// Titles programs give a document nobody named, once trailing numbers and punctuation are
/// dropped ("Document1", "Slide 1", "Untitled-3"), in lower case; a few word processors' in
/// other languages; and the line every SEC filing's cover opens with.
const PLACEHOLDERS: &[&str] = &[
    "untitled",
    "untitled document",
    "document",
    "doc",
    "new document",
    "microsoft word document",
    "new microsoft word document",
    "title",
    "no title",
    "notitle",
    "slide",
    "presentation",
    "powerpoint presentation",
    "layout",
    "book",
    "workbook",
    "sheet",
    "page",
    "blank",
    "draft",
    "unknown",
    "none",
    "null",
    "default",
    "temp",
    "tmp",
    "test",
    "print",
    "noname",
    "scan",
    "insert title here",
    "sans titre",
    "document sans titre",
    "unbenannt",
    "unbenanntes dokument",
    "sin título",
    "documento sin título",
    "senza titolo",
    "documento senza titolo",
    "dokument bez tytułu",
    "united states securities and exchange commission",
];

/// A title of more words than this is a sentence or a paragraph set as the title.
const MAX_WORDS: usize = 40;

/// The name document `file_name`, whose metadata title is `title`, is shown by: the title when
/// it reads as one ([`readable_title`]), else the file name without its `.pdf`.
pub fn display_name(file_name: &str, title: Option<&str>) -> String {
    if let Some(title) = title.and_then(readable_title) {
        return title;
    }
    let stem = match file_name.rsplit_once('.') {
        Some((stem, ext)) if ext.eq_ignore_ascii_case("pdf") && !stem.trim().is_empty() => stem,
        _ => file_name,
    };
    stem.to_string()
}

/// `title` as it is shown (white space collapsed, a word processor's "Microsoft Word - " taken
/// off), or `None` when it does not read as a title: fewer than three letters, mostly digits and
/// punctuation, an id, a date between dashes (EDGAR's "10-K - 02/07/2019 - ..."), a date and time
/// stamped into a word ("Exhibits-2022-08-03-15-21"), a file's name or path, or a program's
/// placeholder ("untitled", "Document1", "Slide 1").
pub fn readable_title(title: &str) -> Option<String> {
    let flat = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = without_producer(&flat);
    let words: Vec<&str> = shown.split(' ').filter(|w| !w.is_empty()).collect();
    let letters = shown.chars().filter(|c| c.is_alphabetic()).count();
    let visible = shown.chars().filter(|c| !c.is_whitespace()).count();
    let reads = letters >= 3
        && letters * 3 >= visible
        && words.len() <= MAX_WORDS
        && !shown.contains('\u{FFFD}')
        && !is_path(shown)
        && !is_file_name(shown, &words)
        && !(words.len() == 1 && is_id(shown))
        && !is_dated_cover(shown)
        && !words.iter().any(|w| is_stamp(w))
        && !is_placeholder(shown);
    reads.then(|| shown.to_string())
}

/// `title` without the name of the program that made it ("Microsoft Word - report.docx" is
/// "report.docx", which is then seen to be a file's name).
fn without_producer(title: &str) -> &str {
    if !title.to_lowercase().starts_with("microsoft ") {
        return title;
    }
    match title.split_once(" - ") {
        Some((_, rest)) => rest.trim(),
        None => title,
    }
}

/// A path or an address: "C:\Users\x\a.pdf", "/home/x/a", "~/a", "file:///a", "https://...".
fn is_path(title: &str) -> bool {
    let lower = title.to_lowercase();
    let drive = {
        let mut chars = title.chars();
        matches!(
            (chars.next(), chars.next(), chars.next()),
            (Some(d), Some(':'), Some('\\' | '/')) if d.is_ascii_alphabetic()
        )
    };
    drive
        || title.contains('\\')
        || title.starts_with('/')
        || title.starts_with("~/")
        || ["file:", "http://", "https://", "www."]
            .iter()
            .any(|p| lower.starts_with(p))
        || (!title.contains(' ') && title.matches('/').count() >= 2)
}

/// A file's name: it ends with a known file ending ("Q3 report.docx"), or is one word joined by
/// underscores ("AMERICANEXPRESS_2022_10K").
fn is_file_name(title: &str, words: &[&str]) -> bool {
    let ending = title
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && FILE_ENDINGS.iter().any(|e| ext.eq_ignore_ascii_case(e)));
    ending || (words.len() == 1 && title.contains('_'))
}

/// One word that is an id, a code or a hash: six characters or more, three of them digits
/// ("INV000231", "a3f9c2e1d0", a UUID), where a name has fewer ("ResNet50", "COVID-19").
fn is_id(word: &str) -> bool {
    word.chars().count() >= 6 && word.chars().filter(|c| c.is_ascii_digit()).count() >= 3
}

/// EDGAR's and other filing systems' cover strings: parts between dashes, one of them holding a
/// date ("10-K - 02/07/2019 - AMERICAN EXPRESS CO").
fn is_dated_cover(title: &str) -> bool {
    let parts: Vec<&str> = title.split(' ').collect();
    let dashes = parts.iter().filter(|p| matches!(**p, "-" | "–" | "—")).count();
    dashes >= 1
        && parts
            .iter()
            .any(|p| is_date(p.trim_matches(|c: char| !c.is_alphanumeric())))
}

/// A date of figures: "02/07/2019", "2/7/19", "2019-02-07", "07.02.2019".
fn is_date(word: &str) -> bool {
    let parts: Vec<&str> = word.split(['/', '-', '.']).collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| (1..=4).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()))
        && parts.iter().filter(|p| p.len() > 2).count() <= 1
}

/// A word a program stamped with a date or a time: groups of figures joined by `-`, `/`, `.`, `_`
/// or `:`, six figures or more, glued to letters ("Exhibits-2022-08-03-15-21") or of four groups
/// or more ("2023-08-03-16-07"). A date alone ("05/19/2022") or a version ("v1.2.3") is not one.
fn is_stamp(word: &str) -> bool {
    let letters = word.chars().any(|c| c.is_alphabetic());
    word.split(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '/' | '.' | '_' | ':')))
        .any(|run| {
            let groups: Vec<&str> = run
                .split(|c: char| !c.is_ascii_digit())
                .filter(|g| !g.is_empty())
                .collect();
            let figures: usize = groups.iter().map(|g| g.len()).sum();
            groups.len() >= 3 && figures >= 6 && (letters || groups.len() >= 4)
        })
}

/// A program's placeholder, whatever number follows it ("Document1", "Slide 12", "Untitled-3").
fn is_placeholder(title: &str) -> bool {
    let lower = title.to_lowercase();
    let base = lower.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace() || c.is_ascii_punctuation());
    PLACEHOLDERS.contains(&base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_titles_are_shown_as_they_read() {
        for title in [
            "Attention Is All You Need",
            "Annual Report 2022",
            "RAG survey",
            "Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks",
            "COVID-19 Update - March 2021",
            "Form 1040-NR Instructions",
            "Q3 2019 Results",
            "Apple Inc. 10-K",
            "Die Verwandlung",
            "ResNet50",
            "2007 Form 1040NR",
            "Form 8-K for Foot Locker INC filed 05/19/2022",
            "Minutes of 2019-02-07",
            "Release notes v1.2.3",
            "QMF: Using QMF",
        ] {
            assert_eq!(readable_title(title).as_deref(), Some(title), "{title}");
        }
    }

    #[test]
    fn white_space_is_collapsed_and_a_word_processors_name_taken_off() {
        assert_eq!(
            readable_title("  Annual\r\n Report   2022 ").as_deref(),
            Some("Annual Report 2022")
        );
        assert_eq!(
            readable_title("Microsoft Word - Budget Proposal 2024").as_deref(),
            Some("Budget Proposal 2024")
        );
    }

    #[test]
    fn what_is_no_title_is_not_shown() {
        for title in [
            "0000004962-23-000010",
            "0001193125-19-034231",
            "10-K - 02/07/2019 - AMERICAN EXPRESS CO",
            "10-Q - 2019-05-02 - APPLE INC",
            "Microsoft Word - Q3 report.docx",
            "Microsoft PowerPoint - deck_final.pptx",
            "Q3 report.docx",
            "paper.pdf",
            "untitled",
            "Untitled-3",
            "Document1",
            "Slide 1",
            "PowerPoint Presentation",
            "C:\\Users\\x\\a.pdf",
            "/home/x/reports/q3",
            "file:///tmp/a.pdf",
            "AMERICANEXPRESS_2022_10K",
            "INV000231",
            "d41d8cd98f00b204e9800998ecf8427e",
            "12345",
            "ab",
            "- - -",
            "#1 (2)",
            "",
            "Caf\u{FFFD} report",
            "Document",
            "Dokument bez tytułu",
            "UNITED STATES SECURITIES AND EXCHANGE COMMISSION",
            "10Q Doc & Exhibits-2022-08-03-15-21",
            "CORP Q2 2023-2023-08-03-16-07",
            "Microsoft Word - F20_10K_VFinal_07.01.2020",
            "zen_of_python.txt",
        ] {
            assert_eq!(readable_title(title), None, "{title:?}");
        }
    }

    #[test]
    fn a_document_is_shown_by_its_file_name_when_its_title_is_none() {
        let name = |title| display_name("AMERICANEXPRESS_2022_10K.pdf", title);
        assert_eq!(
            name(Some("10-K - 02/07/2019 - AMERICAN EXPRESS CO")),
            "AMERICANEXPRESS_2022_10K"
        );
        assert_eq!(name(Some("0000004962-23-000010")), "AMERICANEXPRESS_2022_10K");
        assert_eq!(name(None), "AMERICANEXPRESS_2022_10K");
        assert_eq!(
            name(Some("American Express 2022 Annual Report")),
            "American Express 2022 Annual Report"
        );
        assert_eq!(display_name("notes.PDF", None), "notes");
        assert_eq!(display_name("notes.txt", None), "notes.txt");
        assert_eq!(display_name(".pdf", None), ".pdf");
    }
}
