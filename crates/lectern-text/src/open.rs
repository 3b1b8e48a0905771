//! Opening a PDF with lopdf, encrypted ones included: the empty user password is tried first,
//! then the given one, and a missing or wrong password is told apart from a damaged file.
//!
//! lopdf only finds an `/Encrypt` dictionary given by reference. Some writers (cpdf) put it
//! inline in the trailer, which is allowed, and lopdf then rejects every password. Such a file
//! is given a small incremental update in memory (the dictionary as an object of its own, and a
//! trailer pointing at it) and loaded again; the file on disk is never touched.

use std::fmt;

use lopdf::{Dictionary, Document, LoadOptions, Object, Writer};

/// Why a PDF did not open.
#[derive(Debug)]
pub enum OpenError {
    /// The file is encrypted and the empty user password does not open it.
    NeedsPassword,
    /// The file is encrypted and the password given does not open it.
    WrongPassword,
    /// The file could not be parsed.
    Parse(lopdf::Error),
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NeedsPassword => f.write_str("the PDF is protected by a password"),
            OpenError::WrongPassword => f.write_str("the password was not accepted for this PDF"),
            OpenError::Parse(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for OpenError {}

/// Loads the PDF in `bytes`, decrypting it with the empty user password or `password`. No stream
/// read while loading (object and cross-reference streams) may decode to more than
/// `max_decompressed` bytes.
pub fn open(bytes: &[u8], password: Option<&str>, max_decompressed: usize) -> Result<Document, OpenError> {
    match load(bytes, password, max_decompressed) {
        // An encrypted file lopdf could not decrypt loads without its objects. (A reference to
        // a missing dictionary, in a damaged file, is no encryption.)
        Ok(doc) if doc.was_encrypted() => Ok(doc),
        Ok(doc) if inline_encrypt(&doc.trailer).is_some() => {
            reopen_with_encrypt_object(bytes, &doc.trailer, password, max_decompressed)
        }
        Ok(doc) if doc.is_encrypted() => Err(password_error(password)),
        Ok(doc) => Ok(doc),
        Err(lopdf::Error::InvalidPassword) => {
            // lopdf says the same of an inline dictionary it cannot read: look at the trailer
            // (a load without a password parses no object) before blaming the password.
            match load(bytes, None, max_decompressed) {
                Ok(raw) if inline_encrypt(&raw.trailer).is_some() => {
                    reopen_with_encrypt_object(bytes, &raw.trailer, password, max_decompressed)
                }
                _ => Err(password_error(password)),
            }
        }
        Err(e) => Err(OpenError::Parse(e)),
    }
}

fn load(bytes: &[u8], password: Option<&str>, max_decompressed: usize) -> lopdf::Result<Document> {
    let options = LoadOptions {
        password: password.map(str::to_string),
        max_decompressed_size: Some(max_decompressed),
        ..LoadOptions::default()
    };
    Document::load_mem_with_options(bytes, options)
}

fn password_error(password: Option<&str>) -> OpenError {
    match password {
        Some(_) => OpenError::WrongPassword,
        None => OpenError::NeedsPassword,
    }
}

/// The trailer's `/Encrypt` when it is a dictionary given inline.
fn inline_encrypt(trailer: &Dictionary) -> Option<&Dictionary> {
    match trailer.get(b"Encrypt") {
        Ok(Object::Dictionary(dict)) => Some(dict),
        _ => None,
    }
}

/// Loads `bytes` followed by an update that makes the inline `/Encrypt` of `trailer` an object.
fn reopen_with_encrypt_object(
    bytes: &[u8],
    trailer: &Dictionary,
    password: Option<&str>,
    max_decompressed: usize,
) -> Result<Document, OpenError> {
    let patched = with_encrypt_object(bytes, trailer).ok_or_else(|| password_error(password))?;
    match load(&patched, password, max_decompressed) {
        Ok(doc) if doc.was_encrypted() => Ok(doc),
        Ok(_) | Err(lopdf::Error::InvalidPassword) => Err(password_error(password)),
        Err(e) => Err(OpenError::Parse(e)),
    }
}

/// `bytes` with an incremental update appended: the inline encryption dictionary of `trailer` as
/// a new object, a cross-reference section listing it, and a trailer that refers to it and
/// continues to the file's last cross-reference section. `None` if the file has no usable
/// `startxref` or trailer.
fn with_encrypt_object(bytes: &[u8], trailer: &Dictionary) -> Option<Vec<u8>> {
    let encrypt = inline_encrypt(trailer)?;
    let previous = last_startxref(bytes)?;
    let size = trailer.get(b"Size").and_then(Object::as_i64).ok()?;
    let number = u32::try_from(size).ok()?;

    let mut out = Vec::with_capacity(bytes.len() + 1024);
    out.extend_from_slice(bytes);
    out.push(b'\n');
    let object_offset = out.len();
    out.extend_from_slice(format!("{number} 0 obj\n").as_bytes());
    Writer::write_object(&mut out, &Object::Dictionary(encrypt.clone())).ok()?;
    out.extend_from_slice(b"\nendobj\n");

    let mut new_trailer = Dictionary::new();
    for (key, value) in trailer.iter() {
        // Keys of a cross-reference stream's dictionary describe that stream, not this section.
        if !matches!(
            key.as_slice(),
            b"Encrypt"
                | b"Size"
                | b"Prev"
                | b"XRefStm"
                | b"Type"
                | b"W"
                | b"Index"
                | b"Length"
                | b"Filter"
                | b"DecodeParms"
        ) {
            new_trailer.set(key.clone(), value.clone());
        }
    }
    new_trailer.set("Encrypt", Object::Reference((number, 0)));
    new_trailer.set("Size", Object::Integer(i64::from(number) + 1));
    new_trailer.set("Prev", Object::Integer(previous as i64));

    let xref_offset = out.len();
    out.extend_from_slice(format!("xref\n{number} 1\n{object_offset:010} 00000 n \ntrailer\n").as_bytes());
    Writer::write_object(&mut out, &Object::Dictionary(new_trailer)).ok()?;
    out.extend_from_slice(format!("\nstartxref\n{xref_offset}\n%%EOF\n").as_bytes());
    Some(out)
}

/// The offset after the file's last `startxref` keyword.
fn last_startxref(bytes: &[u8]) -> Option<u64> {
    const KEYWORD: &[u8] = b"startxref";
    let at = bytes.windows(KEYWORD.len()).rposition(|w| w == KEYWORD)?;
    let digits: String = bytes[at + KEYWORD.len()..]
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take_while(|b| b.is_ascii_digit())
        .map(|&b| char::from(b))
        .collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_startxref_is_found() {
        assert_eq!(
            last_startxref(b"startxref\n10\n%%EOF\nstartxref\r\n 1234 \n%%EOF"),
            Some(1234)
        );
        assert_eq!(last_startxref(b"no keyword"), None);
        assert_eq!(last_startxref(b"startxref\n%%EOF"), None);
    }

    #[test]
    fn garbage_is_a_parse_error_not_a_password_question() {
        assert!(matches!(
            open(b"not a pdf at all", None, 1 << 20),
            Err(OpenError::Parse(_))
        ));
    }
}
