//! The built-in encoding of an embedded Type 1 font program (`FontFile`): the clear-text part
//! before `eexec` lists it as `dup <code> /<glyph name> put`. TeX's math fonts (CMSY, CMMI, ...)
//! rely on it; without it their symbols read as Latin letters.

/// The code-to-glyph-name pairs of the program's /Encoding; `None` when it uses
/// StandardEncoding or has none.
pub fn builtin_encoding(program: &[u8]) -> Option<Vec<(u8, &[u8])>> {
    let clear = match find(program, b"eexec") {
        Some(end) => &program[..end],
        None => program,
    };
    let start = find(clear, b"/Encoding")?;
    let rest = &clear[start + b"/Encoding".len()..];
    let words: Vec<&[u8]> = rest
        .split(|b| b.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .take(4 * 256 + 16)
        .collect();
    if words.first() == Some(&b"StandardEncoding".as_slice()) {
        return None;
    }
    let mut pairs = Vec::new();
    for window in words.windows(4) {
        if let [b"dup", code, name, b"put"] = window {
            let code = std::str::from_utf8(code).ok().and_then(|c| c.parse::<u8>().ok());
            if let (Some(code), Some(name)) = (code, name.strip_prefix(b"/")) {
                pairs.push((code, name));
            }
        }
        if window[0] == b"readonly" || window[0] == b"def" {
            break;
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::builtin_encoding;

    #[test]
    fn reads_dup_put_entries() {
        let program = b"%!PS-AdobeFont-1.0: CMSY10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n\
dup 0 /minus put\ndup 2 /multiply put\ndup 33 /arrowright put\nreadonly def\ncurrentfile eexec\x80\x81";
        let pairs = builtin_encoding(program).unwrap_or_default();
        assert_eq!(
            pairs,
            vec![
                (0, b"minus".as_slice()),
                (2, b"multiply".as_slice()),
                (33, b"arrowright".as_slice())
            ]
        );
    }

    #[test]
    fn standard_encoding_is_none() {
        assert_eq!(
            builtin_encoding(b"/Encoding StandardEncoding def currentfile eexec"),
            None
        );
        assert_eq!(builtin_encoding(b"garbage"), None);
    }
}
