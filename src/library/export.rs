//! A library copied whole to another place: from its data directory into a PostgreSQL database
//! (`lectern library export --to postgres://…`), or from a database into a directory (`--to
//! DIR`). The catalog goes row by row with its ids (`Catalog::copy_into`), each PDF once, each
//! index as it is (read back from one store and published into the other, never embedded again),
//! and the secrets as the target keeps secrets. The target must be new: nothing is merged.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::Serialize;

use super::Library;
use crate::catalog::{CatalogError, DocumentStatus};
use crate::config::LibraryConfig;
use crate::error::Error;

/// What a copy copied.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Exported {
    pub documents: usize,
    /// PDFs (each content once).
    pub files: usize,
    /// Indexes published in the target.
    pub indexes: usize,
}

/// A database URL rather than a directory.
fn is_database(to: &str) -> bool {
    to.starts_with("postgres://") || to.starts_with("postgresql://")
}

impl Library {
    /// Copies this library to `to`: a database URL or a directory, holding no library yet.
    pub async fn export(&self, to: &str) -> Result<Exported, Error> {
        let refused = |reason: &str| Error::ExportTarget {
            target: if is_database(to) {
                crate::database::redacted(to)
            } else {
                to.to_string()
            },
            reason: reason.to_string(),
        };
        // A library in a database still needs a directory of its own here, for the copy only.
        let scratch =
            is_database(to).then(|| std::env::temp_dir().join(format!("lectern-export-{}", uuid::Uuid::new_v4())));
        let home = scratch.clone().unwrap_or_else(|| PathBuf::from(to));
        if self.config().database_url.as_deref() == Some(to) || home == self.config().home {
            return Err(refused("it is this library"));
        }
        let copied = async {
            let target = Library::open(LibraryConfig {
                home,
                database_url: is_database(to).then(|| to.to_string()),
                // Secrets go into the database sealed, not into a keyring under the name of a
                // directory that is about to go.
                keyring: self.config().keyring && !is_database(to),
                ..self.config().clone()
            })?;
            if !target.engine.catalog().is_new()? {
                return Err(refused(
                    "it holds a library already; copy into a new database or an empty directory",
                ));
            }
            self.copy_to(&target).await
        }
        .await;
        if let Some(scratch) = scratch {
            let _ = std::fs::remove_dir_all(scratch);
        }
        copied
    }

    async fn copy_to(&self, target: &Library) -> Result<Exported, Error> {
        // The passwords of the documents there now (one added during the copy asks again).
        let present = self.engine.catalog().list_documents(None)?;
        let present: BTreeSet<&str> = present.iter().map(|d| d.content_hash.as_str()).collect();
        // The secrets first, so that a target that cannot keep them is refused before anything
        // is copied.
        let settings = self.saved_settings()?;
        let remotes = self
            .remotes()?
            .iter()
            .map(|remote| crate::remote::address(&self.engine, &remote.name))
            .collect::<Result<Vec<_>, _>>()?;
        let mut passwords = Vec::new();
        for hash in &present {
            if let Some(password) = self.engine.password_for(hash)? {
                passwords.push((*hash, password));
            }
        }
        let has_secrets =
            !remotes.is_empty() || !passwords.is_empty() || settings.as_ref().is_some_and(|s| s.api_key.is_some());
        if has_secrets && target.secret_place() == crate::secrets::SecretPlace::Library {
            target.engine.catalog().seal("", "this library's secrets")?;
        }

        // The catalog as of one moment, while the library may be in use: its documents are the
        // ones whose PDFs and indexes are copied next.
        let documents = {
            let (source, target) = (self.engine.catalog(), target.engine.catalog());
            source.snapshot(|source| {
                let documents = source.list_documents(None)?;
                source.copy_into(&target)?;
                Ok::<_, CatalogError>(documents)
            })?
        };
        let contents: BTreeSet<&str> = documents.iter().map(|d| d.content_hash.as_str()).collect();
        let mut done = Exported {
            documents: documents.len(),
            ..Exported::default()
        };
        if let Some(settings) = settings {
            target.save_settings(&settings)?;
        }
        for address in remotes {
            target.keep_remote(&address.name, &address.url, &address.token)?;
        }
        for (hash, password) in passwords {
            target.engine.keep_password(hash, &password)?;
        }

        // Each PDF once.
        for hash in contents {
            let path = self.engine.stored_file(hash)?;
            let Ok(bytes) = std::fs::read(&path) else {
                continue; // the target's indexer marks its documents as their file is missing
            };
            let catalog = target.engine.catalog();
            if catalog.keeps_files() {
                catalog.put_file(hash, &bytes)?;
            } else {
                target.engine.files().put(hash, &bytes)?;
            }
            done.files += 1;
        }

        // Each ready document's index, as it is now. A reading or an embedding that ended since
        // the snapshot changed the index, not the row copied: the copy's row is made to say
        // what its index holds, which is what a search of the copy reads. (A document deleted
        // since has no index: the copy's indexer reads it again from its PDF.)
        for doc in documents.iter().filter(|d| d.status == DocumentStatus::Ready) {
            let Some(index) = self.engine.store().read_back(doc.id).await? else {
                continue;
            };
            target.engine.store().publish(index.publication(doc.id)).await?;
            done.indexes += 1;
            let manifest = &index.manifest;
            let read_again = Some(manifest.chunk_count) != doc.chunk_count
                || Some(manifest.char_count) != doc.char_count
                || manifest.ocr_note() != doc.reason;
            let embedder = manifest.embedder.as_deref();
            if read_again || (embedder.is_none() && doc.embedded_with.is_some()) {
                target.engine.record_ready(doc.id, manifest)?;
            } else if let Some(embedder) = embedder.filter(|e| doc.embedded_with.as_deref() != Some(*e)) {
                target.engine.catalog().set_embedded(doc.id, embedder)?;
            }
        }
        Ok(done)
    }
}
