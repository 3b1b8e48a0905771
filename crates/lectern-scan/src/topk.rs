//! A bounded collector of the best candidates, with an explicit tie-break so results never
//! depend on scan order: higher score first, then lower block, then lower row.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One scored row of one block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub score: f32,
    pub block: u32,
    pub row: u32,
}

impl Candidate {
    /// `Less` means `self` ranks before `other`.
    fn rank_cmp(&self, other: &Candidate) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.block.cmp(&other.block))
            .then(self.row.cmp(&other.row))
    }
}

/// Heap entry whose maximum is the worst kept candidate.
#[derive(Debug, Clone, Copy)]
struct Worst(Candidate);

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worst {}
impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.rank_cmp(&other.0)
    }
}

/// Keeps the `k` best candidates offered to it.
#[derive(Debug, Clone)]
pub struct TopK {
    k: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    /// A collector of at most `k` candidates.
    pub fn new(k: usize) -> TopK {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k + 1),
        }
    }

    /// Offers one candidate; kept if it ranks among the best `k` so far.
    #[inline]
    pub fn offer(&mut self, candidate: Candidate) {
        if self.heap.len() < self.k {
            self.heap.push(Worst(candidate));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if candidate.rank_cmp(&worst.0) == Ordering::Less {
                *worst = Worst(candidate);
            }
        }
    }

    /// Adds every candidate another collector kept (per-thread collect, then merge).
    pub fn merge(&mut self, other: TopK) {
        for w in other.heap {
            self.offer(w.0);
        }
    }

    /// The kept candidates, best first.
    pub fn into_sorted(self) -> Vec<Candidate> {
        let mut v: Vec<Candidate> = self.heap.into_iter().map(|w| w.0).collect();
        v.sort_by(Candidate::rank_cmp);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn keeps_the_same_best_k_as_a_full_sort(
            scores in prop::collection::vec(-3i32..3, 0..200),
            k in 0usize..20,
            split in 0usize..200,
        ) {
            let all: Vec<Candidate> = scores.iter().enumerate()
                .map(|(i, s)| Candidate { score: *s as f32, block: (i % 3) as u32, row: i as u32 })
                .collect();
            let split = split.min(all.len());
            let mut a = TopK::new(k);
            let mut b = TopK::new(k);
            all[..split].iter().for_each(|c| a.offer(*c));
            all[split..].iter().for_each(|c| b.offer(*c));
            a.merge(b);
            let mut expected = all.clone();
            expected.sort_by(Candidate::rank_cmp);
            expected.truncate(k);
            prop_assert_eq!(a.into_sorted(), expected);
        }
    }
}
