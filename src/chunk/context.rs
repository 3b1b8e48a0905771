//! What a chunk sits under: the document it comes from, the section heading in force where it
//! starts and, in a table, the statement's title and the line naming its columns' periods
//! (`tables.rs`). The context is indexed and embedded with the chunk's text (a table row of
//! "Capital expenditures 1,577" is found by a question naming the company, the statement and the
//! year) but never shown or cited: offsets and quotes refer to the page text alone.

use std::collections::HashSet;

use super::tables::table_heads;
use super::Chunk;

/// At most this many characters of a title or heading go into a context.
const MAX_PART: usize = 120;

/// Follows a document's section headings page by page and gives each chunk its context.
pub struct Sections {
    label: String,
    heading: Option<String>,
    /// Headings met on earlier pages: one met again is a running header or footer ("Annual
    /// Report 2023"), not a new section.
    seen: HashSet<String>,
    /// The previous page's headings with digits masked: one that recurs on the next page with
    /// other digits is a running header too ("Page 7 of 48"), while "Chapter 2" pages after
    /// "Chapter 1" opens a section.
    previous: HashSet<String>,
}

impl Sections {
    /// A tracker for the document named `file_name`, whose metadata title is `title`.
    pub fn new(file_name: &str, title: Option<&str>) -> Sections {
        Sections {
            label: label(file_name, title),
            heading: None,
            seen: HashSet::new(),
            previous: HashSet::new(),
        }
    }

    /// Sets the context of the chunks of one page whose (normalised) text is `text` and whose
    /// headings, in reading order, are `headings`; the last heading carries on to the next pages.
    pub fn place(&mut self, text: &str, headings: &[String], chunks: &mut [Chunk]) {
        let masked: HashSet<String> = headings.iter().map(|h| mask_digits(h)).collect();
        let fresh: Vec<String> = headings
            .iter()
            .filter(|h| !self.seen.contains(*h) && !self.previous.contains(&mask_digits(h)))
            .cloned()
            .collect();
        self.seen.extend(headings.iter().cloned());
        self.previous = masked;
        let at = heading_offsets(text, &fresh);
        let heads = table_heads(text);
        for chunk in chunks {
            let heading = at
                .iter()
                .rev()
                .find(|(offset, _)| *offset <= chunk.char_start)
                .map(|(_, h)| h.as_str())
                .or(self.heading.as_deref());
            // The title and the periods of the table the chunk starts in, when they are above it.
            let above = |title: bool| {
                heads
                    .iter()
                    .rev()
                    .find(|(offset, is_title, _)| *offset < chunk.char_start && *is_title == title)
                    .map(|(_, _, h)| h.as_str())
            };
            let mut context = self.label.clone();
            for part in heading.into_iter().chain(above(true)).chain(above(false)) {
                context.push('\n');
                context.push_str(shorten(part));
            }
            chunk.context = context;
        }
        if let Some((_, last)) = at.last() {
            self.heading = Some(last.clone());
        }
    }
}

/// `text` with every run of digits as one `#`.
fn mask_digits(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('#') {
            out.push('#');
        }
    }
    out
}

/// The document's name without its extension and with underscores as spaces, and its metadata
/// title where that says more than a file name would.
fn label(file_name: &str, title: Option<&str>) -> String {
    let stem = match file_name.rsplit_once('.') {
        Some((stem, ext)) if ext.eq_ignore_ascii_case("pdf") => stem,
        _ => file_name,
    };
    let stem = stem.replace('_', " ");
    match title.map(str::trim).filter(|t| is_real_title(t, &stem)) {
        Some(t) => format!("{} · {}", shorten(&stem), shorten(t)),
        None => shorten(&stem).to_string(),
    }
}

/// True unless `title` is empty, repeats the name, or is a file name or a word processor's
/// placeholder ("Microsoft Word - draft3.docx", "untitled").
fn is_real_title(title: &str, stem: &str) -> bool {
    const FILE_ENDINGS: [&str; 8] = [".doc", ".docx", ".pdf", ".htm", ".html", ".indd", ".tex", ".dvi"];
    let lower = title.to_lowercase();
    title.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && lower != stem.to_lowercase()
        && !lower.starts_with("microsoft ")
        && !matches!(lower.as_str(), "untitled" | "document" | "title")
        && !FILE_ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// The first [`MAX_PART`] characters of `text`, cut at a character boundary.
fn shorten(text: &str) -> &str {
    text.char_indices().nth(MAX_PART).map_or(text, |(i, _)| &text[..i])
}

/// Where each heading starts in `text`, in characters, found in order at the start of a line (a
/// wrapped heading's lines are joined by a space, so newlines match spaces). Headings not found
/// are left out.
fn heading_offsets(text: &str, headings: &[String]) -> Vec<(u32, String)> {
    let flat = text.replace('\n', " ");
    let line_start = |byte: usize| byte == 0 || text.as_bytes().get(byte - 1) == Some(&b'\n');
    let mut from = 0;
    let mut out = Vec::new();
    for heading in headings {
        let found = flat
            .get(from..)
            .into_iter()
            .flat_map(|rest| rest.match_indices(heading.as_str()))
            .map(|(i, _)| from + i)
            .find(|&byte| line_start(byte));
        if let Some(byte) = found {
            out.push((flat[..byte].chars().count() as u32, heading.clone()));
            from = byte + heading.len();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ChunkId;

    fn chunk(char_start: u32) -> Chunk {
        Chunk {
            id: ChunkId(format!("c{char_start}")),
            page: 1,
            char_start,
            char_end: char_start + 5,
            text: String::new(),
            context: String::new(),
        }
    }

    #[test]
    fn labels_use_the_name_and_a_title_worth_reading() {
        assert_eq!(label("3M_2018_10K.pdf", None), "3M 2018 10K");
        assert_eq!(
            label("3M_2018_10K.PDF", Some("Microsoft Word - 10k.docx")),
            "3M 2018 10K"
        );
        assert_eq!(
            label("report.pdf", Some("Annual Report 2022")),
            "report · Annual Report 2022"
        );
        assert_eq!(label("notes", Some("notes")), "notes");
    }

    #[test]
    fn a_chunk_gets_the_heading_in_force_where_it_starts_and_headings_carry_over() {
        let mut sections = Sections::new("acme.pdf", None);
        let text = "Intro line\nResults of\nOperations\nSales rose.";
        let headings = vec!["Results of Operations".to_string(), "Missing".to_string()];
        let mut chunks = vec![chunk(0), chunk(11), chunk(30)];
        sections.place(text, &headings, &mut chunks);
        assert_eq!(chunks[0].context, "acme");
        assert_eq!(chunks[1].context, "acme\nResults of Operations");
        assert_eq!(chunks[2].context, "acme\nResults of Operations");
        let mut next = vec![chunk(0)];
        sections.place("More sales.", &[], &mut next);
        assert_eq!(next[0].context, "acme\nResults of Operations");
    }

    #[test]
    fn a_chunk_below_a_tables_period_header_is_searched_with_it() {
        let mut sections = Sections::new("acme.pdf", None);
        let text = "Results\nBalance Sheet\nYear 2018 2017\nSales 5 4\nCosts 3 2";
        let mut chunks = vec![chunk(0), chunk(37)];
        sections.place(text, &["Results".into()], &mut chunks);
        assert_eq!(chunks[0].context, "acme\nResults");
        assert_eq!(chunks[1].context, "acme\nResults\nBalance Sheet\nYear 2018 2017");
    }

    #[test]
    fn a_heading_met_again_on_a_later_page_is_a_running_header() {
        let mut sections = Sections::new("acme.pdf", None);
        let mut first = vec![chunk(12)];
        sections.place(
            "Page 1 of 9\nOutlook\nGrowth.",
            &["Page 1 of 9".into(), "Outlook".into()],
            &mut first,
        );
        assert_eq!(first[0].context, "acme\nOutlook");
        let mut second = vec![chunk(0)];
        sections.place("Page 2 of 9\nMore growth.", &["Page 2 of 9".into()], &mut second);
        assert_eq!(second[0].context, "acme\nOutlook");
        // A numbered heading pages later is a new section, not a running header.
        let mut later = vec![chunk(0)];
        sections.place("Intro\nChapter 1\nText.", &["Chapter 1".into()], &mut later);
        sections.place("Page 3 of 9\nMore.", &["Page 3 of 9".into()], &mut second);
        sections.place("Chapter 2\nText.", &["Chapter 2".into()], &mut later);
        assert_eq!(later[0].context, "acme\nChapter 2");
    }

    #[test]
    fn headings_are_found_at_the_start_of_a_line_only() {
        let text = "See the Notes below.\nFootnotes\nNotes\nOne.";
        assert_eq!(
            heading_offsets(text, &["Notes".to_string()]),
            [(31, "Notes".to_string())]
        );
    }
}
