//! Symmetric per-row int8 quantisation: `x[i] ≈ code[i] * scale`, with `scale = max|x| / 127`.

use crate::dot::dot_i8;
use crate::topk::{Candidate, TopK};

/// A quantised query vector.
#[derive(Debug, Clone)]
pub struct QuantizedQuery {
    codes: Vec<i8>,
    scale: f32,
}

impl QuantizedQuery {
    /// Quantises `query` (any length; it must match the blocks it is scanned against).
    pub fn new(query: &[f32]) -> QuantizedQuery {
        let (scale, codes) = quantize_row(query);
        QuantizedQuery { codes, scale }
    }

    /// The number of dimensions.
    pub fn dimension(&self) -> usize {
        self.codes.len()
    }
}

/// The rows of one vector block, quantised.
#[derive(Debug, Clone, Default)]
pub struct QuantizedBlock {
    dimension: usize,
    scales: Vec<f32>,
    codes: Vec<i8>,
}

impl QuantizedBlock {
    /// Quantises `rows`, a row-major matrix of `rows.len() / dimension` vectors.
    ///
    /// A trailing partial row (when `rows.len()` is not a multiple of `dimension`) is ignored.
    pub fn from_rows(rows: &[f32], dimension: usize) -> QuantizedBlock {
        let count = rows.len().checked_div(dimension).unwrap_or(0);
        let mut scales = Vec::with_capacity(count);
        let mut codes = Vec::with_capacity(count * dimension);
        for row in rows.chunks_exact(dimension.max(1)).take(count) {
            let (scale, row_codes) = quantize_row(row);
            scales.push(scale);
            codes.extend_from_slice(&row_codes);
        }
        QuantizedBlock {
            dimension,
            scales,
            codes,
        }
    }

    /// A block from its stored bytes: the rows' scales (little-endian `f32`) and their codes
    /// (one byte each, two's complement); `None` unless there is one scale per row and
    /// `dimension` codes per row. Decoded here, in a crate built with optimisations in every
    /// profile: opening a library's thousand blocks decodes over a hundred megabytes.
    pub fn from_le_bytes(dimension: usize, scales: &[u8], codes: &[u8]) -> Option<QuantizedBlock> {
        if !scales.len().is_multiple_of(4) || (scales.len() / 4) * dimension != codes.len() {
            return None;
        }
        Some(QuantizedBlock {
            dimension,
            scales: scales
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            codes: codes.iter().map(|&b| b as i8).collect(),
        })
    }

    /// One scale per row.
    pub fn scales(&self) -> &[f32] {
        &self.scales
    }

    /// The codes of every row, row after row.
    pub fn codes(&self) -> &[i8] {
        &self.codes
    }

    /// The number of rows.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether the block holds no rows.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// The number of dimensions of each row.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Bytes held on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.scales.capacity() * std::mem::size_of::<f32>() + self.codes.capacity()
    }

    /// The highest approximate dot product of `query` with any row (`f32::MIN` for none, or
    /// when the dimensions differ).
    pub fn best(&self, query: &QuantizedQuery) -> f32 {
        if query.dimension() != self.dimension || self.dimension == 0 {
            return f32::MIN;
        }
        self.codes
            .chunks_exact(self.dimension)
            .zip(&self.scales)
            .map(|(codes, scale)| dot_i8(&query.codes, codes) as f32 * scale * query.scale)
            .fold(f32::MIN, f32::max)
    }

    /// The approximate dot product of `query` with every row, offered to `top` tagged with
    /// `block` so that candidates from several blocks can share one collector.
    ///
    /// Rows are skipped when the dimensions differ (nothing is comparable then).
    pub fn scan(&self, query: &QuantizedQuery, block: u32, top: &mut TopK) {
        if query.dimension() != self.dimension || self.dimension == 0 {
            return;
        }
        for (row, (codes, scale)) in self.codes.chunks_exact(self.dimension).zip(&self.scales).enumerate() {
            let score = dot_i8(&query.codes, codes) as f32 * scale * query.scale;
            top.offer(Candidate {
                score,
                block,
                row: row as u32,
            });
        }
    }
}

fn quantize_row(row: &[f32]) -> (f32, Vec<i8>) {
    let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return (0.0, vec![0; row.len()]);
    }
    let scale = max / 127.0;
    let codes = row
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (scale, codes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dot::dot_f32;
    use proptest::prelude::*;

    fn unit(v: Vec<f32>) -> Vec<f32> {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        v.into_iter().map(|x| x / norm).collect()
    }

    proptest! {
        #[test]
        fn quantised_scores_stay_close_to_exact(
            q in prop::collection::vec(-1.0f32..1.0, 384),
            rows in prop::collection::vec(prop::collection::vec(-1.0f32..1.0, 384), 1..20),
        ) {
            let q = unit(q);
            let rows: Vec<Vec<f32>> = rows.into_iter().map(unit).collect();
            let flat: Vec<f32> = rows.iter().flatten().copied().collect();
            let block = QuantizedBlock::from_rows(&flat, 384);
            let mut top = TopK::new(rows.len());
            block.scan(&QuantizedQuery::new(&q), 0, &mut top);
            for c in top.into_sorted() {
                let exact = dot_f32(&q, &rows[c.row as usize]);
                prop_assert!((exact - c.score).abs() < 0.02, "exact {} vs {}", exact, c.score);
            }
        }
    }

    #[test]
    fn zero_and_mismatched_vectors_are_harmless() {
        let block = QuantizedBlock::from_rows(&[0.0; 8], 4);
        assert_eq!(block.len(), 2);
        let mut top = TopK::new(5);
        block.scan(&QuantizedQuery::new(&[1.0, 0.0, 0.0, 0.0]), 0, &mut top);
        assert!(top.into_sorted().iter().all(|c| c.score == 0.0));
        let mut top = TopK::new(5);
        block.scan(&QuantizedQuery::new(&[1.0, 0.0]), 0, &mut top);
        assert!(top.into_sorted().is_empty());
    }

    #[test]
    fn a_block_read_back_from_its_bytes_is_the_same_block() {
        let block = QuantizedBlock::from_rows(&[0.5, -0.25, 1.0, 0.0, -1.0, 0.75], 3);
        let scales: Vec<u8> = block.scales().iter().flat_map(|s| s.to_le_bytes()).collect();
        let codes: Vec<u8> = block.codes().iter().map(|&c| c as u8).collect();
        let read = QuantizedBlock::from_le_bytes(3, &scales, &codes).unwrap();
        assert_eq!((read.scales(), read.codes()), (block.scales(), block.codes()));
        assert!(read.codes().iter().any(|&c| c < 0));
        // A scale too few, a code too many, a scale cut short: not a block.
        assert!(QuantizedBlock::from_le_bytes(3, &scales[4..], &codes).is_none());
        assert!(QuantizedBlock::from_le_bytes(3, &scales, &[codes.as_slice(), &[0]].concat()).is_none());
        assert!(QuantizedBlock::from_le_bytes(3, &scales[1..], &codes).is_none());
    }
}
