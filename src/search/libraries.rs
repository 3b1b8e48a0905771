//! One list from the results of several libraries (this one's, and remote libraries'), fused by
//! rank: the scores of two libraries come from different indexes, statistics and perhaps models,
//! so they are not compared. Each hit scores the sum of `1 / (60 + rank)` over the lists it is
//! in (reciprocal rank fusion; a passage is in one library's list only), so the first of each
//! list come first, in turn.

use super::{sources_of, Hit, SearchMode, SearchResults, Unreachable};

/// Reciprocal rank fusion's constant: how much the first ranks count over the later ones.
const RANK_CONSTANT: f32 = 60.0;

/// The best `k` hits of `local` (this library's results, if it was searched) and of each remote
/// library's results (by its name here), fused by rank; a remote that failed is named in
/// `unreachable` with why.
pub fn fuse_libraries(
    query: &str,
    mode: SearchMode,
    k: usize,
    local: Option<SearchResults>,
    remotes: Vec<(String, Result<SearchResults, String>)>,
) -> SearchResults {
    let mut fused = SearchResults::empty(query, mode);
    let mut ranked: Vec<(f32, usize, Hit)> = Vec::new();
    let mut take = |results: SearchResults, remote: Option<&str>, fused: &mut SearchResults| {
        fused.documents_searched += results.documents_searched;
        fused.keyword_only += results.keyword_only;
        if remote.is_none() {
            fused.skipped.extend(results.skipped);
        }
        for (rank, mut hit) in results.hits.into_iter().enumerate() {
            if let Some(remote) = remote {
                hit.remote = Some(remote.to_string());
                hit.folder_path = format!("{remote}: {}", hit.folder_path);
            }
            hit.score = 1.0 / (RANK_CONSTANT + rank as f32 + 1.0);
            ranked.push((hit.score, rank, hit));
        }
    };
    if let Some(local) = local {
        take(local, None, &mut fused);
    }
    for (remote, results) in remotes {
        match results {
            Ok(results) => take(results, Some(&remote), &mut fused),
            Err(reason) => fused.unreachable.push(Unreachable { remote, reason }),
        }
    }
    // Equal ranks keep the order the libraries were given in: this one's first.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    fused.hits = ranked.into_iter().take(k).map(|(_, _, hit)| hit).collect();
    fused.sources = sources_of(&fused.hits);
    fused
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{DocumentId, FolderId};
    use crate::search::ScoreComponents;

    fn results(names: &[&str], score: f32) -> SearchResults {
        let hits = names
            .iter()
            .map(|name| Hit {
                document: DocumentId::new_random(),
                document_name: name.to_string(),
                folder: FolderId(1),
                folder_path: "Docs".into(),
                chunk_id: "0".into(),
                page: 1,
                char_start: 0,
                char_end: 1,
                text: name.to_string(),
                score,
                components: ScoreComponents::default(),
                remote: None,
                context: String::new(),
            })
            .collect();
        SearchResults {
            hits,
            documents_searched: 2,
            ..SearchResults::empty("q", SearchMode::Hybrid)
        }
    }

    #[test]
    fn libraries_take_turns_by_rank_whatever_their_scores_and_a_failed_one_is_named() {
        let fused = fuse_libraries(
            "q",
            SearchMode::Hybrid,
            3,
            Some(results(&["a1", "a2"], 0.9)),
            vec![
                ("bob".into(), Ok(results(&["b1", "b2"], 0.01))),
                ("down".into(), Err("connection refused".into())),
            ],
        );
        let names: Vec<&str> = fused.hits.iter().map(|h| h.document_name.as_str()).collect();
        assert_eq!(names, ["a1", "b1", "a2"]);
        assert_eq!(fused.hits[1].remote.as_deref(), Some("bob"));
        assert_eq!(fused.hits[1].folder_path, "bob: Docs");
        assert_eq!(fused.documents_searched, 4);
        assert_eq!(fused.unreachable[0].remote, "down");
        // One document id in two libraries is two sources.
        let twice = fuse_libraries(
            "q",
            SearchMode::Hybrid,
            2,
            Some(results(&["a"], 0.5)),
            vec![("bob".into(), Ok(results(&["a"], 0.5)))],
        );
        let mut same = twice.hits.clone();
        same[1].document = same[0].document;
        assert_eq!(crate::search::sources_of(&same).len(), 2);
    }
}
