//! What the indexer tells its subscribers (the CLI's progress bars, the desktop app's events).

use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;

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
    /// Pages read so far, and the page being read by OCR, if one is.
    Progress {
        document: DocumentId,
        pages_done: u64,
        pages_total: u64,
        ocr_page: Option<u32>,
    },
    /// Reading the document reached an end state (`ready`: searchable, by keyword until it is
    /// embedded); `reused_from` names the document whose index was reused because it has the
    /// same content.
    Finished {
        document: DocumentId,
        status: DocumentStatus,
        reason: Option<String>,
        reused_from: Option<DocumentId>,
    },
    /// Chunks of a ready document embedded so far; `resumed_from` of them by an earlier run
    /// that was interrupted.
    Embedding {
        document: DocumentId,
        chunks_done: u64,
        chunks_total: u64,
        resumed_from: u64,
    },
    /// The document's index holds the vectors of the library's model: it is searchable by
    /// meaning too.
    Embedded { document: DocumentId },
    /// Embedding the document failed; it stays searchable by keyword and is tried again later.
    EmbeddingFailed { document: DocumentId, reason: String },
}

impl IndexEvent {
    /// The document the event concerns.
    pub fn document(&self) -> DocumentId {
        match self {
            IndexEvent::Queued { document }
            | IndexEvent::Started { document }
            | IndexEvent::Progress { document, .. }
            | IndexEvent::Finished { document, .. }
            | IndexEvent::Embedding { document, .. }
            | IndexEvent::Embedded { document }
            | IndexEvent::EmbeddingFailed { document, .. } => *document,
        }
    }
}

/// The next event of a subscription, `None` once the library is gone. A subscriber slower than a
/// burst (one event a page, a large import) misses the events the channel could not keep and goes
/// on with the next ones: whoever shows progress reads the state from the library anyway.
pub async fn next_event(events: &mut Receiver<IndexEvent>) -> Option<IndexEvent> {
    loop {
        match events.recv().await {
            Ok(event) => return Some(event),
            Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::sync::broadcast;

    use super::*;

    #[tokio::test]
    async fn a_subscriber_keeps_hearing_the_indexer_after_a_burst_it_could_not_keep_up_with() {
        let (sender, mut events) = broadcast::channel(4);
        for _ in 0..10 {
            sender
                .send(IndexEvent::Queued {
                    document: DocumentId::new_random(),
                })
                .unwrap();
        }
        let after = DocumentId::new_random();
        sender.send(IndexEvent::Started { document: after }).unwrap();
        drop(sender);

        let mut heard = Vec::new();
        while let Some(event) = next_event(&mut events).await {
            heard.push(event.document());
        }
        assert_eq!(heard.last(), Some(&after), "{heard:?}");
        assert_eq!(heard.len(), 4, "the newest events, as many as the channel keeps");
    }
}
