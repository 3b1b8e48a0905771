//! Remote libraries: other Lectern servers asked beside this library's folders. `client.rs`
//! speaks their `/v1` API; `address.rs` finds a remote's address and token (the catalog and the
//! keyring); `search.rs` searches a scope that names remotes, this library's part and each
//! remote at once, fused by rank.

mod address;
mod client;
mod search;

pub(crate) use address::{address, on_remote, token_name, Address};
pub use client::{RemoteClient, RemoteError};
pub(crate) use search::search;
