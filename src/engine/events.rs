//! What the indexer tells its subscribers (the CLI's progress bars, the desktop app's events).

use serde::Serialize;

use crate::catalog::{DocumentId, DocumentStatus};

/// One thing that happened to a document in the indexing queue.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IndexEvent {
    /// The document was added to the queue.
    Queued { document: DocumentId },
    /// Indexing of the document began.
    Started { document: DocumentId },
    /// Pages extracted and chunks embedded so far.
    Progress {
        document: DocumentId,
        pages_done: u64,
        pages_total: u64,
        chunks_embedded: u64,
    },
    /// The document reached an end state; `reused_from` names the document whose index was
    /// reused because it has the same content.
    Finished {
        document: DocumentId,
        status: DocumentStatus,
        reason: Option<String>,
        reused_from: Option<DocumentId>,
    },
}

impl IndexEvent {
    /// The document the event concerns.
    pub fn document(&self) -> DocumentId {
        match self {
            IndexEvent::Queued { document }
            | IndexEvent::Started { document }
            | IndexEvent::Progress { document, .. }
            | IndexEvent::Finished { document, .. } => *document,
        }
    }
}
