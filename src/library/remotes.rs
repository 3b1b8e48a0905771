//! Remote libraries through the facade: added once their server has answered with the token,
//! asked beside this library's folders (`remote::search` fuses their results by rank), and
//! their cited PDFs fetched for the viewer.

use super::Library;
use crate::catalog::Remote;
use crate::error::Error;
use crate::remote::{address, on_remote, token_name, Address};

/// A remote library just added, and what its token lets this library see.
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AddedRemote {
    pub remote: Remote,
    /// The remote folders the token sees.
    pub folders: Vec<String>,
}

impl Library {
    /// Adds the library served at `url` (its `/v1` address) under `name`, once it has answered
    /// with `token`; the token is kept like the library's other secrets.
    pub async fn add_remote(&self, name: &str, url: &str, token: &str) -> Result<AddedRemote, Error> {
        let address = Address {
            name: name.into(),
            url: url.into(),
            token: token.into(),
        };
        let folders = on_remote(address, |client| client.folders()).await??;
        Ok(AddedRemote {
            remote: self.keep_remote(name, url, token)?,
            folders,
        })
    }

    /// Records the remote `name` at `url`, its token kept like the library's other secrets.
    pub(super) fn keep_remote(&self, name: &str, url: &str, token: &str) -> Result<Remote, Error> {
        let secrets = self.engine.secrets();
        let in_keyring = secrets.put(&token_name(name), token)?;
        let kept = (!in_keyring).then_some(token);
        let added = self.engine.catalog().add_remote(name, url, kept, in_keyring);
        if added.is_err() && in_keyring {
            secrets.delete(&token_name(name))?;
        }
        Ok(added?)
    }

    pub fn remotes(&self) -> Result<Vec<Remote>, Error> {
        Ok(self.engine.catalog().remotes()?)
    }

    /// The folders of the remote `name` its token sees, asked now.
    pub async fn remote_folders(&self, name: &str) -> Result<Vec<String>, Error> {
        Ok(on_remote(address(&self.engine, name)?, |client| client.folders()).await??)
    }

    /// Forgets the remote `name` and its token.
    pub fn remove_remote(&self, name: &str) -> Result<(), Error> {
        let catalog = self.engine.catalog();
        let stored = catalog
            .stored_remote(name)?
            .ok_or_else(|| crate::catalog::CatalogError::RemoteNotFound(name.into()))?;
        if stored.token_in_keyring {
            self.engine.secrets().delete(&token_name(name))?;
        }
        Ok(catalog.remove_remote(name)?)
    }

    /// The PDF of document `document` of the remote `remote`, for the viewer.
    pub async fn remote_pdf(&self, remote: &str, document: &str) -> Result<Vec<u8>, Error> {
        let document = document.to_string();
        Ok(on_remote(address(&self.engine, remote)?, move |client| client.pdf(&document)).await??)
    }
}
