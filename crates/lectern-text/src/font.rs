//! Fonts as text extraction needs them: how a string splits into character codes, the Unicode
//! text of each code, and each glyph's advance width. Simple fonts (Type 1, TrueType, Type 3)
//! decode through ToUnicode, else their encoding with /Differences; Type 0 fonts through
//! ToUnicode, with codes split by their CMap (Identity-H/V or an embedded one).

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

use crate::cff;
use crate::cid_collections::Collection;
use crate::cmap::CMap;
use crate::encodings::{MAC_ROMAN, STANDARD, SYMBOL, WIN_ANSI, ZAPF_DINGBATS};
use crate::glyph_names;
use crate::pdf_object::{get, get_array, get_dict, get_name, get_number, number, numbers, stream_bytes};
use crate::type1;

/// Most entries read from a /W array or a /Differences array.
const MAX_ARRAY: usize = 100_000;

/// How character codes map to glyphs and text.
#[derive(Debug)]
enum Codes {
    /// One byte per code; the text of each code from the font's encoding.
    Simple(Vec<Option<String>>),
    /// Type 0: codes split by a CMap (`None`: Identity, two bytes, CID = code).
    Composite {
        cmap: Option<CMap>,
        /// The CIDs' Unicode values, for a font of an Adobe CJK collection.
        collection: Option<Collection>,
        /// A predefined `Uni...-UCS2`/`-UTF16` CMap: the codes are UTF-16 themselves.
        unicode_codes: bool,
    },
}

/// Advance widths in glyph space (thousandths of text space for all but Type 3 fonts).
#[derive(Debug)]
enum Widths {
    Simple {
        first: u32,
        widths: Vec<f32>,
        missing: f32,
    },
    Cid {
        singles: HashMap<u32, f32>,
        ranges: Vec<(u32, u32, f32)>,
        default: f32,
    },
}

/// A font of a page, ready to decode strings.
#[derive(Debug)]
pub struct Font {
    /// The base font name, for messages.
    pub name: String,
    codes: Codes,
    to_unicode: Option<CMap>,
    widths: Widths,
    /// Vertical writing (Identity-V, or a CMap with /WMode 1).
    pub vertical: bool,
    /// Glyph space to text space, horizontally (0.001 but for Type 3 fonts).
    width_scale: f32,
    /// The em height in text space per unit of font size (1 but for odd Type 3 matrices).
    pub size_scale: f32,
}

/// One glyph of a decoded string.
#[derive(Debug, Clone, Copy)]
pub struct Glyph {
    /// The character code.
    pub code: u32,
    /// The advance in text space per unit of font size.
    pub width: f32,
    /// The single-byte code 32, to which word spacing applies.
    pub word_space: bool,
}

fn simple_table(table: &[u16; 256]) -> Vec<Option<String>> {
    table
        .iter()
        .map(|&u| char::from_u32(u32::from(u)).filter(|_| u != 0).map(String::from))
        .collect()
}

fn named_table(name: &[u8]) -> Option<&'static [u16; 256]> {
    match name {
        b"WinAnsiEncoding" => Some(&WIN_ANSI),
        b"MacRomanEncoding" => Some(&MAC_ROMAN),
        b"StandardEncoding" => Some(&STANDARD),
        _ => None,
    }
}

/// The standard 14 fonts' default width when a font has no /Widths.
fn standard_width(base: &str, code: u32) -> f32 {
    if base.contains("Courier") {
        600.0
    } else if code == 32 {
        250.0
    } else {
        500.0
    }
}

impl Font {
    /// Reads a font dictionary; `limit` bounds the bytes any of its streams may decode to.
    pub fn load(doc: &Document, dict: &Dictionary, limit: usize) -> Font {
        let subtype = get_name(doc, dict, b"Subtype").unwrap_or(b"");
        let name = get_name(doc, dict, b"BaseFont")
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_else(|| String::from_utf8_lossy(subtype).into_owned());
        let to_unicode = match get(doc, dict, b"ToUnicode") {
            Some(Object::Stream(s)) => stream_bytes(s, limit).map(|data| CMap::parse(&data)),
            _ => None,
        }
        .filter(CMap::has_unicode);
        if subtype == b"Type0" {
            return Font::load_composite(doc, dict, name, to_unicode, limit);
        }
        let descriptor = get_dict(doc, dict, b"FontDescriptor");
        let flags = descriptor.and_then(|d| get_number(doc, d, b"Flags")).unwrap_or(0.0) as u32;
        let symbolic = flags & 4 != 0 && flags & 32 == 0;
        let is_type3 = subtype == b"Type3";
        let encoding = get(doc, dict, b"Encoding");
        let base_name = match encoding {
            Some(Object::Name(n)) => Some(n.as_slice()),
            Some(Object::Dictionary(d)) => get_name(doc, d, b"BaseEncoding"),
            _ => None,
        };
        let base = match base_name.and_then(named_table) {
            Some(table) => simple_table(table),
            None if name.contains("Symbol") => simple_table(&SYMBOL),
            None if name.contains("Dingbats") => simple_table(&ZAPF_DINGBATS),
            // A Type 3 font's codes mean nothing beyond its /Differences; a symbolic TrueType
            // font without an encoding addresses its glyphs directly.
            None if is_type3 => vec![None; 256],
            None if symbolic && subtype == b"TrueType" && encoding.is_none() => vec![None; 256],
            None => simple_table(&STANDARD),
        };
        let mut table = base;
        // A Type 1 font without a base encoding of its own name uses its program's encoding.
        if base_name.is_none() && subtype != b"TrueType" && !is_type3 {
            if let Some(builtin) = builtin_encoding(doc, descriptor, limit) {
                table = vec![None; 256];
                for (code, name) in builtin {
                    table[usize::from(code)] = glyph_names::to_unicode(name.as_bytes());
                }
            }
        }
        if let Some(Object::Dictionary(d)) = encoding {
            apply_differences(doc, d, &mut table);
        }
        let font_matrix: Vec<f32> = get_array(doc, dict, b"FontMatrix")
            .map(|a| numbers(a))
            .unwrap_or_default();
        let (width_scale, size_scale) = match font_matrix.as_slice() {
            [a, _, _, d, _, _] if is_type3 && a.abs() > 1e-9 => (*a, (d.abs() * 1000.0).clamp(0.01, 100.0)),
            _ => (0.001, 1.0),
        };
        let first = get(doc, dict, b"FirstChar").and_then(number).unwrap_or(0.0).max(0.0) as u32;
        let widths: Vec<f32> = get_array(doc, dict, b"Widths")
            .map(|a| {
                a.iter()
                    .take(256)
                    .map(|w| number(resolve_number(doc, w)).unwrap_or(0.0))
                    .collect()
            })
            .unwrap_or_default();
        let missing = descriptor
            .and_then(|d| get_number(doc, d, b"MissingWidth"))
            .filter(|w| *w > 0.0);
        let missing = match (missing, widths.is_empty()) {
            (Some(w), _) => w,
            (None, true) if !is_type3 => -1.0,
            (None, _) => 0.0,
        };
        Font {
            name,
            codes: Codes::Simple(table),
            to_unicode,
            widths: Widths::Simple { first, widths, missing },
            vertical: false,
            width_scale,
            size_scale,
        }
    }

    fn load_composite(doc: &Document, dict: &Dictionary, name: String, to_unicode: Option<CMap>, limit: usize) -> Font {
        let mut unicode_codes = false;
        let (cmap, vertical) = match get(doc, dict, b"Encoding") {
            Some(Object::Name(n)) => {
                unicode_codes = n.starts_with(b"Uni") && (contains(n, b"-UCS2-") || contains(n, b"-UTF16-"));
                (None, n.ends_with(b"-V"))
            }
            Some(Object::Stream(s)) => {
                let cmap = stream_bytes(s, limit).map(|data| CMap::parse(&data));
                let vertical = cmap.as_ref().is_some_and(|c| c.vertical)
                    || get_number(doc, &s.dict, b"WMode").is_some_and(|w| w == 1.0);
                (cmap.filter(CMap::has_codespaces), vertical)
            }
            _ => (None, false),
        };
        let descendant = get_array(doc, dict, b"DescendantFonts")
            .and_then(|a| a.first())
            .map(|o| crate::pdf_object::resolve(doc, o))
            .and_then(|o| o.as_dict().ok());
        let default = descendant.and_then(|d| get_number(doc, d, b"DW")).unwrap_or(1000.0);
        let collection = descendant
            .and_then(|d| get_dict(doc, d, b"CIDSystemInfo"))
            .and_then(|info| {
                let registry = get(doc, info, b"Registry")?.as_str().ok()?;
                let ordering = get(doc, info, b"Ordering")?.as_str().ok()?;
                Collection::find(registry, ordering)
            });
        let (singles, ranges) = descendant
            .and_then(|d| get_array(doc, d, b"W"))
            .map(|w| cid_widths(doc, w))
            .unwrap_or_default();
        Font {
            name,
            codes: Codes::Composite {
                cmap,
                collection,
                unicode_codes,
            },
            to_unicode,
            widths: Widths::Cid {
                singles,
                ranges,
                default,
            },
            vertical,
            width_scale: 0.001,
            size_scale: 1.0,
        }
    }

    /// Splits `bytes` into glyphs, calling `each` for every one in order.
    pub fn decode(&self, bytes: &[u8], mut each: impl FnMut(Glyph)) {
        let mut i = 0;
        while i < bytes.len() {
            let length = match &self.codes {
                Codes::Simple(_) => 1,
                Codes::Composite { cmap: Some(cmap), .. } => cmap.code_length(&bytes[i..], 2),
                Codes::Composite { cmap: None, .. } => 2.min(bytes.len() - i),
            };
            let length = length.clamp(1, bytes.len() - i);
            let code = bytes[i..i + length]
                .iter()
                .fold(0u32, |acc, &b| acc << 8 | u32::from(b));
            each(Glyph {
                code,
                width: self.width(code) * self.width_scale,
                word_space: length == 1 && code == 32,
            });
            i += length;
        }
    }

    /// Appends the text of `code` to `out`; false when the font gives it none.
    pub fn text(&self, code: u32, out: &mut String) -> bool {
        if let Some(cmap) = &self.to_unicode {
            if cmap.unicode_into(code, out) {
                return true;
            }
        }
        match &self.codes {
            Codes::Simple(table) => match table.get(code as usize).and_then(Option::as_deref) {
                Some(text) => {
                    out.push_str(text);
                    true
                }
                None => false,
            },
            Codes::Composite {
                collection,
                unicode_codes,
                ..
            } => {
                if *unicode_codes {
                    if let Some(c) = char::from_u32(code).filter(|_| code > 0) {
                        out.push(c);
                        return true;
                    }
                }
                match collection.and_then(|c| c.unicode(self.cid(code))) {
                    Some(c) => {
                        out.push(c);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    fn width(&self, code: u32) -> f32 {
        match &self.widths {
            Widths::Simple { first, widths, missing } => {
                let w = code.checked_sub(*first).and_then(|i| widths.get(i as usize)).copied();
                match w {
                    Some(w) if w > 0.0 => w,
                    _ if *missing < 0.0 => standard_width(&self.name, code),
                    _ => *missing,
                }
            }
            Widths::Cid {
                singles,
                ranges,
                default,
            } => {
                let cid = self.cid(code);
                if let Some(w) = singles.get(&cid) {
                    return *w;
                }
                ranges
                    .iter()
                    .find(|(lo, hi, _)| (*lo..=*hi).contains(&cid))
                    .map_or(*default, |r| r.2)
            }
        }
    }
}

impl Font {
    /// The CID of a code of a Type 0 font: through its CMap, else the code itself.
    fn cid(&self, code: u32) -> u32 {
        match &self.codes {
            Codes::Composite { cmap: Some(cmap), .. } => cmap.cid(code).unwrap_or(code),
            _ => code,
        }
    }
}

/// The encoding built into an embedded Type 1 (`FontFile`) or CFF (`FontFile3`) program.
fn builtin_encoding(doc: &Document, descriptor: Option<&Dictionary>, limit: usize) -> Option<Vec<(u8, String)>> {
    let descriptor = descriptor?;
    if let Some(Object::Stream(program)) = get(doc, descriptor, b"FontFile") {
        let data = stream_bytes(program, limit)?;
        let pairs = type1::builtin_encoding(&data)?;
        return Some(
            pairs
                .into_iter()
                .map(|(code, name)| (code, String::from_utf8_lossy(name).into_owned()))
                .collect(),
        );
    }
    if let Some(Object::Stream(program)) = get(doc, descriptor, b"FontFile3") {
        if get_name(doc, &program.dict, b"Subtype") == Some(b"Type1C".as_slice()) {
            return cff::builtin_encoding(&stream_bytes(program, limit)?);
        }
    }
    None
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn resolve_number<'a>(doc: &'a Document, object: &'a Object) -> &'a Object {
    crate::pdf_object::resolve(doc, object)
}

/// /Differences: a code, then the glyph names of it and the codes after it.
fn apply_differences(doc: &Document, encoding: &Dictionary, table: &mut [Option<String>]) {
    let Some(differences) = get_array(doc, encoding, b"Differences") else {
        return;
    };
    let mut code = 0usize;
    for item in differences.iter().take(MAX_ARRAY) {
        match item {
            Object::Integer(n) => code = usize::try_from(*n).unwrap_or(usize::MAX),
            Object::Name(name) => {
                if let Some(slot) = table.get_mut(code) {
                    *slot = glyph_names::to_unicode(name);
                }
                code = code.saturating_add(1);
            }
            _ => {}
        }
    }
}

/// A CID font's /W array: `c [w1 w2 ...]` and `c_first c_last w` entries.
type CidWidths = (HashMap<u32, f32>, Vec<(u32, u32, f32)>);

fn cid_widths(doc: &Document, w: &[Object]) -> CidWidths {
    let mut singles = HashMap::new();
    let mut ranges = Vec::new();
    let mut i = 0;
    let cid = |o: &Object| number(o).filter(|n| *n >= 0.0).map(|n| n as u32);
    while i < w.len() && singles.len() + ranges.len() < MAX_ARRAY {
        let Some(first) = cid(&w[i]) else {
            i += 1;
            continue;
        };
        match w.get(i + 1).map(|o| crate::pdf_object::resolve(doc, o)) {
            Some(Object::Array(list)) => {
                for (k, width) in list.iter().take(MAX_ARRAY).enumerate() {
                    if let Some(width) = number(width) {
                        singles.insert(first.saturating_add(k as u32), width);
                    }
                }
                i += 2;
            }
            Some(last) => {
                if let (Some(last), Some(width)) = (cid(last), w.get(i + 2).and_then(number)) {
                    ranges.push((first, last, width));
                }
                i += 3;
            }
            None => break,
        }
    }
    (singles, ranges)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::{dictionary, Stream};

    #[test]
    fn differences_override_the_base_encoding() {
        let doc = Document::with_version("1.5");
        let font = dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "CMR10",
            "Encoding" => dictionary! {
                "BaseEncoding" => "WinAnsiEncoding",
                "Differences" => vec![65.into(), "fi".into(), "zero".into(), 0x92.into(), "g12".into()],
            },
        };
        let font = Font::load(&doc, &font, 1 << 20);
        let text = |code| {
            let mut s = String::new();
            font.text(code, &mut s).then_some(s)
        };
        assert_eq!(text(65).as_deref(), Some("\u{FB01}"));
        assert_eq!(text(66).as_deref(), Some("0"));
        assert_eq!(text(67).as_deref(), Some("C"));
        assert_eq!(text(0x92), None);
        assert_eq!(text(0xE9).as_deref(), Some("é"));
        // Standard 14 without /Widths: a sensible default.
        let mut widths = Vec::new();
        font.decode(b"A ", |g| widths.push((g.width, g.word_space)));
        assert_eq!(widths, vec![(0.5, false), (0.25, true)]);
    }

    #[test]
    fn zapf_dingbats_reads_its_built_in_encoding() {
        let doc = Document::with_version("1.5");
        let font = dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "ZapfDingbats" };
        let font = Font::load(&doc, &font, 1 << 20);
        let text = |code| {
            let mut s = String::new();
            font.text(code, &mut s).then_some(s)
        };
        // The check marks and the radio button dot of form fields.
        assert_eq!(text(u32::from(b'4')).as_deref(), Some("✔"));
        assert_eq!(text(u32::from(b'8')).as_deref(), Some("✘"));
        assert_eq!(text(u32::from(b'l')).as_deref(), Some("●"));
        assert_eq!(text(0xAC).as_deref(), Some("①"));
        assert_eq!(text(0xF0), None);
    }

    #[test]
    fn identity_h_with_to_unicode_and_cid_widths() {
        let mut doc = Document::with_version("1.5");
        let cmap =
            b"1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfchar <0005> <0048> endbfchar".to_vec();
        let to_unicode = doc.add_object(Stream::new(dictionary! {}, cmap));
        let descendant = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "CIDFontType2", "DW" => 700,
            "W" => vec![5.into(), vec![Object::Integer(600)].into(), 10.into(), 12.into(), 300.into()],
        });
        let font = dictionary! {
            "Type" => "Font", "Subtype" => "Type0", "BaseFont" => "X", "Encoding" => "Identity-V",
            "DescendantFonts" => vec![descendant.into()], "ToUnicode" => to_unicode,
        };
        let font = Font::load(&doc, &font, 1 << 20);
        assert!(font.vertical);
        let mut glyphs = Vec::new();
        font.decode(&[0, 5, 0, 11, 0, 20, 7], |g| {
            glyphs.push((g.code, (g.width * 1000.0).round() as i32))
        });
        assert_eq!(glyphs, vec![(5, 600), (11, 300), (20, 700), (7, 700)]);
        let mut s = String::new();
        assert!(font.text(5, &mut s));
        assert_eq!(s, "H");
        assert!(!font.text(11, &mut s));
    }

    #[test]
    fn type3_without_mapping_has_no_unicode() {
        let doc = Document::with_version("1.5");
        let font = dictionary! {
            "Type" => "Font", "Subtype" => "Type3",
            "FontMatrix" => vec![0.01.into(), 0.into(), 0.into(), Object::Real(-0.01), 0.into(), 0.into()],
            "Encoding" => dictionary! { "Differences" => vec![18.into(), "g258".into(), "g437".into()] },
            "FirstChar" => 18, "Widths" => vec![40.into(), 44.into()],
        };
        let font = Font::load(&doc, &font, 1 << 20);
        let mut s = String::new();
        assert!(!font.text(18, &mut s) && !font.text(19, &mut s));
        let mut widths = Vec::new();
        font.decode(&[18, 19], |g| widths.push(g.width));
        assert!((widths[0] - 0.4).abs() < 1e-6 && (widths[1] - 0.44).abs() < 1e-6);
        assert!((font.size_scale - 10.0).abs() < 1e-4);
    }
}
