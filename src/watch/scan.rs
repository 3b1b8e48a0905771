//! Listing a linked directory: its PDFs (recursively, hidden files and directories skipped), each
//! with size, modification time and whether it has stopped changing.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A file is indexed once it has not been modified for this long: a copy or a download in
/// progress keeps touching it.
pub const STABLE_AFTER: Duration = Duration::from_secs(1);

/// One PDF of a linked directory.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    /// Relative to the directory, '/'-separated.
    pub rel_path: String,
    pub path: PathBuf,
    pub size: u64,
    /// Nanoseconds since the epoch.
    pub mtime: i64,
    /// Not modified for [`STABLE_AFTER`].
    pub stable: bool,
}

/// What a scan found: the PDFs, and the entries that could not be read (with why).
#[derive(Debug, Default)]
pub struct Scan {
    pub files: Vec<ScannedFile>,
    /// Files and directories that could not be read, each with why.
    pub unreadable: Vec<(String, String)>,
    /// Directories whose listing is incomplete (unreadable, or a read error part way):
    /// `""` for the root. A file under one may still be there.
    incomplete: Vec<String>,
    /// The root holds no entry at all.
    pub empty: bool,
}

impl Scan {
    /// Whether the file at `rel_path` may exist although the scan did not list it: it, or a
    /// directory above it, could not be read. Only a file seen to be gone is gone.
    pub fn may_hold(&self, rel_path: &str) -> bool {
        self.unreadable.iter().any(|(path, _)| path == rel_path)
            || self.incomplete.iter().any(|dir| {
                dir.is_empty()
                    || rel_path
                        .strip_prefix(dir.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
    }

    fn incomplete(&mut self, dir: &str, reason: String) {
        self.unreadable.push((dir.to_string(), reason));
        self.incomplete.push(dir.to_string());
    }
}

/// Whether a file name ends in `.pdf`, in any case. Bytes are compared, not characters: the
/// fourth byte from the end may fall inside a character (`メモ`, `Grüße`).
fn is_pdf(name: &str) -> bool {
    let name = name.as_bytes();
    name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(b".pdf")
}

/// Lists `root`; `None` when the directory itself is missing or unreadable (an unplugged drive).
pub fn scan(root: &Path) -> Option<Scan> {
    let mut found = Scan {
        empty: std::fs::read_dir(root).ok()?.next().is_none(),
        ..Scan::default()
    };
    let now = SystemTime::now();
    let mut dirs = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = dirs.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                found.incomplete(&prefix, format!("the directory could not be read: {e}"));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    found.incomplete(&prefix, format!("the directory could not be read to its end: {e}"));
                    break;
                }
            };
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') {
                continue;
            }
            let rel_path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let path = entry.path();
            let kind = match entry.file_type() {
                Ok(kind) => kind,
                Err(e) => {
                    found.incomplete(&rel_path, format!("the entry could not be read: {e}"));
                    continue;
                }
            };
            if kind.is_dir() {
                dirs.push((path, rel_path));
                continue;
            }
            if !is_pdf(&name) {
                continue;
            }
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() => {
                    let modified = meta.modified().unwrap_or(now);
                    let mtime = modified
                        .duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_nanos().min(i64::MAX as u128) as i64);
                    found.files.push(ScannedFile {
                        rel_path,
                        path,
                        size: meta.len(),
                        mtime,
                        stable: now.duration_since(modified).is_ok_and(|age| age >= STABLE_AFTER),
                    });
                }
                Ok(_) => {}
                Err(e) => found
                    .unreadable
                    .push((rel_path, format!("the file could not be read: {e}"))),
            }
        }
    }
    found.files.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
    Some(found)
}
