//! Pages, not passages: the results are distinct pages, each scored by its best passage and shown
//! with it, so that the top `k` are `k` places to look rather than neighbouring windows of one
//! page.

use std::collections::HashSet;

use super::merge::Ranked;

/// The best passage of each page of `ranked` (already in rank order), in that order.
pub fn best_per_page(ranked: Vec<Ranked>) -> Vec<Ranked> {
    let mut seen: HashSet<(usize, u32)> = HashSet::new();
    ranked.into_iter().filter(|r| seen.insert((r.doc, r.page))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{Found, Located};
    use crate::search::merge::ranked;

    fn passage(doc: usize, page: u32, start: u32, score: f32) -> Ranked {
        let located = Located {
            chunk_id: format!("{doc}-{page}-{start}"),
            page,
            char_start: start,
            char_end: start + 10,
        };
        ranked(Found {
            doc,
            located,
            key: None,
            score,
        })
    }

    #[test]
    fn each_page_keeps_its_best_passage_in_rank_order() {
        let pages = best_per_page(vec![
            passage(0, 3, 50, 0.9),
            passage(0, 3, 0, 0.8),
            passage(1, 3, 0, 0.7),
            passage(0, 4, 0, 0.6),
            passage(1, 3, 40, 0.5),
        ]);
        let kept: Vec<(usize, u32, u32)> = pages.iter().map(|r| (r.doc, r.page, r.char_start)).collect();
        assert_eq!(kept, [(0, 3, 50), (1, 3, 0), (0, 4, 0)]);
    }
}
