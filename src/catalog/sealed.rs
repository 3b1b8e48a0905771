//! Secrets the catalog keeps (a PDF's password, a remote library's token, a model server's API
//! key) when no keyring holds them. On disk they stay as they are, in the library directory only
//! its owner may read; in a database, which others administer and back up, they are sealed
//! (ChaCha20-Poly1305) with the key every process of the library is given, and without a key
//! they are refused rather than written in clear text.

use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

use super::{Catalog, CatalogError};

/// What a sealed secret starts with.
const SEALED: &str = "sealed:v1:";

/// The key secrets are sealed with, made from the string a process is given.
pub struct SealingKey(LessSafeKey);

impl SealingKey {
    pub fn new(secret_key: &str) -> Result<SealingKey, CatalogError> {
        let digest = Sha256::digest(secret_key.as_bytes());
        let key = UnboundKey::new(&CHACHA20_POLY1305, &digest).map_err(|_| CatalogError::SecretKey {
            reason: "it cannot be made into a key".into(),
        })?;
        Ok(SealingKey(LessSafeKey::new(key)))
    }
}

impl Catalog {
    /// `secret` as the catalog writes it: as it is on disk, sealed in a database.
    pub fn seal(&self, secret: &str, what: &'static str) -> Result<String, CatalogError> {
        if !self.db.is_postgres() {
            return Ok(secret.to_string());
        }
        let Some(SealingKey(key)) = &self.sealing else {
            return Err(CatalogError::SecretInClear { what });
        };
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
        Ok(format!("{SEALED}{}{}", hex::encode(nonce), hex::encode(sealed)))
    }

    /// A secret the catalog wrote, as it was given.
    pub fn unseal(&self, stored: String) -> Result<String, CatalogError> {
        let Some(sealed) = stored.strip_prefix(SEALED) else {
            return Ok(stored);
        };
        let Some(SealingKey(key)) = &self.sealing else {
            return Err(CatalogError::SecretKey {
                reason: "the library's secrets are sealed and no key was given: set LECTERN_SECRET_KEY \
                         to the key the library's other processes are given"
                    .into(),
            });
        };
        let wrong = || CatalogError::SecretKey {
            reason: "a secret cannot be opened with the key given: set LECTERN_SECRET_KEY to the key the \
                     library's other processes are given"
                .into(),
        };
        let bytes = hex::decode(sealed).map_err(|_| wrong())?;
        if bytes.len() < NONCE_LEN {
            return Err(wrong());
        }
        let (nonce, mut body) = (bytes[..NONCE_LEN].to_vec(), bytes[NONCE_LEN..].to_vec());
        let nonce = Nonce::try_assume_unique_for_key(&nonce).map_err(|_| wrong())?;
        let opened = key.open_in_place(nonce, Aad::empty(), &mut body).map_err(|_| wrong())?;
        String::from_utf8(opened.to_vec()).map_err(|_| wrong())
    }
}
