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
    pub unreadable: Vec<(String, String)>,
}

/// Whether a file name ends in `.pdf`, in any case. Bytes are compared, not characters: the
/// fourth byte from the end may fall inside a character (`メモ`, `Grüße`).
fn is_pdf(name: &str) -> bool {
    let name = name.as_bytes();
    name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(b".pdf")
}

/// Lists `root`; `None` when the directory itself is missing or unreadable (an unplugged drive).
pub fn scan(root: &Path) -> Option<Scan> {
    let mut found = Scan::default();
    std::fs::read_dir(root).ok()?;
    let now = SystemTime::now();
    let mut dirs = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            found
                .unreadable
                .push((prefix.clone(), "the directory could not be read".into()));
            continue;
        };
        for entry in entries.flatten() {
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
            let Ok(kind) = entry.file_type() else { continue };
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
