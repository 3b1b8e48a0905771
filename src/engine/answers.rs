//! The answers being generated, by the id a client gave each, so that another call (the app's
//! stop button) can stop one.

use super::{lock, Engine};
use crate::llm::Cancel;

impl Engine {
    /// Registers an answer being generated under `id` and returns its cancel flag.
    pub fn start_answer(&self, id: &str) -> Cancel {
        let cancel = Cancel::new();
        lock(&self.answers).insert(id.to_string(), cancel.clone());
        cancel
    }

    /// Forgets the answer `id` once it is done.
    pub fn finish_answer(&self, id: &str) {
        lock(&self.answers).remove(id);
    }

    /// Stops the answer `id`, if it is still being generated; returns whether it was.
    pub fn cancel_answer(&self, id: &str) -> bool {
        match lock(&self.answers).get(id) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }
}
