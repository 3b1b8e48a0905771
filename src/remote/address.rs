//! Where a remote library is and the token it takes: its row in the catalog, its token there or
//! in the keyring; and the one way to ask it, on a blocking thread.

use super::{RemoteClient, RemoteError};
use crate::catalog::CatalogError;
use crate::engine::Engine;
use crate::error::Error;

/// Where a remote library is, and its token.
pub(crate) struct Address {
    pub(crate) name: String,
    pub(crate) url: String,
    pub(crate) token: String,
}

/// The name a remote's token has in the keyring.
pub(crate) fn token_name(remote: &str) -> String {
    format!("remote-token:{}", remote.trim().to_lowercase())
}

/// Where the remote `name` is, with its token.
pub(crate) fn address(engine: &Engine, name: &str) -> Result<Address, Error> {
    let stored = engine
        .catalog()
        .stored_remote(name)?
        .ok_or_else(|| CatalogError::RemoteNotFound(name.into()))?;
    let token = match stored.token {
        Some(token) => token,
        None => engine.secrets().get(&token_name(name))?.unwrap_or_default(),
    };
    Ok(Address {
        name: stored.remote.name,
        url: stored.remote.url,
        token,
    })
}

/// Runs `work` with a client of the remote at `address`, on a blocking thread: the blocking
/// HTTP client may be neither made nor dropped on the async threads.
pub(crate) async fn on_remote<T: Send + 'static>(
    address: Address,
    work: impl FnOnce(&RemoteClient) -> Result<T, RemoteError> + Send + 'static,
) -> Result<Result<T, RemoteError>, Error> {
    tokio::task::spawn_blocking(move || work(&RemoteClient::new(&address.name, &address.url, &address.token)?))
        .await
        .map_err(Error::stopped("asking the remote library"))
}
