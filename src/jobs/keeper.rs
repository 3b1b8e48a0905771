//! The keeper of the library's wide index (`index/wide/`), run by the indexer: at the
//! end of a run until idle, and in a thread of its own while the indexer runs for ever (after
//! its start and after each step), so that neither a search nor the next document waits for it.
//! A library in a database keeps no wide index: its searches are the database's.

use std::sync::Arc;

use crate::engine::Engine;
use crate::error::Error;
use crate::index::Kept;

/// Brings the wide index in line with the indexes now.
pub(crate) fn keep(engine: &Engine) -> Result<Kept, Error> {
    if engine.shared_store().is_some() {
        return Ok(Kept::default());
    }
    Ok(engine.local_store().keep_wide_index()?)
}

/// [`keep`], a failure reported: it leaves searches to open every document, as without a first
/// stage.
pub(super) fn keep_now(engine: &Engine) {
    if let Err(e) = keep(engine) {
        eprintln!(
            "lectern: the library's search index could not be brought up to date ({e}); searches open every document"
        );
    }
}

/// Asks the keeper's thread to run, starting it unless it runs.
pub(super) fn keep_soon(engine: &Arc<Engine>) {
    if engine.shared_store().is_some() || !engine.local_store().keeper().ask() {
        return;
    }
    let engine = engine.clone();
    std::thread::spawn(move || {
        while engine.local_store().keeper().take() {
            keep_now(&engine);
        }
    });
}
