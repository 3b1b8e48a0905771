//! Settings: one JSON value per key, so that a setting added later needs no migration.

use super::sql::args;

use super::error::CatalogError;
use super::Catalog;

impl Catalog {
    /// The stored value of `key`, if any.
    pub fn setting(&self, key: &str) -> Result<Option<String>, CatalogError> {
        self.db
            .query_opt("SELECT value FROM settings WHERE key = ?1", args![key], |row| {
                row.get(0)
            })
    }

    /// Stores `value` under `key`, replacing what was there.
    pub fn set_setting(&self, key: &str, value: &str) -> Result<(), CatalogError> {
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES (?1, ?2)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            args![key, value],
        )?;
        Ok(())
    }
}
