//! Remote libraries through the facade: added once their server has answered with the token,
//! asked beside this library's folders (`Library::search` fuses their results by rank), and
//! their cited PDFs fetched for the viewer.

use super::Library;
use crate::catalog::{Remote, RemoteScope};
use crate::error::Error;
use crate::remote::{RemoteClient, RemoteError};
use crate::search::{fuse_libraries, SearchRequest, SearchResults};

/// A remote library just added, and what its token lets this library see.
#[derive(Debug, Clone, serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AddedRemote {
    pub remote: Remote,
    /// The remote folders the token sees.
    pub folders: Vec<String>,
}

/// Where a remote library is, and its token.
pub(super) struct Address {
    pub(super) name: String,
    pub(super) url: String,
    pub(super) token: String,
}

/// Runs `work` with a client of the remote at `address`, on a blocking thread: the blocking
/// HTTP client may be neither made nor dropped on the async threads.
async fn on_remote<T: Send + 'static>(
    address: Address,
    work: impl FnOnce(&RemoteClient) -> Result<T, RemoteError> + Send + 'static,
) -> Result<Result<T, RemoteError>, Error> {
    tokio::task::spawn_blocking(move || work(&RemoteClient::new(&address.name, &address.url, &address.token)?))
        .await
        .map_err(Error::stopped("asking the remote library"))
}

/// The name a remote's token has in the keyring.
fn token_name(remote: &str) -> String {
    format!("remote-token:{}", remote.trim().to_lowercase())
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
        Ok(on_remote(self.remote_address(name)?, |client| client.folders()).await??)
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

    /// Where the remote `name` is, with its token.
    pub(super) fn remote_address(&self, name: &str) -> Result<Address, Error> {
        let stored = self
            .engine
            .catalog()
            .stored_remote(name)?
            .ok_or_else(|| crate::catalog::CatalogError::RemoteNotFound(name.into()))?;
        let token = match stored.token {
            Some(token) => token,
            None => self.engine.secrets().get(&token_name(name))?.unwrap_or_default(),
        };
        Ok(Address {
            name: stored.remote.name,
            url: stored.remote.url,
            token,
        })
    }

    /// The PDF of document `document` of the remote `remote`, for the viewer.
    pub async fn remote_pdf(&self, remote: &str, document: &str) -> Result<Vec<u8>, Error> {
        let document = document.to_string();
        Ok(on_remote(self.remote_address(remote)?, move |client| client.pdf(&document)).await??)
    }

    /// Searches `request`'s scope where it names remote libraries: this library's part (if it
    /// has one) and each remote at once, fused by rank. A remote that cannot be asked is named
    /// in the results' `unreachable`; the rest still answer.
    pub(super) async fn search_with_remotes(&self, request: &SearchRequest) -> Result<SearchResults, Error> {
        let asked: Vec<_> = request
            .scope
            .remotes
            .iter()
            .map(|part| {
                let RemoteScope { remote, folder } = part.clone();
                let address = self.remote_address(&remote);
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
            Some(crate::search::run(&self.engine, request).await?)
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
}
