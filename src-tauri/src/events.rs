//! The indexer's events, forwarded to the window for the app's lifetime.

use lectern::jobs::IndexEvent;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;

/// Hands every event to `emit` until the library closes. A burst larger than the channel (one
/// event a page, a large import) makes this fall behind: the events it missed are skipped and the
/// next ones go on (the window reads the state from the library whenever an event comes).
pub async fn forward(mut events: Receiver<IndexEvent>, emit: impl Fn(&IndexEvent)) {
    loop {
        match events.recv().await {
            Ok(event) => emit(&event),
            Err(RecvError::Lagged(_)) => {}
            Err(RecvError::Closed) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use lectern::DocumentId;
    use tokio::sync::broadcast;

    use super::*;

    #[test]
    fn the_window_keeps_hearing_the_indexer_after_a_burst_it_could_not_keep_up_with() {
        let (sender, events) = broadcast::channel(4);
        let documents: Vec<DocumentId> = (0..10).map(|_| DocumentId::new_random()).collect();
        for &document in &documents {
            sender.send(IndexEvent::Queued { document }).unwrap();
        }
        let after = DocumentId::new_random();
        sender.send(IndexEvent::Started { document: after }).unwrap();
        drop(sender);

        let heard = Mutex::new(Vec::new());
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(forward(events, |e| heard.lock().unwrap().push(e.document())));
        let heard = heard.into_inner().unwrap();
        assert_eq!(heard.last(), Some(&after), "{heard:?}");
        assert_eq!(heard.len(), 4, "the newest events, as many as the channel keeps");
    }
}
