//! The models being installed, by the id or source asked for, so that another call (the app's
//! cancel button) can stop one, and a second install of the same model is refused while the
//! first writes its files.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{lock, Engine};
use crate::error::Error;

impl Engine {
    /// Registers an install of `what` and returns its cancel flag; an install of `what` under
    /// way already is an error.
    pub fn start_install(&self, what: &str) -> Result<Arc<AtomicBool>, Error> {
        let mut installs = lock(&self.installs);
        if installs.contains_key(what) {
            return Err(Error::Config {
                name: "model".into(),
                reason: format!("{what} is being installed already"),
            });
        }
        let cancel = Arc::new(AtomicBool::new(false));
        installs.insert(what.to_string(), cancel.clone());
        Ok(cancel)
    }

    /// Forgets the install of `what` once it is done.
    pub fn finish_install(&self, what: &str) {
        lock(&self.installs).remove(what);
    }

    /// Stops the install of `what` between two reads of its download; returns whether one ran.
    pub fn cancel_install(&self, what: &str) -> bool {
        match lock(&self.installs).get(what) {
            Some(cancel) => {
                cancel.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }
}
