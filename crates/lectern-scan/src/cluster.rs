//! Spherical k-means: a few unit centroids that sum up a block of unit vectors (a document's
//! passages), so that a library can choose which documents to scan for a question without
//! reading them all.

use crate::dot::dot_f32;

/// Up to `k` unit centroids of `rows` (row-major, `dimension` wide, each of unit length), row
/// after row: `iterations` rounds of spherical k-means started from evenly spaced rows. A
/// centroid no row chose keeps its place. Fewer than `k` when `rows` holds fewer rows.
pub fn centroids(rows: &[f32], dimension: usize, k: usize, iterations: usize) -> Vec<f32> {
    let n = rows.len().checked_div(dimension).unwrap_or(0);
    let k = k.min(n);
    if k == 0 {
        return Vec::new();
    }
    let row = |i: usize| &rows[i * dimension..(i + 1) * dimension];
    let mut centres: Vec<f32> = (0..k).flat_map(|c| row(c * n / k).iter().copied()).collect();
    let mut nearest = vec![0usize; n];
    for _ in 0..iterations {
        for (i, choice) in nearest.iter_mut().enumerate() {
            let r = row(i);
            let mut best = (f32::MIN, 0);
            for (c, centre) in centres.chunks_exact(dimension).enumerate() {
                let score = dot_f32(r, centre);
                if score > best.0 {
                    best = (score, c);
                }
            }
            *choice = best.1;
        }
        let mut sums = vec![0f32; k * dimension];
        for (i, &c) in nearest.iter().enumerate() {
            for (s, x) in sums[c * dimension..(c + 1) * dimension].iter_mut().zip(row(i)) {
                *s += x;
            }
        }
        for (centre, sum) in centres.chunks_exact_mut(dimension).zip(sums.chunks_exact(dimension)) {
            let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
            if norm > 0.0 && norm.is_finite() {
                for (c, s) in centre.iter_mut().zip(sum) {
                    *c = s / norm;
                }
            }
        }
    }
    centres
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_groups_get_a_centroid_each() {
        // Three rows near the first axis, three near the second.
        let rows = [
            [1.0, 0.0],
            [0.98, 0.2],
            [0.98, -0.2],
            [0.0, 1.0],
            [0.2, 0.98],
            [-0.2, 0.98],
        ]
        .concat();
        let c = centroids(&rows, 2, 2, 5);
        assert_eq!(c.len(), 4);
        let near = |x: f32, y: f32| c.chunks_exact(2).any(|v| v[0] * x + v[1] * y > 0.99);
        assert!(near(1.0, 0.0) && near(0.0, 1.0), "{c:?}");
        assert_eq!(centroids(&rows[..2], 2, 5, 3).len(), 2, "one row, one centroid");
        assert!(centroids(&[], 2, 5, 3).is_empty());
    }
}
