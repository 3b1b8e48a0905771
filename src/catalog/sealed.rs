//! Secrets the catalog keeps (a PDF's password, a remote library's token, a model server's API
//! key) when no keyring holds them. On disk they stay as they are, in the library directory only
//! its owner may read; in a database, which others administer and back up, they are sealed
//! (ChaCha20-Poly1305) with a key made from the string every process of the library is given by
//! Argon2id (19 MiB, two passes) and the library's own random salt, kept in its settings, so that a
//! stolen backup does not give the secrets up to a fast guess at a weak string. Secrets sealed
//! before (`sealed:v1:`, the string's SHA-256 as the key) are still opened, and are sealed again
//! as `v2` by the first process given the key that connects.
//! Without a key secrets are refused rather than written in clear text.

use std::sync::OnceLock;

use argon2::{Algorithm, Argon2, Params, Version};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

use super::sql::args;
use super::{Catalog, CatalogError};

/// What a secret sealed with the key the string's SHA-256 gave starts with.
const SEALED_V1: &str = "sealed:v1:";
/// What a secret sealed with the key Argon2id gave starts with.
const SEALED_V2: &str = "sealed:v2:";

/// The setting that holds the library's salt (hex).
pub(super) const SALT: &str = "sealing_salt";

/// Argon2id's cost: memory in KiB, passes, lanes (OWASP's first recommended set).
const ARGON2_MEMORY_KIB: u32 = 19 * 1024;
const ARGON2_PASSES: u32 = 2;
const ARGON2_LANES: u32 = 1;

/// The string a process is given to seal secrets with, and the keys made from it.
pub struct SealingKey {
    secret: String,
    /// Made at the first secret sealed or opened: it needs the library's salt.
    derived: OnceLock<LessSafeKey>,
}

impl SealingKey {
    pub fn new(secret_key: &str) -> Result<SealingKey, CatalogError> {
        if secret_key.is_empty() {
            return Err(CatalogError::SecretKey {
                reason: "LECTERN_SECRET_KEY is empty: give it a long random string".into(),
            });
        }
        Ok(SealingKey {
            secret: secret_key.to_string(),
            derived: OnceLock::new(),
        })
    }
}

/// The key `secret` gives with `salt` (Argon2id).
fn derive(secret: &str, salt: &[u8]) -> Result<LessSafeKey, CatalogError> {
    let cannot = |e: &dyn std::fmt::Display| CatalogError::SecretKey {
        reason: format!("it cannot be made into a key ({e})"),
    };
    let params = Params::new(ARGON2_MEMORY_KIB, ARGON2_PASSES, ARGON2_LANES, Some(32)).map_err(|e| cannot(&e))?;
    let mut key = [0u8; 32];
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password_into(secret.as_bytes(), salt, &mut key)
        .map_err(|e| cannot(&e))?;
    chacha(&key)
}

/// The key secrets sealed as `v1` were sealed with: the string's SHA-256.
fn derive_v1(secret: &str) -> Result<LessSafeKey, CatalogError> {
    chacha(&Sha256::digest(secret.as_bytes()))
}

fn chacha(key: &[u8]) -> Result<LessSafeKey, CatalogError> {
    let key = UnboundKey::new(&CHACHA20_POLY1305, key).map_err(|_| CatalogError::SecretKey {
        reason: "it cannot be made into a key".into(),
    })?;
    Ok(LessSafeKey::new(key))
}

/// `secret` sealed with `key`, as `prefix` and the hex of a fresh nonce and the sealed bytes.
fn seal_with(key: &LessSafeKey, prefix: &str, secret: &str) -> Result<String, CatalogError> {
    let mut nonce = [0u8; NONCE_LEN];
    SystemRandom::new()
        .fill(&mut nonce)
        .map_err(|_| CatalogError::SecretKey {
            reason: "no random numbers to seal with".into(),
        })?;
    let mut sealed = secret.as_bytes().to_vec();
    key.seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::empty(), &mut sealed)
        .map_err(|_| CatalogError::SecretKey {
            reason: "a secret could not be sealed".into(),
        })?;
    Ok(format!("{prefix}{}{}", hex::encode(nonce), hex::encode(sealed)))
}

/// The secret `sealed` (the hex after the prefix) holds, if `key` opens it.
fn open_with(key: &LessSafeKey, sealed: &str) -> Option<String> {
    let bytes = hex::decode(sealed).ok()?;
    if bytes.len() < NONCE_LEN {
        return None;
    }
    let (nonce, mut body) = (bytes[..NONCE_LEN].to_vec(), bytes[NONCE_LEN..].to_vec());
    let nonce = Nonce::try_assume_unique_for_key(&nonce).ok()?;
    let opened = key.open_in_place(nonce, Aad::empty(), &mut body).ok()?;
    String::from_utf8(opened.to_vec()).ok()
}

impl Catalog {
    /// `secret` as the catalog writes it: as it is on disk, sealed in a database.
    pub fn seal(&self, secret: &str, what: &'static str) -> Result<String, CatalogError> {
        if !self.db.is_postgres() {
            return Ok(secret.to_string());
        }
        if self.sealing.is_none() {
            return Err(CatalogError::SecretInClear { what });
        }
        seal_with(self.sealing_key(true)?, SEALED_V2, secret)
    }

    /// A secret the catalog wrote, as it was given.
    pub fn unseal(&self, stored: String) -> Result<String, CatalogError> {
        let (version, sealed) = match (stored.strip_prefix(SEALED_V2), stored.strip_prefix(SEALED_V1)) {
            (Some(sealed), _) => (2, sealed),
            (None, Some(sealed)) => (1, sealed),
            (None, None) => return Ok(stored),
        };
        let Some(sealing) = &self.sealing else {
            return Err(CatalogError::SecretKey {
                reason: "the library's secrets are sealed and no key was given: set LECTERN_SECRET_KEY \
                         to the key the library's other processes are given"
                    .into(),
            });
        };
        let opened = if version == 2 {
            open_with(self.sealing_key(false)?, sealed)
        } else {
            open_with(&derive_v1(&sealing.secret)?, sealed)
        };
        opened.ok_or_else(|| CatalogError::SecretKey {
            reason: "a secret cannot be opened with the key given: set LECTERN_SECRET_KEY to the key the \
                     library's other processes are given"
                .into(),
        })
    }

    /// Seals again as `v2` the secrets sealed the old way (`v1`): PDF passwords, remote tokens,
    /// and a key kept in a setting (the model server's). One the key given cannot open is left as
    /// it is (a process given another key says so when it is read). Returns how many.
    pub(super) fn reseal_old(&self) -> Result<usize, CatalogError> {
        if self.sealing.is_none() || !self.db.is_postgres() {
            return Ok(0);
        }
        // Where a secret is a whole column: table, key, column.
        const COLUMNS: [(&str, &str, &str); 2] = [
            ("document_passwords", "content_hash", "password"),
            ("remotes", "name", "token"),
        ];
        let pairs = |sql: &str, pattern: &str| {
            self.db
                .query(sql, args![pattern], |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)))
        };
        let mut columns = Vec::new();
        for (table, key, column) in COLUMNS {
            let sql = format!("SELECT {key}, {column} FROM {table} WHERE {column} LIKE ?1");
            columns.push(((table, key, column), pairs(&sql, &format!("{SEALED_V1}%"))?));
        }
        let settings = pairs(
            "SELECT key, value FROM settings WHERE value LIKE ?1",
            &format!("%{SEALED_V1}%"),
        )?;
        if settings.is_empty() && columns.iter().all(|(_, rows)| rows.is_empty()) {
            return Ok(0);
        }
        let again = |stored: &str| -> Option<String> {
            let secret = self.unseal(stored.to_string()).ok()?;
            seal_with(self.sealing_key(true).ok()?, SEALED_V2, &secret).ok()
        };
        let mut resealed = 0;
        self.db.transaction(|| {
            for ((table, key, column), rows) in &columns {
                let update = format!("UPDATE {table} SET {column} = ?1 WHERE {key} = ?2 AND {column} = ?3");
                for (id, stored) in rows {
                    if let Some(new) = again(stored) {
                        resealed += self.db.execute(&update, args![new, id, stored])?;
                    }
                }
            }
            for (key, json) in &settings {
                let Ok(serde_json::Value::Object(mut fields)) = serde_json::from_str(json) else {
                    continue;
                };
                let mut changed = 0;
                for value in fields.values_mut() {
                    if let Some(new) = value.as_str().filter(|s| s.starts_with(SEALED_V1)).and_then(again) {
                        *value = serde_json::Value::String(new);
                        changed += 1;
                    }
                }
                if changed > 0 {
                    let new = serde_json::Value::Object(fields).to_string();
                    if self.db.execute(
                        "UPDATE settings SET value = ?1 WHERE key = ?2 AND value = ?3",
                        args![new, key, json],
                    )? > 0
                    {
                        resealed += changed;
                    }
                }
            }
            Ok::<_, CatalogError>(())
        })?;
        Ok(resealed)
    }

    /// The key secrets are sealed with: made once, from the string given and the library's salt
    /// (made and kept the first time a secret is sealed, when `sealing`; every process reads the
    /// same one).
    fn sealing_key(&self, sealing_one: bool) -> Result<&LessSafeKey, CatalogError> {
        let Some(sealing) = &self.sealing else {
            return Err(CatalogError::SecretKey {
                reason: "no key was given: set LECTERN_SECRET_KEY".into(),
            });
        };
        if let Some(key) = sealing.derived.get() {
            return Ok(key);
        }
        let key = derive(&sealing.secret, &self.salt(sealing_one)?)?;
        Ok(sealing.derived.get_or_init(|| key))
    }

    /// The library's salt; made if it has none and `make` (a process that makes one at the same
    /// moment as another keeps the one written first). A secret is opened only with the salt it
    /// was sealed with: none is made for it.
    fn salt(&self, make: bool) -> Result<Vec<u8>, CatalogError> {
        let unreadable = || CatalogError::SecretKey {
            reason: format!("the library's salt (setting {SALT}) was changed outside Lectern and cannot be read"),
        };
        if let Some(salt) = self.setting(SALT)? {
            return hex::decode(salt).map_err(|_| unreadable());
        }
        if !make {
            return Err(CatalogError::SecretKey {
                reason: format!(
                    "the library's secrets are sealed, but its salt (setting {SALT}) was removed outside Lectern: \
                     they cannot be opened; give them again (a PDF's password, a remote's token, the API key)"
                ),
            });
        }
        let mut salt = [0u8; 16];
        SystemRandom::new()
            .fill(&mut salt)
            .map_err(|_| CatalogError::SecretKey {
                reason: "no random numbers to make a salt with".into(),
            })?;
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO NOTHING",
            args![SALT, hex::encode(salt)],
        )?;
        let salt = self.setting(SALT)?.ok_or(CatalogError::NoRow)?;
        hex::decode(salt).map_err(|_| unreadable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_made_from_the_string_and_the_salt_both() {
        let secret = "the library's key";
        let sealed = seal_with(&derive(secret, b"salt of library A").unwrap(), SEALED_V2, "hunter2").unwrap();
        let body = sealed.strip_prefix(SEALED_V2).unwrap();
        assert!(!sealed.contains("hunter2"));
        assert_eq!(
            open_with(&derive(secret, b"salt of library A").unwrap(), body).as_deref(),
            Some("hunter2")
        );
        assert_eq!(open_with(&derive(secret, b"salt of library B").unwrap(), body), None);
        assert_eq!(
            open_with(&derive("another key", b"salt of library A").unwrap(), body),
            None
        );
        // Nor is it the string's plain hash any longer.
        assert_eq!(open_with(&derive_v1(secret).unwrap(), body), None);
    }
}
