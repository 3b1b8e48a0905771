//! The pages of a document read by OCR, a file per page. While a build runs they are kept in
//! `.ocr-<id>` beside the indexes as each is read, so a build that stops (a restart, a crash, a
//! cancel) goes on from the pages already read; the finished build takes them in as `ocr/`, where
//! the viewer finds the box of each word of a page.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::IndexError;
use crate::pdf::{OcrPage, WordBox};

/// The directory an index keeps its pages read by OCR in.
pub const OCR_DIR: &str = "ocr";

/// What the pages were read from, and how: pages read otherwise are read again.
const ABOUT_FILE: &str = "about.json";

#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct About {
    content_hash: String,
    languages: String,
}

/// The pages of one document read by OCR so far; nothing is on disk until a page is kept.
pub struct OcrPages {
    dir: PathBuf,
    about: About,
}

impl OcrPages {
    /// The pages kept in `dir` for the content `content_hash` read in `languages`; pages kept for
    /// other content or languages are discarded.
    pub fn open(dir: &Path, content_hash: &str, languages: &str) -> Result<OcrPages, IndexError> {
        let about = About {
            content_hash: content_hash.to_string(),
            languages: languages.to_string(),
        };
        let kept = fs::read(dir.join(ABOUT_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<About>(&bytes).ok());
        if dir.exists() && kept.as_ref() != Some(&about) {
            fs::remove_dir_all(dir).map_err(IndexError::io(dir))?;
        }
        Ok(OcrPages {
            dir: dir.to_path_buf(),
            about,
        })
    }

    /// Page `number`, if it was read.
    pub fn get(&self, number: u32) -> Option<OcrPage> {
        read_page(&self.dir, number)
    }

    /// Keeps page `number` as read.
    pub fn put(&self, number: u32, page: &OcrPage) -> Result<(), IndexError> {
        if !self.dir.exists() {
            fs::create_dir_all(&self.dir).map_err(IndexError::io(&self.dir))?;
            write(&self.dir.join(ABOUT_FILE), &self.about)?;
        }
        write(&page_file(&self.dir, number), page)
    }

    /// Moves the pages kept, if any, into the build in `temp`.
    pub fn publish(self, temp: &Path) -> Result<(), IndexError> {
        if !self.dir.exists() {
            return Ok(());
        }
        let target = temp.join(OCR_DIR);
        fs::rename(&self.dir, &target).map_err(IndexError::io(&target))
    }
}

/// The words of page `number` and their boxes, if OCR read that page of the index in `dir`.
pub fn page_words(dir: &Path, number: u32) -> Option<Vec<WordBox>> {
    read_page(&dir.join(OCR_DIR), number).map(|page| page.words)
}

fn page_file(dir: &Path, number: u32) -> PathBuf {
    dir.join(format!("{number}.json"))
}

fn read_page(dir: &Path, number: u32) -> Option<OcrPage> {
    let bytes = fs::read(page_file(dir, number)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Writes `value` to `path` whole or not at all: a file that is there is complete.
fn write(path: &Path, value: &impl Serialize) -> Result<(), IndexError> {
    let bytes = serde_json::to_vec(value).map_err(|e| IndexError::io(path)(std::io::Error::other(e)))?;
    let partial = path.with_extension("partial");
    fs::write(&partial, bytes).map_err(IndexError::io(&partial))?;
    fs::rename(&partial, path).map_err(IndexError::io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> OcrPage {
        OcrPage {
            text: text.into(),
            words: vec![WordBox {
                start: 0,
                end: text.chars().count() as u32,
                bounds: [0.1, 0.2, 0.3, 0.4],
            }],
            rotation: 0,
        }
    }

    #[test]
    fn pages_read_are_kept_for_the_same_content_and_languages_only() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join(".ocr-x");
        let pages = OcrPages::open(&dir, "hash", "eng").unwrap();
        assert_eq!(pages.get(3), None);
        assert!(!dir.exists(), "nothing is kept before a page is read");
        pages.put(3, &page("Scanned")).unwrap();
        assert_eq!(
            OcrPages::open(&dir, "hash", "eng").unwrap().get(3),
            Some(page("Scanned"))
        );
        assert_eq!(OcrPages::open(&dir, "hash", "eng+deu").unwrap().get(3), None);
        let pages = OcrPages::open(&dir, "hash", "eng").unwrap();
        pages.put(3, &page("Scanned")).unwrap();
        assert_eq!(OcrPages::open(&dir, "other", "eng").unwrap().get(3), None);
    }

    #[test]
    fn published_pages_give_each_words_box() {
        let temp = tempfile::tempdir().unwrap();
        let (dir, build) = (temp.path().join(".ocr-x"), temp.path().join("build"));
        fs::create_dir_all(&build).unwrap();
        let pages = OcrPages::open(&dir, "hash", "eng").unwrap();
        pages.put(2, &page("Scanned")).unwrap();
        pages.publish(&build).unwrap();
        assert!(!dir.exists());
        assert_eq!(page_words(&build, 2), Some(page("Scanned").words));
        assert_eq!(page_words(&build, 1), None);
    }
}
