//! `vectors.block`: a document's vectors laid out for the query path, next to the LanceDB table
//! they are derived from (which stays the store of record: a missing or damaged block is rebuilt
//! from it).
//!
//! Layout, little-endian: a header (`LCVB`, format, dimension, row count, a random stamp that
//! changes with every build), then per row the chunk id (24 ASCII hex digits), page, start and end
//! character; then one `f32` scale per row and the `i8` codes of every row (what a query keeps
//! resident and scans); then the exact `f32` rows, read back only for the few candidates that
//! are rescored.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, UInt32Type};
use arrow_array::{Array, RecordBatch};
use futures::TryStreamExt;
use lancedb::query::ExecutableQuery;
use lectern_scan::QuantizedBlock;

use super::vectors::TABLE;
use super::IndexError;
use crate::chunk::Chunk;

/// The block's file name inside an index directory.
pub const BLOCK_FILE: &str = "vectors.block";
const MAGIC: &[u8; 4] = b"LCVB";
const FORMAT: u32 = 1;
const HEADER_LEN: u64 = 4 + 4 + 4 + 4 + 8;
/// Chunk ids are 24 hex digits (12 bytes of a SHA-256).
pub const CHUNK_ID_LEN: usize = 24;
const ROW_META_LEN: u64 = CHUNK_ID_LEN as u64 + 12;

/// Where a row's chunk is in the PDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowMeta {
    pub chunk_id: [u8; CHUNK_ID_LEN],
    pub page: u32,
    pub char_start: u32,
    pub char_end: u32,
}

impl RowMeta {
    /// The chunk id as text.
    pub fn chunk_id(&self) -> &str {
        std::str::from_utf8(&self.chunk_id).unwrap_or("")
    }
}

/// The resident part of a block: the quantised vectors (row positions stay on disk until a row
/// is a candidate).
#[derive(Debug, Clone)]
pub struct ResidentBlock {
    pub stamp: u64,
    pub vectors: QuantizedBlock,
}

/// Writes the block of the LanceDB table in `index_dir/vectors` into `index_dir`.
pub async fn write_from_table(index_dir: &Path, dimension: usize) -> Result<(), IndexError> {
    let (rows, vectors) = read_table(&index_dir.join("vectors"), dimension).await?;
    write(index_dir, dimension, &rows, &vectors)
}

/// The vectors of `chunks` (the index's passages) from the LanceDB table in `index_dir/vectors`,
/// in their order and at unit length.
pub async fn vectors_of_chunks(
    index_dir: &Path,
    dimension: usize,
    chunks: &[Chunk],
) -> Result<Vec<Vec<f32>>, IndexError> {
    let dir = index_dir.join("vectors");
    let (rows, flat) = read_table(&dir, dimension).await?;
    let by_id: HashMap<&str, usize> = rows.iter().enumerate().map(|(i, r)| (r.chunk_id(), i)).collect();
    chunks
        .iter()
        .map(|chunk| {
            let row = by_id
                .get(chunk.id.0.as_str())
                .ok_or_else(|| malformed(&dir, format!("no vector for passage {}", chunk.id)))?;
            let mut v = flat
                .get(row * dimension..(row + 1) * dimension)
                .ok_or_else(|| malformed(&dir, "fewer vectors than rows"))?
                .to_vec();
            normalize(&mut v);
            Ok(v)
        })
        .collect()
}

/// Reads every row of the chunk table: positions and the flat row-major vectors.
async fn read_table(dir: &Path, dimension: usize) -> Result<(Vec<RowMeta>, Vec<f32>), IndexError> {
    let db = lancedb::connect(&dir.to_string_lossy()).execute().await?;
    let table = db.open_table(TABLE).execute().await?;
    let batches: Vec<RecordBatch> = table.query().execute().await?.try_collect().await?;
    let mut rows = Vec::new();
    let mut vectors = Vec::new();
    for batch in &batches {
        let column = |name: &str| {
            batch
                .column_by_name(name)
                .ok_or_else(|| malformed(dir, format!("no column {name}")))
        };
        let ids = column("chunk_id")?
            .as_string_opt::<i32>()
            .ok_or_else(|| malformed(dir, "chunk_id"))?;
        let page = column("page")?
            .as_primitive_opt::<UInt32Type>()
            .ok_or_else(|| malformed(dir, "page"))?;
        let start = column("char_start")?
            .as_primitive_opt::<UInt32Type>()
            .ok_or_else(|| malformed(dir, "char_start"))?;
        let end = column("char_end")?
            .as_primitive_opt::<UInt32Type>()
            .ok_or_else(|| malformed(dir, "char_end"))?;
        let vector = column("vector")?
            .as_fixed_size_list_opt()
            .ok_or_else(|| malformed(dir, "vector"))?;
        if vector.value_length() as usize != dimension {
            return Err(malformed(
                dir,
                format!("vectors have {} dimensions", vector.value_length()),
            ));
        }
        let values = vector
            .values()
            .as_primitive_opt::<Float32Type>()
            .ok_or_else(|| malformed(dir, "vector values"))?;
        let offset = vector.offset() * dimension;
        vectors.extend_from_slice(&values.values()[offset..offset + vector.len() * dimension]);
        for i in 0..batch.num_rows() {
            let id = ids.value(i).as_bytes();
            let chunk_id: [u8; CHUNK_ID_LEN] = id
                .try_into()
                .map_err(|_| malformed(dir, format!("chunk id {:?}", ids.value(i))))?;
            rows.push(RowMeta {
                chunk_id,
                page: page.value(i),
                char_start: start.value(i),
                char_end: end.value(i),
            });
        }
    }
    Ok((rows, vectors))
}

fn malformed(dir: &Path, what: impl std::fmt::Display) -> IndexError {
    IndexError::Damaged {
        path: dir.to_path_buf(),
        reason: format!("the vector table is malformed: {what}"),
    }
}

/// Writes a block file (through a temporary name, then renamed, so readers never see half a file).
///
/// Vectors are stored at unit length, so that a dot product is the cosine similarity.
pub fn write(index_dir: &Path, dimension: usize, rows: &[RowMeta], vectors: &[f32]) -> Result<(), IndexError> {
    let mut vectors = vectors.to_vec();
    vectors.chunks_exact_mut(dimension.max(1)).for_each(normalize);
    let quantized = QuantizedBlock::from_rows(&vectors, dimension);
    let mut out = Vec::with_capacity(HEADER_LEN as usize + rows.len() * (24 + 4 + dimension * 5));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    out.extend_from_slice(&(dimension as u32).to_le_bytes());
    out.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    out.extend_from_slice(&uuid::Uuid::new_v4().as_u64_pair().0.to_le_bytes());
    for r in rows {
        out.extend_from_slice(&r.chunk_id);
        for v in [r.page, r.char_start, r.char_end] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for s in quantized.scales() {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.extend(quantized.codes().iter().map(|c| c.to_le_bytes()[0]));
    for v in &vectors {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let temp = index_dir.join(format!("{BLOCK_FILE}.tmp"));
    let path = index_dir.join(BLOCK_FILE);
    let mut file = File::create(&temp).map_err(IndexError::io(&temp))?;
    file.write_all(&out)
        .and_then(|_| file.sync_all())
        .map_err(IndexError::io(&temp))?;
    std::fs::rename(&temp, &path).map_err(IndexError::io(&path))
}

struct Header {
    dimension: usize,
    count: usize,
    stamp: u64,
}

impl Header {
    /// Where row `row`'s position is; `meta_offset(count)` is where the scales begin.
    fn meta_offset(&self, row: usize) -> u64 {
        HEADER_LEN + row as u64 * ROW_META_LEN
    }

    fn f32_offset(&self) -> u64 {
        HEADER_LEN + self.count as u64 * (ROW_META_LEN + 4) + (self.count * self.dimension) as u64
    }

    fn file_len(&self) -> u64 {
        self.f32_offset() + (self.count * self.dimension * 4) as u64
    }
}

fn read_header(file: &File, path: &Path) -> Result<Header, IndexError> {
    let mut bytes = [0u8; HEADER_LEN as usize];
    file.read_exact_at(&mut bytes, 0).map_err(IndexError::io(path))?;
    let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    if &bytes[..4] != MAGIC || u32_at(4) != FORMAT {
        return Err(damaged(path, "not a vector block of this format"));
    }
    let mut stamp = [0u8; 8];
    stamp.copy_from_slice(&bytes[16..24]);
    let header = Header {
        dimension: u32_at(8) as usize,
        count: u32_at(12) as usize,
        stamp: u64::from_le_bytes(stamp),
    };
    let len = file.metadata().map_err(IndexError::io(path))?.len();
    if len != header.file_len() {
        return Err(damaged(
            path,
            format!("{len} bytes where {} were expected", header.file_len()),
        ));
    }
    Ok(header)
}

fn damaged(path: &Path, reason: impl std::fmt::Display) -> IndexError {
    IndexError::Damaged {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    }
}

/// Reads the block in `index_dir` as [`read_resident`] does, and checks that it holds the
/// `chunks` rows its manifest counts.
pub fn read_counted(index_dir: &Path, dimension: usize, chunks: u64) -> Result<ResidentBlock, IndexError> {
    let block = read_resident(index_dir, dimension)?;
    if block.vectors.len() as u64 != chunks {
        return Err(damaged(
            &index_dir.join(BLOCK_FILE),
            format!(
                "the block holds {} rows, the manifest counts {chunks} chunks",
                block.vectors.len()
            ),
        ));
    }
    Ok(block)
}

/// Reads the resident part of the block in `index_dir`: scales and codes.
pub fn read_resident(index_dir: &Path, dimension: usize) -> Result<ResidentBlock, IndexError> {
    let path = index_dir.join(BLOCK_FILE);
    // The handle is dropped at the end: a library of thousands of documents would run out of
    // file descriptors if every block kept one.
    let file = File::open(&path).map_err(IndexError::io(&path))?;
    let header = read_header(&file, &path)?;
    if header.dimension != dimension {
        return Err(damaged(
            &path,
            format!("{} dimensions, the index has {dimension}", header.dimension),
        ));
    }
    let start = header.meta_offset(header.count);
    let mut bytes = vec![0u8; (header.f32_offset() - start) as usize];
    file.read_exact_at(&mut bytes, start).map_err(IndexError::io(&path))?;
    let (scales, codes) = bytes.split_at(header.count * 4);
    let vectors = QuantizedBlock::from_le_bytes(dimension, scales, codes)
        .ok_or_else(|| damaged(&path, "the quantised rows do not match the row count"))?;
    Ok(ResidentBlock {
        stamp: header.stamp,
        vectors,
    })
}

fn parse_meta(m: &[u8]) -> RowMeta {
    let u32_at = |i: usize| u32::from_le_bytes([m[i], m[i + 1], m[i + 2], m[i + 3]]);
    let mut chunk_id = [0u8; CHUNK_ID_LEN];
    chunk_id.copy_from_slice(&m[..CHUNK_ID_LEN]);
    RowMeta {
        chunk_id,
        page: u32_at(CHUNK_ID_LEN),
        char_start: u32_at(CHUNK_ID_LEN + 4),
        char_end: u32_at(CHUNK_ID_LEN + 8),
    }
}

/// Opens the block in `index_dir` if it is still the block stamped `stamp` (`None` when the
/// index was rebuilt or removed since it was loaded).
fn open_stamped(index_dir: &Path, stamp: u64) -> Result<Option<(File, Header)>, IndexError> {
    let path = index_dir.join(BLOCK_FILE);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(IndexError::io(&path)(e)),
    };
    let header = read_header(&file, &path)?;
    Ok((header.stamp == stamp).then_some((file, header)))
}

/// The positions of every row of the block stamped `stamp`.
pub fn read_meta(index_dir: &Path, stamp: u64) -> Result<Option<Vec<RowMeta>>, IndexError> {
    let Some((file, header)) = open_stamped(index_dir, stamp)? else {
        return Ok(None);
    };
    let mut bytes = vec![0u8; header.count * ROW_META_LEN as usize];
    file.read_exact_at(&mut bytes, HEADER_LEN)
        .map_err(IndexError::io(index_dir.join(BLOCK_FILE)))?;
    Ok(Some(
        bytes.chunks_exact(ROW_META_LEN as usize).map(parse_meta).collect(),
    ))
}

/// One row read back exactly: its position and its unit-length vector.
pub type ExactRow = (RowMeta, Vec<f32>);

/// Reads the positions and exact vectors of `rows` from the block stamped `stamp`.
pub fn read_exact(index_dir: &Path, stamp: u64, rows: &[u32]) -> Result<Option<Vec<ExactRow>>, IndexError> {
    let path = index_dir.join(BLOCK_FILE);
    let Some((file, header)) = open_stamped(index_dir, stamp)? else {
        return Ok(None);
    };
    let mut meta = [0u8; ROW_META_LEN as usize];
    let mut bytes = vec![0u8; header.dimension * 4];
    let mut out = Vec::with_capacity(rows.len());
    for &row in rows {
        if row as usize >= header.count {
            return Err(damaged(&path, format!("row {row} of {}", header.count)));
        }
        file.read_exact_at(&mut meta, header.meta_offset(row as usize))
            .map_err(IndexError::io(&path))?;
        let offset = header.f32_offset() + (row as usize * header.dimension * 4) as u64;
        file.read_exact_at(&mut bytes, offset).map_err(IndexError::io(&path))?;
        let vector = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        out.push((parse_meta(&meta), vector));
    }
    Ok(Some(out))
}

/// Every exact row of the block in `index_dir`, row after row, checked against the manifest's
/// dimension and row count.
pub fn read_rows(index_dir: &Path, dimension: usize, chunks: u64) -> Result<Vec<f32>, IndexError> {
    let path = index_dir.join(BLOCK_FILE);
    let file = File::open(&path).map_err(IndexError::io(&path))?;
    let header = read_header(&file, &path)?;
    if header.dimension != dimension || header.count as u64 != chunks {
        return Err(damaged(
            &path,
            format!(
                "{} rows of {} dimensions, the manifest counts {chunks} of {dimension}",
                header.count, header.dimension
            ),
        ));
    }
    let mut bytes = vec![0u8; header.count * dimension * 4];
    file.read_exact_at(&mut bytes, header.f32_offset())
        .map_err(IndexError::io(&path))?;
    Ok(bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// The stamp of the block in `index_dir` as it is now, if there is one.
pub fn read_stamp(index_dir: &Path) -> Result<Option<u64>, IndexError> {
    let path = index_dir.join(BLOCK_FILE);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(IndexError::io(&path)(e)),
    };
    Ok(Some(read_header(&file, &path)?.stamp))
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
