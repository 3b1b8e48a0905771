//! The question's path, with one owner: from a question (and the chat before it) to an answer
//! with its citations. `library/` hands a question here and keeps the chat; everything between
//! is in this folder, in the order it runs:
//!
//! ```text
//! question ─► strategy.rs   search, reuse the last question's passages, or answer unsearched
//!          ─► about.rs      a question naming no document ("page 14") narrowed to the one the
//!                           chat is about, or the likeliest offered to choose from
//!          ─► remote::search  this library's indexes (search/) and remote ones, fused by rank
//!          ─► figures.rs    the filings' calculator: a figure computed from the statements' rows
//!          ─► answer::answer the model given the passages (or the passages themselves): its
//!                           numbers checked, its support checked, its citations resolved
//!          ─► Answered      the answer, what the search found, how it was decided
//! ```
//!
//! Each step says what it is doing as it starts ([`AnswerEvent::Stage`]), so that a window can
//! show more than an empty bubble while the passages are read.

mod about;
mod examples;
mod figures;
mod judge;
mod pipeline;
mod request;
mod strategy;

use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::UnboundedSender;

use crate::answer::AnswerEvent;
use crate::embed::GgufEmbedder;
use crate::engine::Engine;
use crate::error::Error;
use judge::Judge;
pub use judge::Need;
pub use request::{About, Answered, AskRequest, AskedOf, Because, Question, Retrieval};

/// Asks the questions of one library: its engine, and the `smart` strategy's judge, made on first
/// use. Cloning is cheap; clones share the judge.
#[derive(Clone)]
pub struct Asker {
    engine: Arc<Engine>,
    /// The judge, and the second stage's model it was made with: a judge made before that model
    /// was installed (or after it went) is made again.
    judge: Arc<Mutex<Option<MadeJudge>>>,
}

/// A judge, and the second stage's model it was made with.
struct MadeJudge {
    second_stage: Option<Arc<GgufEmbedder>>,
    judge: Arc<Judge>,
}

impl Asker {
    pub fn new(engine: Arc<Engine>) -> Asker {
        Asker {
            engine,
            judge: Arc::new(Mutex::new(None)),
        }
    }
}

/// Where an answer's events go, if anywhere.
#[derive(Clone)]
struct Events(Option<UnboundedSender<AnswerEvent>>);

impl Events {
    fn send(&self, event: AnswerEvent) {
        if let Some(events) = &self.0 {
            // A listener gone (the window closed) does not stop the answer.
            let _ = events.send(event);
        }
    }

    /// A sink for the answerers, which run on blocking threads.
    fn sink(&self) -> impl FnMut(AnswerEvent) + Send + 'static {
        let events = self.clone();
        move |event| events.send(event)
    }
}

/// Runs `work` (a model's generation) off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> Result<T, crate::llm::LlmError> + Send + 'static,
) -> Result<T, Error> {
    Ok(tokio::task::spawn_blocking(work)
        .await
        .map_err(Error::stopped(what))??)
}
