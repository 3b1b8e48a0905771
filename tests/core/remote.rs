//! Remote libraries: a second library served by `lectern serve` on loopback is added with a
//! token limited to one folder, asked beside a local folder (results fused by rank, remote hits
//! marked, their PDFs fetched), and answers go on without it once it is down.

use lectern::catalog::{RemoteScope, Scope};
use lectern::llm::Cancel;
use lectern::search::{SearchMode, SearchRequest};
use lectern::AskRequest;

use crate::answer::corpus_library;
use crate::common::runtime;
use crate::serve::Served;

#[test]
fn a_remote_folder_is_asked_beside_a_local_one_and_its_absence_is_said() {
    let served = Served::new();
    let (_, token) = served.t.create_api_token("colleague", &["Other".into()]).unwrap();
    let (t, local) = corpus_library();
    let rt = runtime();

    // A wrong token is refused before anything is kept; the right one is kept with what it sees.
    let e = rt
        .block_on(t.add_remote("bob", &served.base, "not-the-token"))
        .unwrap_err();
    assert!(e.to_string().contains("refused its token"), "{e}");
    assert!(t.remotes().unwrap().is_empty());
    let added = rt.block_on(t.add_remote("bob", &served.base, &token)).unwrap();
    assert_eq!(added.folders, ["Other"]);
    let e = rt.block_on(t.add_remote("Bob", &served.base, &token)).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");

    let scope = Scope {
        remotes: vec![RemoteScope {
            remote: "bob".into(),
            folder: Some("Other".into()),
        }],
        ..local.clone()
    };
    let request = SearchRequest {
        query: "Who lit the lamp at dusk?".into(),
        scope: scope.clone(),
        k: 6,
        mode: SearchMode::Hybrid,
        second_stage: false,
    };
    let results = rt.block_on(t.search(&request)).unwrap();
    let remote: Vec<_> = results.hits.iter().filter(|h| h.remote.is_some()).collect();
    assert_eq!(remote.len(), 1, "{:#?}", results.hits);
    assert_eq!(remote[0].document_name, "memo.pdf");
    assert_eq!(remote[0].folder_path, "bob: Other");
    assert!(
        results.hits.iter().any(|h| h.remote.is_none()),
        "the local folder is searched too"
    );
    assert!(results.hits.len() <= 6);
    let pdf = rt
        .block_on(t.remote_pdf("bob", &remote[0].document.to_string()))
        .unwrap();
    assert!(pdf.starts_with(b"%PDF-"));

    // An answer over both cites the remote passage as the remote's.
    let mut ask = AskRequest::new("Who lit the lamp at dusk?");
    ask.scope = Some(scope.clone());
    let outcome = rt.block_on(t.ask(&ask, None, &Cancel::new(), None)).unwrap();
    assert!(
        outcome
            .answer
            .citations
            .iter()
            .any(|c| c.remote.as_deref() == Some("bob")),
        "{:#?}",
        outcome.answer
    );

    // The remote's server goes away: the local folder still answers, and the answer says so.
    drop(served);
    let outcome = rt.block_on(t.ask(&ask, None, &Cancel::new(), None)).unwrap();
    assert!(
        outcome
            .answer
            .body
            .starts_with("(Not searched: could not reach the remote library \"bob\""),
        "{}",
        outcome.answer.body
    );
    assert_eq!(outcome.results.unreachable[0].remote, "bob");
    assert!(outcome.results.hits.iter().all(|h| h.remote.is_none()));

    t.remove_remote("bob").unwrap();
    assert!(t.remotes().unwrap().is_empty());
    assert!(t.remove_remote("bob").is_err());
}
