//! `indexes/.library/summaries`: which documents the wide index covers, and what each looks
//! like to a question's vector (its passage count and a few centroids of its vectors, `i8`
//! like the blocks). An append-only log of records, the latest of a document winning: a `put`
//! covers it, a `removal` uncovers it, and `forget` drops a document whose index is gone (its
//! passages taken out of the keyword index). Every change to a document's index directory appends a
//! removal before and after the change ([`uncover`]), so a document is covered only by a
//! summary of the index it has now; the keeper appends puts under the log's lock after checking
//! that no removal came since it read the index. A torn record at the end (a process killed
//! mid-write) is cut off by the next writer; compaction rewrites the log with a new epoch, which
//! tells readers to read it again from the start.
//!
//! Layout, little-endian: `LCFS`, version, epoch (u64); then records, each its body's length
//! (u32), its body, its length again and `LCFE` (so that a writer sees a torn end without reading
//! the whole log). A body is: kind (1 put, 2 removal, 3 forget), the document id (16 bytes), and for a put its
//! passage count (u64) and, if it has vectors (a byte), the embedder's identity (u16 length and
//! UTF-8), dimension and centroid count (u32 each), one `f32` scale per centroid and their codes.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lectern_scan::QuantizedBlock;
use uuid::Uuid;

use crate::catalog::DocumentId;
use crate::index::IndexError;

/// The wide index's directory inside `indexes/`.
pub const DIR: &str = ".library";
const FILE: &str = "summaries";
const MAGIC: &[u8; 4] = b"LCFS";
const VERSION: u32 = 1;
const HEADER_LEN: u64 = 16;
const PUT: u8 = 1;
const REMOVAL: u8 = 2;
const FORGET: u8 = 3;
const RECORD_END: &[u8; 4] = b"LCFE";

/// What the wide index knows of a covered document.
#[derive(Debug, Clone)]
pub struct Summary {
    /// How many passages its index holds.
    pub chunks: u64,
    /// Its vectors' centroids, once it has vectors.
    pub vectors: Option<Centroids>,
}

/// A few centroids of a document's vectors, and the model that made them.
#[derive(Debug, Clone)]
pub struct Centroids {
    pub embedder: String,
    pub block: QuantizedBlock,
}

/// The latest record of each document: `None` for a removal.
pub type Records = HashMap<DocumentId, Option<Arc<Summary>>>;

/// One record of the log.
enum Record {
    Put(Summary),
    Removal,
    Forget,
}

/// The log file of the wide index under the `indexes/` directory `root`.
pub fn path(root: &Path) -> PathBuf {
    root.join(DIR).join(FILE)
}

/// Uncovers `id`: appends its removal, if the library has a wide index (one without records
/// nothing). Called before and after every change to the document's index directory.
pub fn uncover(root: &Path, id: DocumentId) -> Result<(), IndexError> {
    let path = path(root);
    let file = match OpenOptions::new().read(true).append(true).open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(IndexError::io(&path)(e)),
    };
    let locked = Locked::take(file, &path)?;
    locked.append(&[encode(id, REMOVAL, None)]).map(|_| ())
}

/// The log read so far by one process.
#[derive(Debug, Default)]
pub struct Reading {
    epoch: u64,
    /// Where the next record starts.
    pub offset: u64,
    pub records: Arc<Records>,
}

impl Reading {
    /// Reads what was appended since the last call (the whole log again after a compaction).
    /// `false` when there is no log, or it is not one.
    pub fn refresh(&mut self, root: &Path) -> Result<bool, IndexError> {
        let path = path(root);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                *self = Reading::default();
                return Ok(false);
            }
            Err(e) => return Err(IndexError::io(&path)(e)),
        };
        let Some(epoch) = read_epoch(&file, &path)? else {
            *self = Reading::default();
            return Ok(false);
        };
        if epoch != self.epoch {
            *self = Reading {
                epoch,
                offset: HEADER_LEN,
                records: Arc::default(),
            };
        }
        let (tail, end) = read_records(&file, &path, self.offset)?;
        if !tail.is_empty() {
            let records = Arc::make_mut(&mut self.records);
            for (id, record) in tail {
                match record {
                    Record::Put(summary) => records.insert(id, Some(Arc::new(summary))),
                    Record::Removal => records.insert(id, None),
                    Record::Forget => records.remove(&id),
                };
            }
        }
        self.offset = end;
        Ok(true)
    }
}

/// Creates an empty log under `root` unless there is one (or replaces one that is not a log).
pub fn create(root: &Path) -> Result<(), IndexError> {
    let path = path(root);
    if let Ok(file) = File::open(&path) {
        if read_epoch(&file, &path)?.is_some() {
            return Ok(());
        }
    }
    write_new(&path, &Records::new())
}

/// Appends `puts` under the log's lock, leaving out the documents a removal was appended for
/// after `since` (their index changed while it was summarised); returns the documents covered.
pub fn append_puts(root: &Path, since: u64, puts: Vec<(DocumentId, Summary)>) -> Result<Vec<DocumentId>, IndexError> {
    let locked = Locked::open(root)?;
    let (after, _) = read_records(&locked.file, &locked.path, since)?;
    let changed: std::collections::HashSet<DocumentId> = after
        .iter()
        .filter(|(_, r)| !matches!(r, Record::Put(_)))
        .map(|(id, _)| *id)
        .collect();
    let kept: Vec<(DocumentId, Summary)> = puts.into_iter().filter(|(id, _)| !changed.contains(id)).collect();
    let bytes: Vec<Vec<u8>> = kept.iter().map(|(id, s)| encode_put(*id, s)).collect();
    if !bytes.is_empty() {
        locked.append(&bytes)?;
    }
    Ok(kept.into_iter().map(|(id, _)| id).collect())
}

/// Appends removals of `ids` under the log's lock; returns where the log ends after them.
pub fn append_removals(root: &Path, ids: &[DocumentId]) -> Result<u64, IndexError> {
    append_each(root, ids, REMOVAL)
}

/// Appends that `ids` are forgotten, under the log's lock.
pub fn append_forgotten(root: &Path, ids: &[DocumentId]) -> Result<u64, IndexError> {
    append_each(root, ids, FORGET)
}

fn append_each(root: &Path, ids: &[DocumentId], kind: u8) -> Result<u64, IndexError> {
    let locked = Locked::open(root)?;
    let bytes: Vec<Vec<u8>> = ids.iter().map(|id| encode(*id, kind, None)).collect();
    locked.append(&bytes)
}

/// Rewrites the log with only the puts of `live`, under a new epoch, when removed and replaced
/// records make up most of it.
pub fn compact_if_worth_it(root: &Path, reading: &Reading) -> Result<bool, IndexError> {
    let live: Records = reading
        .records
        .iter()
        .filter(|(_, s)| s.is_some())
        .map(|(id, s)| (*id, s.clone()))
        .collect();
    let live_bytes: u64 = live
        .iter()
        .filter_map(|(id, s)| Some(encode_put(*id, s.as_deref()?).len() as u64))
        .sum();
    if reading.offset < 2 * live_bytes + (1 << 20) {
        return Ok(false);
    }
    let locked = Locked::open(root)?;
    // Records appended since `reading` was read would be lost: leave those for another time.
    let end = locked.file.metadata().map_err(IndexError::io(&locked.path))?.len();
    if end != reading.offset {
        return Ok(false);
    }
    write_new(&locked.path, &live)?;
    drop(locked);
    Ok(true)
}

/// Writes a log holding `records`' puts under a new epoch, in place of any, in one rename.
fn write_new(path: &Path, records: &Records) -> Result<(), IndexError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
    let temp = dir.join(format!("{FILE}.new-{}", Uuid::new_v4()));
    let mut bytes = Vec::new();
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&Uuid::new_v4().as_u64_pair().0.max(1).to_le_bytes());
    for (id, summary) in records {
        if let Some(summary) = summary {
            bytes.extend_from_slice(&encode_put(*id, summary));
        }
    }
    let mut file = File::create(&temp).map_err(IndexError::io(&temp))?;
    file.write_all(&bytes).map_err(IndexError::io(&temp))?;
    file.sync_all().map_err(IndexError::io(&temp))?;
    std::fs::rename(&temp, path).map_err(IndexError::io(path))
}

/// The log's epoch, or `None` if the file is not a log of this version.
fn read_epoch(file: &File, path: &Path) -> Result<Option<u64>, IndexError> {
    let mut header = [0u8; HEADER_LEN as usize];
    match file.read_exact_at(&mut header, 0) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(IndexError::io(path)(e)),
    }
    let version = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
    let mut epoch = [0u8; 8];
    epoch.copy_from_slice(&header[8..16]);
    Ok((&header[..4] == MAGIC && version == VERSION).then_some(u64::from_le_bytes(epoch)))
}

/// The whole records from `offset` on, and where they end (a torn last record is left out).
fn read_records(file: &File, path: &Path, offset: u64) -> Result<(Vec<(DocumentId, Record)>, u64), IndexError> {
    let len = file.metadata().map_err(IndexError::io(path))?.len();
    if len <= offset {
        return Ok((Vec::new(), offset));
    }
    let mut bytes = vec![0u8; (len - offset) as usize];
    file.read_exact_at(&mut bytes, offset).map_err(IndexError::io(path))?;
    let mut records = Vec::new();
    let mut at = 0usize;
    while let Some(head) = bytes.get(at..at + 4) {
        let body_len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let Some(record) = bytes.get(at..at + body_len + 12) else {
            break;
        };
        let body = &record[4..4 + body_len];
        let whole = record[4 + body_len..8 + body_len] == head[..] && &record[8 + body_len..] == RECORD_END;
        let decoded = whole.then(|| decode(body)).flatten();
        records.push(decoded.ok_or_else(|| IndexError::Damaged {
            path: path.to_path_buf(),
            reason: format!("the record at byte {} cannot be read", offset + at as u64),
        })?);
        at += body_len + 12;
    }
    Ok((records, offset + at as u64))
}

fn encode_put(id: DocumentId, summary: &Summary) -> Vec<u8> {
    encode(id, PUT, Some(summary))
}

/// A record of `kind`, with its summary for a put.
fn encode(id: DocumentId, kind: u8, summary: Option<&Summary>) -> Vec<u8> {
    let mut body = vec![kind];
    body.extend_from_slice(id.0.as_bytes());
    if let Some(summary) = summary {
        body.extend_from_slice(&summary.chunks.to_le_bytes());
        match &summary.vectors {
            None => body.push(0),
            Some(c) => {
                body.push(1);
                let name = c.embedder.as_bytes();
                body.extend_from_slice(&(name.len().min(u16::MAX as usize) as u16).to_le_bytes());
                body.extend_from_slice(&name[..name.len().min(u16::MAX as usize)]);
                body.extend_from_slice(&(c.block.dimension() as u32).to_le_bytes());
                body.extend_from_slice(&(c.block.len() as u32).to_le_bytes());
                for scale in c.block.scales() {
                    body.extend_from_slice(&scale.to_le_bytes());
                }
                body.extend(c.block.codes().iter().map(|&code| code as u8));
            }
        }
    }
    let len = (body.len() as u32).to_le_bytes();
    [&len[..], &body, &len, RECORD_END].concat()
}

fn decode(body: &[u8]) -> Option<(DocumentId, Record)> {
    let mut r = Reader(body);
    let kind = r.take(1)?[0];
    let id = DocumentId(Uuid::from_slice(r.take(16)?).ok()?);
    match kind {
        REMOVAL => Some((id, Record::Removal)),
        FORGET => Some((id, Record::Forget)),
        PUT => {
            let chunks = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
            let vectors = match r.take(1)?[0] {
                0 => None,
                _ => {
                    let name_len = u16::from_le_bytes(r.take(2)?.try_into().ok()?) as usize;
                    let embedder = String::from_utf8(r.take(name_len)?.to_vec()).ok()?;
                    let dimension = r.u32()? as usize;
                    let count = r.u32()? as usize;
                    let scales = r.take(count.checked_mul(4)?)?;
                    let codes = r.take(count.checked_mul(dimension)?)?;
                    Some(Centroids {
                        embedder,
                        block: QuantizedBlock::from_le_bytes(dimension, scales, codes)?,
                    })
                }
            };
            Some((id, Record::Put(Summary { chunks, vectors })))
        }
        _ => None,
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// The log open for appending under its exclusive lock (`flock`), released when dropped.
struct Locked {
    file: File,
    path: PathBuf,
}

impl Locked {
    /// The log under `root`, locked.
    fn open(root: &Path) -> Result<Locked, IndexError> {
        let path = path(root);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .map_err(IndexError::io(&path))?;
        Locked::take(file, &path)
    }

    fn take(file: File, path: &Path) -> Result<Locked, IndexError> {
        // SAFETY: `file` is an open descriptor for the whole call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(IndexError::io(path)(std::io::Error::last_os_error()));
        }
        Ok(Locked {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends `records` after the last whole record (cutting off a torn one), then syncs;
    /// returns where the log ends.
    fn append(&self, records: &[Vec<u8>]) -> Result<u64, IndexError> {
        let io = |e| IndexError::io(&self.path)(e);
        let len = self.file.metadata().map_err(io)?.len();
        if !self.ends_whole(len)? {
            let (_, end) = read_records(&self.file, &self.path, HEADER_LEN)?;
            self.file.set_len(end).map_err(io)?;
        }
        let bytes = records.concat();
        (&self.file).write_all(&bytes).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        Ok(self.file.metadata().map_err(io)?.len())
    }

    /// Whether the log of `len` bytes ends with a whole record (or with its header).
    fn ends_whole(&self, len: u64) -> Result<bool, IndexError> {
        if len == HEADER_LEN {
            return Ok(true);
        }
        let mut tail = [0u8; 8];
        if len < HEADER_LEN + 12 {
            return Ok(false);
        }
        self.file
            .read_exact_at(&mut tail, len - 8)
            .map_err(IndexError::io(&self.path))?;
        let body_len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
        let Some(start) = len.checked_sub(body_len + 12).filter(|s| *s >= HEADER_LEN) else {
            return Ok(false);
        };
        let mut head = [0u8; 4];
        self.file
            .read_exact_at(&mut head, start)
            .map_err(IndexError::io(&self.path))?;
        Ok(&tail[4..] == RECORD_END && head == tail[..4])
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        // SAFETY: the descriptor is still open; unlocking cannot fail in a way that matters.
        unsafe { libc::flock(self.file.as_raw_fd(), libc::LOCK_UN) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(chunks: u64) -> Summary {
        Summary {
            chunks,
            vectors: Some(Centroids {
                embedder: "model/1".into(),
                block: QuantizedBlock::from_rows(&[1.0, 0.0, 0.0, 1.0], 2),
            }),
        }
    }

    fn read(root: &Path) -> Arc<Records> {
        let mut reading = Reading::default();
        assert!(reading.refresh(root).unwrap());
        reading.records
    }

    #[test]
    fn a_put_covers_unless_the_index_changed_since_it_was_read_and_a_torn_end_is_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (a, b) = (DocumentId::new_random(), DocumentId::new_random());
        // A library without a log records nothing.
        uncover(root, a).unwrap();
        assert!(!path(root).exists());
        create(root).unwrap();
        let since = append_removals(root, &[a, b]).unwrap();
        // The index of `b` changes after the keeper read it: its put is left out.
        uncover(root, b).unwrap();
        let covered = append_puts(root, since, vec![(a, summary(3)), (b, summary(4))]).unwrap();
        assert_eq!(covered, [a]);
        let records = read(root);
        let put = records[&a].as_ref().unwrap();
        assert_eq!(put.chunks, 3);
        let centroids = put.vectors.as_ref().unwrap();
        assert_eq!((centroids.embedder.as_str(), centroids.block.len()), ("model/1", 2));
        assert!(records[&b].is_none());

        // A process killed mid-append leaves a torn record: readers stop before it, and the next
        // append cuts it off.
        let mut file = OpenOptions::new().append(true).open(path(root)).unwrap();
        file.write_all(&encode_put(b, &summary(9))[..10]).unwrap();
        assert!(read(root)[&b].is_none());
        append_forgotten(root, &[a]).unwrap();
        let records = read(root);
        assert!(!records.contains_key(&a) && records.contains_key(&b));
    }

    #[test]
    fn compaction_keeps_the_puts_under_a_new_epoch() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        create(root).unwrap();
        let ids: Vec<DocumentId> = (0..40).map(|_| DocumentId::new_random()).collect();
        // Each document covered, uncovered and covered again many times: most of the log is dead.
        for _ in 0..400 {
            let since = append_removals(root, &ids).unwrap();
            append_puts(root, since, ids.iter().map(|id| (*id, summary(5))).collect()).unwrap();
        }
        let mut reading = Reading::default();
        reading.refresh(root).unwrap();
        let before = reading.offset;
        assert!(compact_if_worth_it(root, &reading).unwrap());
        let mut again = Reading::default();
        again.refresh(root).unwrap();
        assert!(again.offset < before / 10);
        assert_eq!(again.records.len(), 40);
        assert!(again
            .records
            .values()
            .all(|s| s.as_ref().is_some_and(|s| s.chunks == 5)));
        // A reader of the old log reads the new one from its start.
        reading.refresh(root).unwrap();
        assert_eq!(reading.records.len(), 40);
        assert_eq!(reading.offset, again.offset);
    }
}
