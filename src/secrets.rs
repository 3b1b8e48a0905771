//! Secrets (the API key of a language-model server, the passwords of PDFs) kept in the system's
//! keyring, the Secret Service on Linux through the `keyring` crate, where one answers; otherwise
//! in the catalog, inside the library directory that only its owner may read, and the settings
//! say which. The keyring is first asked when a secret is first needed, not when a library opens.

use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;

use crate::error::Error;

/// Where a library keeps its secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SecretPlace {
    /// The system's keyring.
    Keyring,
    /// The library's catalog: no keyring answered, or the user turned it off (`LECTERN_KEYRING=off`).
    Library,
}

/// One library's secrets in the keyring, each under the library's own service name.
pub struct Secrets {
    service: String,
    wanted: bool,
    /// Set once the keyring has answered; a keyring that did not (not yet up at login) is asked
    /// again next time.
    answered: OnceLock<()>,
}

impl Secrets {
    /// The secrets of the library in `home`; `wanted` false keeps them all in the catalog.
    pub fn new(home: &Path, wanted: bool) -> Secrets {
        Secrets {
            service: format!("Lectern library {}", home.display()),
            wanted,
            answered: OnceLock::new(),
        }
    }

    /// Where secrets are kept: the keyring if one answers.
    pub fn place(&self) -> SecretPlace {
        let answers = self.answered.get().is_some()
            || (self.wanted
                && matches!(
                    self.entry("probe").and_then(|e| e.get_password()),
                    Ok(_) | Err(keyring::Error::NoEntry)
                ));
        if answers {
            let _ = self.answered.set(());
            SecretPlace::Keyring
        } else {
            SecretPlace::Library
        }
    }

    /// Keeps `secret` under `name` in the keyring; false when secrets are kept in the library,
    /// where the caller keeps it.
    pub fn put(&self, name: &str, secret: &str) -> Result<bool, Error> {
        if self.place() == SecretPlace::Library {
            return Ok(false);
        }
        self.entry(name)
            .and_then(|e| e.set_password(secret))
            .map_err(|e| keyring_error("keeping a secret in", e))?;
        Ok(true)
    }

    /// The secret under `name` in the keyring, if it holds one.
    pub fn get(&self, name: &str) -> Result<Option<String>, Error> {
        if self.place() == SecretPlace::Library {
            let why = if self.wanted {
                "it does not answer; start it, or give the password or the key again"
            } else {
                "it is turned off (LECTERN_KEYRING=off); turn it on, or give the password or the key again"
            };
            return Err(keyring_error("reading a secret from", why));
        }
        match self.entry(name).and_then(|e| e.get_password()) {
            Ok(secret) => Ok(Some(secret)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keyring_error("reading a secret from", e)),
        }
    }

    /// Removes the secret under `name` from the keyring, if it is there.
    pub fn delete(&self, name: &str) -> Result<(), Error> {
        if self.place() == SecretPlace::Library {
            return Ok(());
        }
        match self.entry(name).and_then(|e| e.delete_credential()) {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(keyring_error("removing a secret from", e)),
        }
    }

    fn entry(&self, name: &str) -> keyring::Result<keyring::Entry> {
        keyring::Entry::new(&self.service, name)
    }
}

fn keyring_error(what: &'static str, reason: impl std::fmt::Display) -> Error {
    Error::Keyring {
        what,
        reason: reason.to_string(),
    }
}
