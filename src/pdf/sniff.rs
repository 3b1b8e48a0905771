//! Recognising a PDF by its header rather than its file name.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::PdfError;

/// How far into a file the `%PDF-` marker may appear (readers tolerate leading junk up to here).
const HEADER_WINDOW: usize = 1024;

/// True when `bytes` (the start of a file) carry the `%PDF-` header within the first kilobyte.
pub fn has_pdf_header(bytes: &[u8]) -> bool {
    let window = &bytes[..bytes.len().min(HEADER_WINDOW)];
    window.windows(5).any(|w| w == b"%PDF-")
}

/// Checks that the file at `path` is a PDF, with an error that shows what the file starts with.
pub fn check_pdf(path: &Path) -> Result<(), PdfError> {
    let mut head = Vec::with_capacity(HEADER_WINDOW);
    File::open(path)?.take(HEADER_WINDOW as u64).read_to_end(&mut head)?;
    if has_pdf_header(&head) {
        return Ok(());
    }
    let start: String = String::from_utf8_lossy(&head[..head.len().min(16)])
        .chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect();
    Err(PdfError::NotAPdf {
        path: path.to_path_buf(),
        start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_found_after_leading_junk() {
        assert!(has_pdf_header(b"%PDF-1.7\n"));
        assert!(has_pdf_header(b"\xef\xbb\xbfjunk%PDF-1.4"));
        assert!(!has_pdf_header(b"PK\x03\x04 zip file"));
        assert!(!has_pdf_header(b""));
    }

    #[test]
    fn header_beyond_the_first_kilobyte_is_not_a_pdf() {
        let mut bytes = vec![b' '; 2000];
        bytes.extend_from_slice(b"%PDF-1.4");
        assert!(!has_pdf_header(&bytes));
    }
}
