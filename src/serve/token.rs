//! The server's bearer token: made at the first start, kept in the data directory readable by
//! its owner only, shown and rotated by `lectern serve`. A request is compared with it in time
//! that does not depend on where they differ.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::Error;

/// The file in the data directory that holds the token.
pub const TOKEN_FILE: &str = "api-token";

/// The library's token, made (and kept) now if it has none.
pub fn api_token(home: &Path) -> Result<String, Error> {
    let path = home.join(TOKEN_FILE);
    match std::fs::read_to_string(&path) {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_string()),
        Ok(_) => rotate_api_token(home),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => rotate_api_token(home),
        Err(source) => Err(Error::Io { path, source }),
    }
}

/// Replaces the library's token with a new one (the old one stops working); returns it.
pub fn rotate_api_token(home: &Path) -> Result<String, Error> {
    // Two random (version 4) UUIDs: 244 bits from the system's random source.
    let token = format!(
        "lectern-{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    );
    let path = home.join(TOKEN_FILE);
    let fresh = home.join(format!(".{TOKEN_FILE}.{}", uuid::Uuid::new_v4().simple()));
    let io = |source| Error::Io {
        path: path.clone(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&fresh)
        .map_err(io)?;
    file.write_all(token.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(io)?;
    std::fs::rename(&fresh, &path).map_err(io)?;
    // Two processes making a token at once: the one kept is the last renamed, for both.
    Ok(std::fs::read_to_string(&path).map_err(io)?.trim().to_string())
}

/// Whether `given` is `token`, compared byte by byte to the end whatever they hold.
pub fn matches(given: &str, token: &str) -> bool {
    given.len() == token.len() && given.bytes().zip(token.bytes()).fold(0u8, |d, (a, b)| d | (a ^ b)) == 0
}
