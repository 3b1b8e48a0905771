//! Glyph names to Unicode: the Adobe Glyph List, `uniXXXX` and `uXXXX[XX]` names, ligature names
//! joined by underscores (`f_f_i`) and variant suffixes (`a.sc`).

use crate::glyph_list::GLYPHS;

/// The text a glyph name stands for, if it can be told from the name.
pub fn to_unicode(name: &[u8]) -> Option<String> {
    let name = std::str::from_utf8(name).ok()?;
    if let Some(text) = single(name) {
        return Some(text);
    }
    // `a.sc`, `one.oldstyle`: the part before the first period names the character.
    let base = match name.split_once('.') {
        Some((base, _)) if !base.is_empty() => base,
        _ => name,
    };
    if base != name {
        if let Some(text) = single(base) {
            return Some(text);
        }
    }
    if base.contains('_') {
        let mut text = String::new();
        for part in base.split('_') {
            text.push_str(&single(part)?);
        }
        return Some(text);
    }
    None
}

/// One component: an AGL name, `uniXXXX...` (UTF-16 units) or `uXXXX` to `uXXXXXX`.
fn single(name: &str) -> Option<String> {
    if let Ok(i) = GLYPHS.binary_search_by(|(n, _)| n.as_bytes().cmp(name.as_bytes())) {
        return GLYPHS
            .get(i)
            .and_then(|&(_, code)| char::from_u32(u32::from(code)))
            .map(String::from);
    }
    if let Some(hex) = name.strip_prefix("uni") {
        if hex.is_empty() || hex.len() % 4 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let units: Vec<u16> = (0..hex.len() / 4)
            .filter_map(|i| u16::from_str_radix(&hex[i * 4..i * 4 + 4], 16).ok())
            .collect();
        return String::from_utf16(&units).ok();
    }
    if let Some(hex) = name.strip_prefix('u') {
        if (4..=6).contains(&hex.len()) && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return u32::from_str_radix(hex, 16)
                .ok()
                .and_then(char::from_u32)
                .map(String::from);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::to_unicode;

    fn name(n: &str) -> Option<String> {
        to_unicode(n.as_bytes())
    }

    #[test]
    fn agl_names() {
        assert_eq!(name("A").as_deref(), Some("A"));
        assert_eq!(name("adieresis").as_deref(), Some("ä"));
        assert_eq!(name("quoteright").as_deref(), Some("\u{2019}"));
        assert_eq!(name("fi").as_deref(), Some("\u{FB01}"));
        assert_eq!(name("zero").as_deref(), Some("0"));
        assert_eq!(name("alpha").as_deref(), Some("α"));
    }

    #[test]
    fn uni_and_u_names() {
        assert_eq!(name("uni0041").as_deref(), Some("A"));
        assert_eq!(name("uni00660069").as_deref(), Some("fi"));
        assert_eq!(name("uniD83DDE00").as_deref(), Some("😀"));
        assert_eq!(name("u1F600").as_deref(), Some("😀"));
        assert_eq!(name("uniXYZW"), None);
        assert_eq!(name("u12"), None);
    }

    #[test]
    fn suffixes_and_ligatures() {
        assert_eq!(name("a.sc").as_deref(), Some("a"));
        assert_eq!(name("f_f_i").as_deref(), Some("\u{FB03}"));
        assert_eq!(name("T_h").as_deref(), Some("Th"));
        assert_eq!(name(".notdef"), None);
        assert_eq!(name("g123"), None);
        assert_eq!(name("a0"), None);
    }
}
