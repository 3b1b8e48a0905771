//! A search of a scope that may name remote libraries: this library's part (if it has one) and
//! each remote at once, fused by rank (`search::fuse_libraries`). A remote that cannot be asked
//! is named in the results' `unreachable`; the rest still answer.

use std::sync::Arc;

use super::{address, on_remote};
use crate::catalog::RemoteScope;
use crate::engine::Engine;
use crate::error::Error;
use crate::search::{fuse_libraries, SearchRequest, SearchResults};

/// Searches the documents in `request.scope`; the question is embedded first unless the mode is
/// keyword-only. Remote libraries in the scope are asked too, their results fused with this
/// library's by rank.
pub(crate) async fn search(engine: &Arc<Engine>, request: &SearchRequest) -> Result<SearchResults, Error> {
    if request.scope.remotes.is_empty() {
        return crate::search::run(engine, request).await;
    }
    let asked: Vec<_> = request
        .scope
        .remotes
        .iter()
        .map(|part| {
            let RemoteScope { remote, folder } = part.clone();
            let address = address(engine, &remote);
            let (query, k, mode) = (request.query.clone(), request.k, request.mode);
            let answer = async move {
                let searched = on_remote(address?, move |client| {
                    client.search(&query, folder.as_deref(), k, mode)
                });
                Ok::<_, Error>(searched.await??)
            };
            (remote, tokio::spawn(answer))
        })
        .collect();
    let local = if request.scope.has_local_part() {
        Some(crate::search::run(engine, request).await?)
    } else {
        None
    };
    let mut remotes = Vec::new();
    for (remote, answer) in asked {
        let answer = match answer.await {
            Ok(answer) => answer.map_err(|e| e.to_string()),
            Err(e) => Err(format!("the search stopped: {e}")),
        };
        remotes.push((remote, answer));
    }
    Ok(fuse_libraries(&request.query, request.mode, request.k, local, remotes))
}
