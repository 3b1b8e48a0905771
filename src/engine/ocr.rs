//! Whether this library reads pages without text by OCR (on unless switched off in its settings,
//! or for every library by `LECTERN_OCR=off`), and the documents read again when it is switched
//! back on.

use super::Engine;
use crate::catalog::DocumentStatus;
use crate::error::Error;
use crate::pdf::OcrSettings;

/// The catalog setting that holds the switch: "off", or "on" (the default).
const OCR_SETTING: &str = "ocr";

impl Engine {
    /// Whether this library's settings have OCR on.
    pub fn ocr_on(&self) -> Result<bool, Error> {
        Ok(self.catalog().setting(OCR_SETTING)?.as_deref() != Some("off"))
    }

    /// How pages without text are read by OCR, or `None` when it is off here or everywhere.
    pub fn ocr_settings(&self) -> Result<Option<OcrSettings>, Error> {
        if !self.ocr_on()? {
            return Ok(None);
        }
        Ok(self.config().ocr_settings())
    }

    /// Switches OCR on or off for this library. Switched on, the documents with pages it could
    /// read are queued again: those without text, and ready ones whose note names such pages.
    pub fn switch_ocr(&self, on: bool) -> Result<(), Error> {
        let was_on = self.ocr_on()?;
        self.catalog().set_setting(OCR_SETTING, if on { "on" } else { "off" })?;
        if on && !was_on {
            let waiting: Vec<_> = self
                .catalog()
                .list_documents(None)?
                .into_iter()
                .filter(|doc| match doc.status {
                    DocumentStatus::NeedsOcr => true,
                    DocumentStatus::Ready => self
                        .dirs()
                        .manifest(doc.id)
                        .is_some_and(|m| m.pages_needing_ocr.len() > m.ocr_failures.len()),
                    _ => false,
                })
                .collect();
            for doc in waiting {
                self.requeue(doc.id)?;
            }
        }
        Ok(())
    }
}
