//! The built-in encoding of an embedded CFF font program (`FontFile3`, Type 1C): code to glyph
//! name through the Top DICT's Encoding and charset (Adobe Technical Note 5176). TeX's math
//! fonts re-saved as CFF rely on it; without it their symbols read as Latin letters.

/// Most glyphs read from a charset.
const MAX_GLYPHS: usize = 65_536;

/// The 391 standard strings (SIDs 0..390) of CFF, Appendix A of the specification.
#[rustfmt::skip]
const STANDARD_STRINGS: [&str; 391] = [
    ".notdef", "space", "exclam", "quotedbl", "numbersign", "dollar", "percent", "ampersand", "quoteright",
    "parenleft", "parenright", "asterisk", "plus", "comma", "hyphen", "period", "slash", "zero", "one",
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "colon", "semicolon", "less", "equal",
    "greater", "question", "at", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O",
    "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z", "bracketleft", "backslash", "bracketright",
    "asciicircum", "underscore", "quoteleft", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l",
    "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z", "braceleft", "bar", "braceright",
    "asciitilde", "exclamdown", "cent", "sterling", "fraction", "yen", "florin", "section", "currency",
    "quotesingle", "quotedblleft", "guillemotleft", "guilsinglleft", "guilsinglright", "fi", "fl", "endash",
    "dagger", "daggerdbl", "periodcentered", "paragraph", "bullet", "quotesinglbase", "quotedblbase",
    "quotedblright", "guillemotright", "ellipsis", "perthousand", "questiondown", "grave", "acute",
    "circumflex", "tilde", "macron", "breve", "dotaccent", "dieresis", "ring", "cedilla", "hungarumlaut",
    "ogonek", "caron", "emdash", "AE", "ordfeminine", "Lslash", "Oslash", "OE", "ordmasculine", "ae",
    "dotlessi", "lslash", "oslash", "oe", "germandbls", "onesuperior", "logicalnot", "mu", "trademark",
    "Eth", "onehalf", "plusminus", "Thorn", "onequarter", "divide", "brokenbar", "degree", "thorn",
    "threequarters", "twosuperior", "registered", "minus", "eth", "multiply", "threesuperior", "copyright",
    "Aacute", "Acircumflex", "Adieresis", "Agrave", "Aring", "Atilde", "Ccedilla", "Eacute", "Ecircumflex",
    "Edieresis", "Egrave", "Iacute", "Icircumflex", "Idieresis", "Igrave", "Ntilde", "Oacute",
    "Ocircumflex", "Odieresis", "Ograve", "Otilde", "Scaron", "Uacute", "Ucircumflex", "Udieresis",
    "Ugrave", "Yacute", "Ydieresis", "Zcaron", "aacute", "acircumflex", "adieresis", "agrave", "aring",
    "atilde", "ccedilla", "eacute", "ecircumflex", "edieresis", "egrave", "iacute", "icircumflex",
    "idieresis", "igrave", "ntilde", "oacute", "ocircumflex", "odieresis", "ograve", "otilde", "scaron",
    "uacute", "ucircumflex", "udieresis", "ugrave", "yacute", "ydieresis", "zcaron", "exclamsmall",
    "Hungarumlautsmall", "dollaroldstyle", "dollarsuperior", "ampersandsmall", "Acutesmall",
    "parenleftsuperior", "parenrightsuperior", "twodotenleader", "onedotenleader", "zerooldstyle",
    "oneoldstyle", "twooldstyle", "threeoldstyle", "fouroldstyle", "fiveoldstyle", "sixoldstyle",
    "sevenoldstyle", "eightoldstyle", "nineoldstyle", "commasuperior", "threequartersemdash",
    "periodsuperior", "questionsmall", "asuperior", "bsuperior", "centsuperior", "dsuperior", "esuperior",
    "isuperior", "lsuperior", "msuperior", "nsuperior", "osuperior", "rsuperior", "ssuperior", "tsuperior",
    "ff", "ffi", "ffl", "parenleftinferior", "parenrightinferior", "Circumflexsmall", "hyphensuperior",
    "Gravesmall", "Asmall", "Bsmall", "Csmall", "Dsmall", "Esmall", "Fsmall", "Gsmall", "Hsmall", "Ismall",
    "Jsmall", "Ksmall", "Lsmall", "Msmall", "Nsmall", "Osmall", "Psmall", "Qsmall", "Rsmall", "Ssmall",
    "Tsmall", "Usmall", "Vsmall", "Wsmall", "Xsmall", "Ysmall", "Zsmall", "colonmonetary", "onefitted",
    "rupiah", "Tildesmall", "exclamdownsmall", "centoldstyle", "Lslashsmall", "Scaronsmall", "Zcaronsmall",
    "Dieresissmall", "Brevesmall", "Caronsmall", "Dotaccentsmall", "Macronsmall", "figuredash",
    "hypheninferior", "Ogoneksmall", "Ringsmall", "Cedillasmall", "questiondownsmall", "oneeighth",
    "threeeighths", "fiveeighths", "seveneighths", "onethird", "twothirds", "zerosuperior", "foursuperior",
    "fivesuperior", "sixsuperior", "sevensuperior", "eightsuperior", "ninesuperior", "zeroinferior",
    "oneinferior", "twoinferior", "threeinferior", "fourinferior", "fiveinferior", "sixinferior",
    "seveninferior", "eightinferior", "nineinferior", "centinferior", "dollarinferior", "periodinferior",
    "commainferior", "Agravesmall", "Aacutesmall", "Acircumflexsmall", "Atildesmall", "Adieresissmall",
    "Aringsmall", "AEsmall", "Ccedillasmall", "Egravesmall", "Eacutesmall", "Ecircumflexsmall",
    "Edieresissmall", "Igravesmall", "Iacutesmall", "Icircumflexsmall", "Idieresissmall", "Ethsmall",
    "Ntildesmall", "Ogravesmall", "Oacutesmall", "Ocircumflexsmall", "Otildesmall", "Odieresissmall",
    "OEsmall", "Oslashsmall", "Ugravesmall", "Uacutesmall", "Ucircumflexsmall", "Udieresissmall",
    "Yacutesmall", "Thornsmall", "Ydieresissmall", "001.000", "001.001", "001.002", "001.003", "Black",
    "Bold", "Book", "Light", "Medium", "Regular", "Roman", "Semibold",
];

fn u16_at(data: &[u8], at: usize) -> Option<usize> {
    Some(usize::from(*data.get(at)?) << 8 | usize::from(*data.get(at + 1)?))
}

/// The entries of an INDEX at `at`, and where the INDEX ends.
fn index(data: &[u8], at: usize) -> Option<(Vec<&[u8]>, usize)> {
    let count = u16_at(data, at)?;
    if count == 0 {
        return Some((Vec::new(), at + 2));
    }
    let size = usize::from(*data.get(at + 2)?);
    if !(1..=4).contains(&size) {
        return None;
    }
    let offset = |i: usize| -> Option<usize> {
        let start = at + 3 + i * size;
        Some(
            data.get(start..start + size)?
                .iter()
                .fold(0usize, |acc, &b| acc << 8 | usize::from(b)),
        )
    };
    let base = at + 3 + (count + 1) * size - 1;
    let mut entries = Vec::with_capacity(count.min(MAX_GLYPHS));
    for i in 0..count {
        let (start, end) = (base + offset(i)?, base + offset(i + 1)?);
        entries.push(data.get(start..end)?);
    }
    Some((entries, base + offset(count)?))
}

/// The operands of the Top DICT operators this reader needs: charset (15), Encoding (16),
/// CharStrings (17), and whether the font is CID-keyed (ROS, 12 30).
fn top_dict(dict: &[u8]) -> (usize, usize, usize, bool) {
    let (mut charset, mut encoding, mut charstrings, mut cid) = (0, 0, 0, false);
    let mut operands: Vec<i64> = Vec::new();
    let mut i = 0;
    while i < dict.len() {
        let b = dict[i];
        let byte = |k: usize| i64::from(dict.get(i + k).copied().unwrap_or(0));
        match b {
            0..=21 => {
                let last = operands.last().copied().unwrap_or(0).max(0) as usize;
                match b {
                    12 => {
                        cid |= byte(1) == 30;
                        i += 1;
                    }
                    15 => charset = last,
                    16 => encoding = last,
                    17 => charstrings = last,
                    _ => {}
                }
                operands.clear();
                i += 1;
            }
            28 => {
                operands.push(i64::from((byte(1) << 8 | byte(2)) as i16));
                i += 3;
            }
            29 => {
                operands.push(i64::from(
                    (byte(1) << 24 | byte(2) << 16 | byte(3) << 8 | byte(4)) as i32,
                ));
                i += 5;
            }
            30 => {
                // A real: skip its nibbles up to the terminating 0xf.
                i += 1;
                while i < dict.len() && dict[i] & 0x0f != 0x0f && dict[i] >> 4 != 0x0f {
                    i += 1;
                }
                operands.push(0);
                i += 1;
            }
            32..=246 => {
                operands.push(i64::from(b) - 139);
                i += 1;
            }
            247..=250 => {
                operands.push((i64::from(b) - 247) * 256 + byte(1) + 108);
                i += 2;
            }
            251..=254 => {
                operands.push(-(i64::from(b) - 251) * 256 - byte(1) - 108);
                i += 2;
            }
            _ => i += 1,
        }
    }
    (charset, encoding, charstrings, cid)
}

/// The SID of each glyph (glyph 0 is .notdef).
fn charset(data: &[u8], at: usize, glyphs: usize) -> Option<Vec<usize>> {
    let mut sids = vec![0];
    if at <= 2 {
        // The predefined ISOAdobe charset: SID = glyph id (Expert charsets map to no text).
        sids.extend((1..glyphs.min(229)).map(|g| if at == 0 { g } else { 0 }));
        return Some(sids);
    }
    let format = *data.get(at)?;
    let mut p = at + 1;
    while sids.len() < glyphs {
        match format {
            0 => {
                sids.push(u16_at(data, p)?);
                p += 2;
            }
            1 | 2 => {
                let first = u16_at(data, p)?;
                let left = if format == 1 {
                    usize::from(*data.get(p + 2)?)
                } else {
                    u16_at(data, p + 2)?
                };
                p += if format == 1 { 3 } else { 4 };
                sids.extend((first..=first + left).take(glyphs - sids.len()));
            }
            _ => return None,
        }
    }
    Some(sids)
}

/// The code-to-glyph-name pairs of a CFF font's own encoding; `None` for the standard one, a
/// CID-keyed font, or data that does not parse.
pub fn builtin_encoding(data: &[u8]) -> Option<Vec<(u8, String)>> {
    let header = usize::from(*data.get(2)?);
    let (_, after_names) = index(data, header)?;
    let (top, after_top) = index(data, after_names)?;
    let (strings, _) = index(data, after_top)?;
    let (charset_at, encoding_at, charstrings_at, cid) = top_dict(top.first()?);
    if cid || encoding_at <= 1 {
        return None;
    }
    let glyphs = u16_at(data, charstrings_at)?.min(MAX_GLYPHS);
    let sids = charset(data, charset_at, glyphs)?;
    let name = |sid: usize| -> Option<String> {
        match STANDARD_STRINGS.get(sid) {
            Some(name) => Some((*name).to_string()),
            None => strings
                .get(sid - STANDARD_STRINGS.len())
                .map(|s| String::from_utf8_lossy(s).into_owned()),
        }
    };
    let format = *data.get(encoding_at)?;
    let mut pairs = Vec::new();
    let mut p = encoding_at + 1;
    match format & 0x7f {
        0 => {
            let count = usize::from(*data.get(p)?);
            for glyph in 1..=count {
                let code = *data.get(p + glyph)?;
                if let Some(name) = sids.get(glyph).and_then(|&sid| name(sid)) {
                    pairs.push((code, name));
                }
            }
            p += 1 + count;
        }
        1 => {
            let ranges = usize::from(*data.get(p)?);
            let mut glyph = 1;
            for r in 0..ranges {
                let first = *data.get(p + 1 + 2 * r)?;
                let left = *data.get(p + 2 + 2 * r)?;
                for k in 0..=left {
                    if let Some(name) = sids.get(glyph).and_then(|&sid| name(sid)) {
                        pairs.push((first.wrapping_add(k), name));
                    }
                    glyph += 1;
                }
            }
            p += 1 + 2 * ranges;
        }
        _ => return None,
    }
    if format & 0x80 != 0 {
        let count = usize::from(*data.get(p)?);
        for s in 0..count {
            let code = *data.get(p + 1 + 3 * s)?;
            if let Some(name) = u16_at(data, p + 2 + 3 * s).and_then(name) {
                pairs.push((code, name));
            }
        }
    }
    (!pairs.is_empty()).then_some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An INDEX of the given entries with one-byte offsets.
    fn index_bytes(entries: &[&[u8]]) -> Vec<u8> {
        let mut out = vec![0, entries.len() as u8, 1, 1];
        let mut offset = 1u8;
        for e in entries {
            offset += e.len() as u8;
            out.push(offset);
        }
        for e in entries {
            out.extend_from_slice(e);
        }
        out
    }

    #[test]
    fn reads_a_custom_encoding_with_custom_strings() {
        // Header, names, a Top DICT pointing at charset, Encoding and CharStrings, strings.
        let names = index_bytes(&[b"CMSY10"]);
        let strings = index_bytes(&[b"arrowright"]);
        let top_len = 3 * 2 + 3; // three one-byte operands and operators, a spare
        let start = 4 + names.len() + (5 + top_len) + strings.len() + 2;
        let (charset_at, encoding_at, charstrings_at) = (start, start + 7, start + 12);
        let operand = |v: usize| (v + 139) as u8;
        let top: Vec<u8> = vec![
            operand(charset_at),
            15,
            operand(encoding_at),
            16,
            operand(charstrings_at),
            17,
            0,
            0,
            0,
        ];
        assert_eq!(top.len(), top_len);
        let mut data = vec![1, 0, 4, 1];
        data.extend(&names);
        data.extend(index_bytes(&[&top]));
        data.extend(&strings);
        data.extend([0, 0]); // an empty global subr INDEX
        assert_eq!(data.len(), charset_at);
        // charset format 0: glyph 1 is "minus" (SID 166), glyph 2 "multiply" (168), glyph 3 our string.
        data.extend([0, 0, 166, 0, 168, 1, 135]);
        // Encoding format 0: three codes.
        data.extend([0, 3, 0, 2, 33]);
        // CharStrings INDEX: four glyphs.
        data.extend(index_bytes(&[b"a", b"b", b"c", b"d"]));
        let pairs = builtin_encoding(&data).unwrap_or_default();
        assert_eq!(
            pairs,
            vec![
                (0, "minus".to_string()),
                (2, "multiply".to_string()),
                (33, "arrowright".to_string())
            ]
        );
    }

    #[test]
    fn garbage_is_none() {
        assert_eq!(builtin_encoding(b""), None);
        assert_eq!(builtin_encoding(&[1, 0, 4, 1, 0, 5, 4, 255]), None);
        assert_eq!(STANDARD_STRINGS[166], "minus");
        assert_eq!(STANDARD_STRINGS[390], "Semibold");
    }
}
