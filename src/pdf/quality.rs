//! Whether extracted text is a usable text layer or the residue of fonts without a Unicode mapping.
//!
//! A scan has no text at all; a file whose fonts map glyphs to nothing meaningful yields a few
//! stray punctuation marks (`"7+%-` for "Phone"). Both need OCR. Real text, even a plot's axis
//! digits or two Greek letters, is mostly letters, digits or non-ASCII symbols.

/// Running counts over a document's text, page by page.
#[derive(Debug, Default, Clone, Copy)]
pub struct TextQuality {
    meaningful: usize,
    other: usize,
}

impl TextQuality {
    /// Counts the characters of one more page.
    pub fn add(&mut self, text: &str) {
        for c in text.chars().filter(|c| !c.is_whitespace()) {
            if c.is_alphanumeric() || !c.is_ascii() {
                self.meaningful += 1;
            } else {
                self.other += 1;
            }
        }
    }

    /// True when the text seen so far holds something worth indexing.
    pub fn is_usable(&self) -> bool {
        self.meaningful > 0 && self.meaningful >= self.other
    }
}

#[cfg(test)]
mod tests {
    use super::TextQuality;

    fn usable(text: &str) -> bool {
        let mut q = TextQuality::default();
        q.add(text);
        q.is_usable()
    }

    #[test]
    fn scans_and_unmapped_fonts_are_not_text() {
        assert!(!usable(""));
        assert!(!usable(" \n "));
        assert!(!usable("\"7+%-"));
    }

    #[test]
    fn short_real_text_counts() {
        assert!(usable("αβ"));
        assert!(usable("0 2 4 6 8 0 2 4 6 8"));
        assert!(usable("😀 🔧 🔨"));
        assert!(usable("Hello (world), \"quoted\"."));
    }
}
