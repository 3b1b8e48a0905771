//! The PDF info dictionary: title, author, creation and modification dates, decoded from PDF text
//! strings.

use lopdf::{Document, Object};

/// What the trailer's `/Info` says; dates as ISO 8601 where they parse.
#[derive(Debug, Default)]
pub struct Info {
    pub title: Option<String>,
    pub author: Option<String>,
    pub created: Option<String>,
    pub modified: Option<String>,
}

/// Title, author, creation and modification dates from the trailer's `/Info`.
pub fn read_info(doc: &Document) -> Info {
    let info = match doc.trailer.get(b"Info") {
        Ok(Object::Reference(id)) => doc.get_dictionary(*id).ok(),
        Ok(Object::Dictionary(d)) => Some(d),
        _ => None,
    };
    let Some(info) = info else {
        return Info::default();
    };
    let text = |key: &[u8]| -> Option<String> {
        let value = match info.get(key).ok()? {
            Object::Reference(id) => doc.get_object(*id).ok()?,
            other => other,
        };
        match value {
            Object::String(bytes, _) => Some(decode_text_string(bytes)).filter(|s| !s.trim().is_empty()),
            _ => None,
        }
    };
    let date = |key: &[u8]| text(key).map(|raw| parse_pdf_date(&raw).unwrap_or(raw));
    Info {
        title: text(b"Title"),
        author: text(b"Author"),
        created: date(b"CreationDate"),
        modified: date(b"ModDate"),
    }
}

/// Decodes a PDF text string: UTF-16BE with a byte-order mark, UTF-8 with one, else PDFDocEncoding
/// (read as Latin-1, which agrees with it on every printable character that matters here).
pub fn decode_text_string(bytes: &[u8]) -> String {
    let decoded = if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = rest.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
        String::from_utf16_lossy(&units)
    } else if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        String::from_utf8_lossy(rest).into_owned()
    } else {
        bytes.iter().map(|&b| b as char).collect()
    };
    decoded
        .chars()
        .filter(|c| !c.is_control())
        .collect::<String>()
        .trim()
        .to_string()
}

/// Parses `D:YYYYMMDDHHmmSSOHH'mm'` (every part after the year optional) into ISO 8601.
pub fn parse_pdf_date(raw: &str) -> Option<String> {
    let s = raw.trim().strip_prefix("D:").unwrap_or(raw.trim());
    let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.len() < 4 {
        return None;
    }
    let part = |from: usize, len: usize, default: &str| -> String {
        digits.get(from..from + len).unwrap_or(default).to_string()
    };
    let (year, month, day) = (part(0, 4, "0000"), part(4, 2, "01"), part(6, 2, "01"));
    let (hour, minute, second) = (part(8, 2, "00"), part(10, 2, "00"), part(12, 2, "00"));
    let month_ok = (1..=12).contains(&month.parse::<u32>().ok()?);
    let day_ok = (1..=31).contains(&day.parse::<u32>().ok()?);
    if !month_ok || !day_ok {
        return None;
    }
    let rest: String = s[digits.len()..].chars().filter(|c| *c != '\'').collect();
    let zone = match rest.chars().next() {
        Some('Z') | None => "Z".to_string(),
        Some(sign @ ('+' | '-')) => {
            let z: String = rest[1..].chars().filter(|c| c.is_ascii_digit()).collect();
            let hh = z.get(0..2).unwrap_or("00");
            let mm = z.get(2..4).unwrap_or("00");
            format!("{sign}{hh}:{mm}")
        }
        Some(_) => "Z".to_string(),
    };
    Some(format!("{year}-{month}-{day}T{hour}:{minute}:{second}{zone}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_dates_become_iso() {
        assert_eq!(
            parse_pdf_date("D:20090303120000+01'00'").as_deref(),
            Some("2009-03-03T12:00:00+01:00")
        );
        assert_eq!(parse_pdf_date("D:2001").as_deref(), Some("2001-01-01T00:00:00Z"));
        assert_eq!(
            parse_pdf_date("D:20211231235959Z").as_deref(),
            Some("2021-12-31T23:59:59Z")
        );
        assert_eq!(parse_pdf_date("yesterday"), None);
        assert_eq!(parse_pdf_date("D:20211399"), None);
    }

    #[test]
    fn text_strings_decode_utf16_and_latin1() {
        assert_eq!(decode_text_string(&[0xFE, 0xFF, 0x00, b'H', 0x00, b'i']), "Hi");
        assert_eq!(decode_text_string(b"Caf\xe9"), "Café");
    }
}
