//! CMaps: ToUnicode maps (`bfchar`, `bfrange` with the array form) and the code-to-CID maps of
//! embedded Type 0 encodings (`cidchar`, `cidrange`), with the codespace ranges that decide how
//! many bytes each character code takes. The parser is tolerant: entries may share a line, a
//! destination may be empty, and anything it does not understand is skipped.

use std::collections::HashMap;

/// Most entries one CMap may hold, however large its stream.
const MAX_ENTRIES: usize = 200_000;

/// A range of codes of one byte length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Codespace {
    bytes: usize,
    low: u32,
    high: u32,
}

/// A contiguous range of codes mapped to consecutive values.
#[derive(Debug, Clone)]
struct Range<T> {
    low: u32,
    high: u32,
    first: T,
}

/// A parsed CMap.
#[derive(Debug, Default, Clone)]
pub struct CMap {
    codespaces: Vec<Codespace>,
    /// Byte lengths of the source codes seen in mappings, for CMaps without codespace ranges.
    seen_lengths: [bool; 5],
    unicode: HashMap<u32, String>,
    unicode_ranges: Vec<Range<Vec<u16>>>,
    cids: HashMap<u32, u32>,
    cid_ranges: Vec<Range<u32>>,
    /// `/WMode 1`: vertical writing.
    pub vertical: bool,
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Hex(Vec<u8>),
    Int(i64),
    Name(&'a [u8]),
    Word(&'a [u8]),
    Open,
    Close,
}

/// The tokens of a CMap stream: enough PostScript for CMaps.
fn tokens(data: &[u8]) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        match b {
            b'%' => {
                while i < data.len() && data[i] != b'\n' && data[i] != b'\r' {
                    i += 1;
                }
            }
            b'<' if data.get(i + 1) == Some(&b'<') => i += 2,
            b'>' if data.get(i + 1) == Some(&b'>') => i += 2,
            b'<' => {
                let start = i + 1;
                let end = data[start..]
                    .iter()
                    .position(|&c| c == b'>')
                    .map_or(data.len(), |p| start + p);
                let digits: Vec<u8> = data[start..end].iter().copied().filter(u8::is_ascii_hexdigit).collect();
                let bytes = digits
                    .chunks(2)
                    .map(|pair| {
                        let hi = hex_value(pair[0]);
                        let lo = pair.get(1).map_or(0, |&c| hex_value(c));
                        hi << 4 | lo
                    })
                    .collect();
                out.push(Token::Hex(bytes));
                i = end + 1;
            }
            b'[' => {
                out.push(Token::Open);
                i += 1;
            }
            b']' => {
                out.push(Token::Close);
                i += 1;
            }
            b'(' => {
                // Literal strings only appear in the header (registry names): skip them.
                let mut depth = 0usize;
                while i < data.len() {
                    match data[i] {
                        b'\\' => i += 1,
                        b'(' => depth += 1,
                        b')' => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            _ if b.is_ascii_whitespace() || b == b'{' || b == b'}' || b == b')' => i += 1,
            _ => {
                let start = i;
                i += 1;
                while i < data.len() && !is_delimiter(data[i]) {
                    i += 1;
                }
                let word = &data[start..i];
                if let Some(name) = word.strip_prefix(b"/") {
                    out.push(Token::Name(name));
                } else if let Some(n) = std::str::from_utf8(word).ok().and_then(|s| s.parse().ok()) {
                    out.push(Token::Int(n));
                } else {
                    out.push(Token::Word(word));
                }
            }
        }
    }
    out
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'<' | b'>' | b'[' | b']' | b'(' | b')' | b'{' | b'}' | b'/' | b'%')
}

fn hex_value(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

/// A source code as a number, with its byte length (at most four bytes count).
fn code_of(bytes: &[u8]) -> Option<(u32, usize)> {
    if bytes.is_empty() || bytes.len() > 4 {
        return None;
    }
    Some((bytes.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b)), bytes.len()))
}

fn utf16_units(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks(2)
        .map(|pair| u16::from(pair[0]) << 8 | u16::from(pair.get(1).copied().unwrap_or(0)))
        .collect()
}

fn utf16_string(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .filter_map(Result::ok)
        .collect()
}

impl CMap {
    /// Parses a CMap stream's decoded bytes.
    pub fn parse(data: &[u8]) -> CMap {
        let mut cmap = CMap::default();
        let tokens = tokens(data);
        let mut i = 0;
        let mut entries = 0usize;
        while i < tokens.len() && entries < MAX_ENTRIES {
            match &tokens[i] {
                Token::Name(b"WMode") => {
                    cmap.vertical = matches!(tokens.get(i + 1), Some(Token::Int(1)));
                    i += 1;
                }
                Token::Word(b"begincodespacerange") => {
                    i += 1;
                    while let (Some(Token::Hex(lo)), Some(Token::Hex(hi))) = (tokens.get(i), tokens.get(i + 1)) {
                        if let (Some((low, bytes)), Some((high, _))) = (code_of(lo), code_of(hi)) {
                            cmap.codespaces.push(Codespace { bytes, low, high });
                        }
                        i += 2;
                    }
                    continue;
                }
                Token::Word(b"beginbfchar") => {
                    i += 1;
                    while let (Some(Token::Hex(src)), Some(dst)) = (tokens.get(i), tokens.get(i + 1)) {
                        let Some((code, bytes)) = code_of(src) else {
                            i += 2;
                            continue;
                        };
                        let text = match dst {
                            Token::Hex(dst) => utf16_string(&utf16_units(dst)),
                            Token::Name(name) => crate::glyph_names::to_unicode(name).unwrap_or_default(),
                            _ => break,
                        };
                        cmap.seen_lengths[bytes] = true;
                        cmap.unicode.insert(code, text);
                        entries += 1;
                        i += 2;
                    }
                    continue;
                }
                Token::Word(b"beginbfrange") => {
                    i += 1;
                    while let (Some(Token::Hex(lo)), Some(Token::Hex(hi))) = (tokens.get(i), tokens.get(i + 1)) {
                        i += 2;
                        let codes = code_of(lo).zip(code_of(hi));
                        match tokens.get(i) {
                            Some(Token::Hex(dst)) => {
                                if let Some(((low, bytes), (high, _))) = codes.filter(|((l, _), (h, _))| l <= h) {
                                    cmap.seen_lengths[bytes] = true;
                                    cmap.unicode_ranges.push(Range {
                                        low,
                                        high,
                                        first: utf16_units(dst),
                                    });
                                    entries += 1;
                                }
                                i += 1;
                            }
                            Some(Token::Open) => {
                                i += 1;
                                let mut offset = 0u32;
                                while let Some(Token::Hex(dst)) = tokens.get(i) {
                                    if let Some(((low, bytes), (high, _))) = codes {
                                        if low.saturating_add(offset) <= high {
                                            cmap.seen_lengths[bytes] = true;
                                            cmap.unicode.insert(low + offset, utf16_string(&utf16_units(dst)));
                                            entries += 1;
                                        }
                                    }
                                    offset = offset.saturating_add(1);
                                    i += 1;
                                }
                                if tokens.get(i) == Some(&Token::Close) {
                                    i += 1;
                                }
                            }
                            _ => break,
                        }
                    }
                    continue;
                }
                Token::Word(b"begincidchar") => {
                    i += 1;
                    while let (Some(Token::Hex(src)), Some(Token::Int(cid))) = (tokens.get(i), tokens.get(i + 1)) {
                        if let (Some((code, bytes)), Ok(cid)) = (code_of(src), u32::try_from(*cid)) {
                            cmap.seen_lengths[bytes] = true;
                            cmap.cids.insert(code, cid);
                            entries += 1;
                        }
                        i += 2;
                    }
                    continue;
                }
                Token::Word(b"begincidrange") => {
                    i += 1;
                    while let (Some(Token::Hex(lo)), Some(Token::Hex(hi)), Some(Token::Int(cid))) =
                        (tokens.get(i), tokens.get(i + 1), tokens.get(i + 2))
                    {
                        if let (Some((low, bytes)), Some((high, _)), Ok(first)) =
                            (code_of(lo), code_of(hi), u32::try_from(*cid))
                        {
                            if low <= high {
                                cmap.seen_lengths[bytes] = true;
                                cmap.cid_ranges.push(Range { low, high, first });
                                entries += 1;
                            }
                        }
                        i += 3;
                    }
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        cmap.unicode_ranges.sort_by_key(|r| r.low);
        cmap.cid_ranges.sort_by_key(|r| r.low);
        cmap
    }

    /// True when the CMap gives at least one code a Unicode value.
    pub fn has_unicode(&self) -> bool {
        !self.unicode.is_empty() || !self.unicode_ranges.is_empty()
    }

    /// True when the CMap has codespace ranges (so it can split a string into codes).
    pub fn has_codespaces(&self) -> bool {
        !self.codespaces.is_empty()
    }

    /// The length in bytes of the code starting `bytes`: the shortest codespace range that
    /// holds it, else the length mappings use, else `fallback`.
    pub fn code_length(&self, bytes: &[u8], fallback: usize) -> usize {
        if !self.codespaces.is_empty() {
            for n in 1..=4.min(bytes.len()) {
                if let Some((code, _)) = code_of(&bytes[..n]) {
                    if self
                        .codespaces
                        .iter()
                        .any(|c| c.bytes == n && (c.low..=c.high).contains(&code))
                    {
                        return n;
                    }
                }
            }
            // A code outside every range takes the length of the shortest range that could
            // start with its first byte, else one byte (as PDF readers do).
            return self
                .codespaces
                .iter()
                .map(|c| c.bytes)
                .min()
                .unwrap_or(1)
                .min(bytes.len())
                .max(1);
        }
        let lengths: Vec<usize> = (1..=4).filter(|&n| self.seen_lengths[n]).collect();
        match lengths.as_slice() {
            [n] => (*n).min(bytes.len()).max(1),
            _ => fallback.min(bytes.len()).max(1),
        }
    }

    /// Appends the text of a code to `out`; false when the CMap does not map it.
    pub fn unicode_into(&self, code: u32, out: &mut String) -> bool {
        if let Some(text) = self.unicode.get(&code) {
            out.push_str(text);
            return true;
        }
        let Some(range) = find_range(&self.unicode_ranges, code) else {
            return false;
        };
        let mut units = range.first.clone();
        let offset = code - range.low;
        if let Some(last) = units.last_mut() {
            // The offset is added to the last UTF-16 unit (ISO 32000-1, 9.10.3).
            *last = last.wrapping_add(offset as u16);
        }
        out.extend(char::decode_utf16(units).filter_map(Result::ok));
        true
    }

    #[cfg(test)]
    fn unicode(&self, code: u32) -> Option<String> {
        let mut out = String::new();
        self.unicode_into(code, &mut out).then_some(out)
    }

    /// The CID of a code, `None` when the CMap does not map it.
    pub fn cid(&self, code: u32) -> Option<u32> {
        if let Some(&cid) = self.cids.get(&code) {
            return Some(cid);
        }
        let range = find_range(&self.cid_ranges, code)?;
        Some(range.first.saturating_add(code - range.low))
    }
}

/// The range holding `code`: the last one starting at or below it, if it reaches that far.
fn find_range<T>(ranges: &[Range<T>], code: u32) -> Option<&Range<T>> {
    let after = ranges.partition_point(|r| r.low <= code);
    ranges[..after].iter().rev().take(8).find(|r| code <= r.high)
}

#[cfg(test)]
mod tests {
    use super::CMap;

    const TO_UNICODE: &[u8] = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0003> <0020> <0011> <00660069> endbfchar
2 beginbfrange <0024> <0026> <0041> <0030> <0031> [<0078> <D83DDE00>] endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end";

    #[test]
    fn bfchar_and_bfrange_with_arrays() {
        let cmap = CMap::parse(TO_UNICODE);
        assert_eq!(cmap.unicode(0x03).as_deref(), Some(" "));
        assert_eq!(cmap.unicode(0x11).as_deref(), Some("fi"));
        assert_eq!(cmap.unicode(0x25).as_deref(), Some("B"));
        assert_eq!(cmap.unicode(0x26).as_deref(), Some("C"));
        assert_eq!(cmap.unicode(0x27), None);
        assert_eq!(cmap.unicode(0x30).as_deref(), Some("x"));
        assert_eq!(cmap.unicode(0x31).as_deref(), Some("😀"));
        assert_eq!(cmap.code_length(&[0, 0x24], 1), 2);
    }

    #[test]
    fn pairs_on_one_line_and_empty_destinations() {
        let cmap = CMap::parse(b"3 beginbfchar <01> <0627> <02> <> <03> <0644> endbfchar");
        assert_eq!(cmap.unicode(1).as_deref(), Some("\u{627}"));
        assert_eq!(cmap.unicode(2).as_deref(), Some(""));
        assert_eq!(cmap.unicode(3).as_deref(), Some("\u{644}"));
        // No codespace ranges: the mappings' one-byte codes decide.
        assert_eq!(cmap.code_length(&[1, 2], 2), 1);
    }

    #[test]
    fn mixed_code_lengths_follow_the_codespace() {
        let cmap = CMap::parse(
            b"2 begincodespacerange <00> <80> <8140> <FFFF> endcodespacerange
              1 begincidrange <8140> <817E> 633 endcidrange 1 begincidchar <41> 34 endcidchar /WMode 1 def",
        );
        assert_eq!(cmap.code_length(&[0x41, 0x81], 2), 1);
        assert_eq!(cmap.code_length(&[0x81, 0x41], 1), 2);
        assert_eq!(cmap.cid(0x8141), Some(634));
        assert_eq!(cmap.cid(0x41), Some(34));
        assert!(cmap.vertical);
    }

    #[test]
    fn garbage_does_not_panic() {
        for data in [
            &b"beginbfrange <00> <FF> ["[..],
            b"<",
            b"begincodespacerange <> <>",
            b"(((",
            b"beginbfchar <0102030405> <41>",
        ] {
            let _ = CMap::parse(data).unicode(0);
        }
    }
}
