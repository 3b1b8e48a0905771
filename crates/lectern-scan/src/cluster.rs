//! Spherical k-means: a few unit centroids that sum up a block of unit vectors (a document's
//! passages), so that a library can choose which documents to scan for a question without
//! reading them all.

use crate::dot::dot_f32;
use crate::quantize::{QuantizedBlock, QuantizedQuery};

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

/// Of `groups` (each the centroids of a group of rows, and how many rows it holds), the
/// positions of those whose best centroid comes nearest `query`, best first (ties by position),
/// until they hold at least `budget` rows: the groups whose rows to scan for the query.
pub fn nearest_groups(groups: &[(&QuantizedBlock, u64)], query: &QuantizedQuery, budget: u64) -> Vec<usize> {
    let mut scored: Vec<(f32, usize)> = groups
        .iter()
        .enumerate()
        .map(|(i, (centres, _))| (centres.best(query), i))
        .collect();
    scored.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut held = 0u64;
    scored
        .into_iter()
        .take_while(|&(_, i)| {
            let more = held < budget;
            held += groups[i].1;
            more
        })
        .map(|(_, i)| i)
        .collect()
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

    #[test]
    fn the_nearest_groups_are_taken_until_they_hold_the_budget() {
        let axis = |x: f32, y: f32| QuantizedBlock::from_rows(&[x, y], 2);
        let (east, north, west) = (axis(1.0, 0.0), axis(0.0, 1.0), axis(-1.0, 0.0));
        let groups = [(&west, 10), (&north, 10), (&east, 10)];
        let query = QuantizedQuery::new(&[0.9, 0.3]);
        assert_eq!(nearest_groups(&groups, &query, 5), [2], "one group holds the budget");
        assert_eq!(
            nearest_groups(&groups, &query, 11),
            [2, 1],
            "the next nearest makes it up"
        );
        assert_eq!(nearest_groups(&groups, &query, 100), [2, 1, 0]);
        assert!(nearest_groups(&[], &query, 100).is_empty());
    }
}
