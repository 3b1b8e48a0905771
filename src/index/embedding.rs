//! Giving a published keyword index its vectors: its chunks are read back from the keyword index
//! in order and embedded in batches, each batch's vectors appended to a scratch file
//! (`.embed-<id>/`) as it comes, so that a restart goes on from the last batch written; then the
//! vector table and block are written beside links to the keyword index, and the whole replaces
//! the keyword-only index in one step. Memory holds one batch, not the document.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use tokio::runtime::Handle;

use super::build::BuildError;
use super::dirs::{link_tree, IndexDirs};
use super::keywords::StoredChunks;
use super::manifest::Manifest;
use super::ocr_pages::OCR_DIR;
use super::vectors::VectorWriter;
use super::IndexError;
use crate::catalog::DocumentId;
use crate::chunk::Chunk;
use crate::embed::{EmbedError, Embedder};

/// Chunks embedded and written together: what a restart may have to embed again.
const BATCH: usize = 32;

/// Everything one embedding run needs.
pub struct EmbedInput<'a> {
    pub id: DocumentId,
    pub embedder: &'a dyn Embedder,
    pub cancel: &'a AtomicBool,
}

/// Progress of an embedding run, reported after every batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedProgress {
    pub chunks_done: u64,
    pub chunks_total: u64,
    /// Chunks whose vectors an earlier, interrupted run had written.
    pub resumed_from: u64,
}

/// Embeds the chunks of the published index of `input.id` and publishes the index again with
/// its vectors. The scratch file is kept on failure (a restart goes on from it) and removed once
/// the index is published.
pub fn embed(
    dirs: &IndexDirs,
    input: EmbedInput<'_>,
    runtime: &Handle,
    on_progress: &mut dyn FnMut(EmbedProgress),
) -> Result<Manifest, BuildError> {
    let dir = dirs.dir(input.id);
    let keyword_only = Manifest::read(&dir)?;
    let chunks = StoredChunks::open(&dir.join("keywords"))?;
    if chunks.len() as u64 != keyword_only.chunk_count {
        return Err(IndexError::Damaged {
            path: dir.join("keywords"),
            reason: format!(
                "it holds {} passages, the manifest counts {}",
                chunks.len(),
                keyword_only.chunk_count
            ),
        }
        .into());
    }
    let about = About {
        content_hash: keyword_only.content_hash.clone(),
        keywords_made_at: keyword_only.created_at,
        embedder: input.embedder.id(),
        dimension: input.embedder.dimension(),
        chunks: chunks.len(),
    };
    let scratch = Scratch::open(&dirs.scratch(input.id), &about)?;
    let resumed_from = scratch.rows;
    let mut progress = EmbedProgress {
        chunks_done: resumed_from as u64,
        chunks_total: chunks.len() as u64,
        resumed_from: resumed_from as u64,
    };
    on_progress(progress);
    let mut scratch = scratch;
    for start in (resumed_from..chunks.len()).step_by(BATCH) {
        if input.cancel.load(Ordering::Relaxed) {
            return Err(BuildError::Cancelled);
        }
        let batch = chunks.read(start..(start + BATCH).min(chunks.len()))?;
        let searchable: Vec<String> = batch.iter().map(Chunk::searchable_text).collect();
        let texts: Vec<&str> = searchable.iter().map(String::as_str).collect();
        let vectors = input.embedder.embed(&texts)?;
        if vectors.len() != batch.len() {
            return Err(EmbedError::Dimension {
                expected: batch.len(),
                got: vectors.len(),
            }
            .into());
        }
        scratch.append(&vectors)?;
        progress.chunks_done = scratch.rows as u64;
        on_progress(progress);
    }
    let manifest = Manifest {
        embedder: Some(about.embedder.clone()),
        dimension: Some(about.dimension),
        ..keyword_only
    };
    let temp = dirs.begin(input.id)?;
    let published =
        write_vectors(&temp, &dir, &chunks, &scratch, &manifest, runtime).and_then(|()| dirs.replace(input.id, &temp));
    if let Err(e) = published {
        let _ = fs::remove_dir_all(&temp);
        return Err(e.into());
    }
    scratch.remove();
    Ok(manifest)
}

/// Writes into `temp` the full index: links to the keyword index of `published`, the vector
/// table and block of `chunks` and the vectors in `scratch`, and `manifest`.
fn write_vectors(
    temp: &Path,
    published: &Path,
    chunks: &StoredChunks,
    scratch: &Scratch,
    manifest: &Manifest,
    runtime: &Handle,
) -> Result<(), IndexError> {
    let keywords = temp.join("keywords");
    fs::create_dir_all(&keywords).map_err(IndexError::io(&keywords))?;
    link_tree(&published.join("keywords"), &keywords)?;
    let ocr = published.join(OCR_DIR);
    if ocr.exists() {
        let target = temp.join(OCR_DIR);
        fs::create_dir_all(&target).map_err(IndexError::io(&target))?;
        link_tree(&ocr, &target)?;
    }
    let dimension = scratch.about.dimension;
    let mut table = runtime.block_on(VectorWriter::create(&temp.join("vectors"), dimension))?;
    for start in (0..chunks.len()).step_by(BATCH) {
        let end = (start + BATCH).min(chunks.len());
        let batch = chunks.read(start..end)?;
        let vectors = scratch.read(start..end)?;
        runtime.block_on(table.append(&batch, &vectors))?;
    }
    runtime.block_on(table.finish())?;
    runtime.block_on(super::block::write_from_table(temp, dimension))?;
    manifest.write(temp)
}

/// What a scratch file holds the vectors of: the keyword index they were made from, and the
/// model. A scratch file about anything else is started again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct About {
    content_hash: String,
    keywords_made_at: i64,
    embedder: String,
    dimension: usize,
    chunks: usize,
}

/// Whether the scratch directory `scratch` holds vectors still to be published for the index in
/// `index_dir`: made from that keyword index, by a model whose vectors it does not hold yet.
pub(super) fn scratch_is_wanted(scratch: &Path, index_dir: &Path) -> bool {
    let (Ok(manifest), Some(about)) = (Manifest::read(index_dir), About::read(scratch)) else {
        return false;
    };
    about.content_hash == manifest.content_hash
        && about.keywords_made_at == manifest.created_at
        && manifest.embedder.as_deref() != Some(about.embedder.as_str())
}

impl About {
    fn read(scratch: &Path) -> Option<About> {
        let bytes = fs::read(scratch.join(ABOUT_FILE)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

const ABOUT_FILE: &str = "about.json";
const ROWS_FILE: &str = "vectors.f32";

/// The vectors made so far: whole rows of `dimension` little-endian `f32`, in chunk order.
struct Scratch {
    dir: PathBuf,
    about: About,
    file: File,
    rows: usize,
}

impl Scratch {
    /// Opens the scratch directory `dir` if it is about `about`, else starts it afresh; a row
    /// written in part by a process that stopped is dropped.
    fn open(dir: &Path, about: &About) -> Result<Scratch, IndexError> {
        let about_path = dir.join(ABOUT_FILE);
        let rows_path = dir.join(ROWS_FILE);
        let same = About::read(dir).is_some_and(|found| found == *about);
        if !same {
            if dir.exists() {
                fs::remove_dir_all(dir).map_err(IndexError::io(dir))?;
            }
            fs::create_dir_all(dir).map_err(IndexError::io(dir))?;
            File::create(&rows_path).map_err(IndexError::io(&rows_path))?;
            let json = serde_json::to_vec(about).map_err(|e| IndexError::io(&about_path)(std::io::Error::other(e)))?;
            write_synced(&about_path, &json)?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&rows_path)
            .map_err(IndexError::io(&rows_path))?;
        let row_bytes = (about.dimension * 4) as u64;
        let len = file.metadata().map_err(IndexError::io(&rows_path))?.len();
        let rows = (len / row_bytes.max(1)).min(about.chunks as u64);
        file.set_len(rows * row_bytes).map_err(IndexError::io(&rows_path))?;
        Ok(Scratch {
            dir: dir.to_path_buf(),
            about: about.clone(),
            file,
            rows: rows as usize,
        })
    }

    /// Appends rows and flushes them to disk.
    fn append(&mut self, vectors: &[Vec<f32>]) -> Result<(), BuildError> {
        let dimension = self.about.dimension;
        let mut bytes = Vec::with_capacity(vectors.len() * dimension * 4);
        for v in vectors {
            if v.len() != dimension {
                return Err(EmbedError::Dimension {
                    expected: dimension,
                    got: v.len(),
                }
                .into());
            }
            bytes.extend(v.iter().flat_map(|x| x.to_le_bytes()));
        }
        let path = self.dir.join(ROWS_FILE);
        let offset = (self.rows * dimension * 4) as u64;
        self.file
            .write_all_at(&bytes, offset)
            .and_then(|()| self.file.sync_data())
            .map_err(IndexError::io(&path))?;
        self.rows += vectors.len();
        Ok(())
    }

    /// The rows at `range`.
    fn read(&self, range: std::ops::Range<usize>) -> Result<Vec<Vec<f32>>, IndexError> {
        let dimension = self.about.dimension;
        let mut bytes = vec![0u8; range.len() * dimension * 4];
        self.file
            .read_exact_at(&mut bytes, (range.start * dimension * 4) as u64)
            .map_err(IndexError::io(self.dir.join(ROWS_FILE)))?;
        Ok(bytes
            .chunks_exact(dimension * 4)
            .map(|row| {
                row.chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .collect()
            })
            .collect())
    }

    /// Removes the scratch directory; one left behind is removed at the next start.
    fn remove(self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    let mut file = File::create(path).map_err(IndexError::io(path))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(IndexError::io(path))
}
