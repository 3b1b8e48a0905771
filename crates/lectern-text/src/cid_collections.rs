//! Unicode for the CIDs of Adobe's CJK character collections (Japan1, GB1, CNS1, Korea1), for
//! CID fonts without a ToUnicode map. The tables come from Adobe's `*-UCS2` CMaps
//! (BSD-3-Clause, `data/LICENSE-Adobe-CMaps.txt`), made by `data/generate.py`.

static JAPAN1: &[u8] = include_bytes!("../data/Adobe-Japan1.u16");
static GB1: &[u8] = include_bytes!("../data/Adobe-GB1.u16");
static CNS1: &[u8] = include_bytes!("../data/Adobe-CNS1.u16");
static KOREA1: &[u8] = include_bytes!("../data/Adobe-Korea1.u16");

/// A character collection with a CID-to-Unicode table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Collection(&'static [u8]);

impl Collection {
    /// The collection of a CIDSystemInfo's registry and ordering, if there is a table for it.
    pub fn find(registry: &[u8], ordering: &[u8]) -> Option<Collection> {
        if registry != b"Adobe" {
            return None;
        }
        match ordering {
            b"Japan1" => Some(Collection(JAPAN1)),
            b"GB1" => Some(Collection(GB1)),
            b"CNS1" => Some(Collection(CNS1)),
            b"Korea1" => Some(Collection(KOREA1)),
            _ => None,
        }
    }

    /// The character of a CID, if the collection maps it.
    pub fn unicode(&self, cid: u32) -> Option<char> {
        let i = usize::try_from(cid).ok()?.checked_mul(2)?;
        let unit = u16::from_le_bytes([*self.0.get(i)?, *self.0.get(i + 1)?]);
        char::from_u32(u32::from(unit)).filter(|_| unit != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::Collection;

    #[test]
    fn japan1_maps_kana_and_kanji() {
        let japan1 = Collection::find(b"Adobe", b"Japan1");
        assert!(japan1.is_some());
        let japan1 = japan1.unwrap_or(Collection(&[]));
        // CID 1 is the space, 843 is あ (Adobe-Japan1-7 character collection).
        assert_eq!(japan1.unicode(1), Some(' '));
        assert_eq!(japan1.unicode(843), Some('あ'));
        assert_eq!(japan1.unicode(u32::MAX), None);
        assert_eq!(Collection::find(b"Adobe", b"Identity"), None);
    }
}
