//! [`Library::ask`]: a question in a chat, through the facade: the chat's scope, history and
//! strategy read, the question handed to its path (`ask/`), and both turns kept with their
//! citations; and the chats themselves.

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::mpsc::UnboundedSender;

use super::choices::{AskAt, AskChoices, AskPlan};
use super::Library;
use crate::answer::{Answer, AnswerEvent};
use crate::ask::{About, Answered, AskRequest, AskedOf, Because, Question, Retrieval};
use crate::catalog::{CatalogError, Chat, ChatId, ChatMessage, DocumentId, NewMessage, Strategy};
use crate::error::Error;
use crate::llm::{Backend, Cancel, LanguageModel, Message, Role};
use crate::search::SearchResults;

/// An answered question.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AskOutcome {
    pub chat: Chat,
    /// The answer as saved in the chat (the id [`Library::export_answer`] takes).
    pub message: i64,
    pub answer: Answer,
    /// What retrieval found (the answer's citations point into it).
    pub results: SearchResults,
    /// How it was decided whether to search.
    pub retrieval: Retrieval,
    /// The one document a question naming none was asked of, and why that one.
    pub asked_of: Option<AskedOf>,
}

impl Library {
    /// Answers `question` as the user chose: `choices` over the saved settings, the environment
    /// and the defaults ([`Library::plan_answer`]), the model loaded once and kept (off the async
    /// threads); otherwise as [`Library::ask`].
    pub async fn ask_as_chosen(
        &self,
        question: String,
        at: AskAt,
        choices: &AskChoices,
        cancel: &Cancel,
        events: Option<UnboundedSender<AnswerEvent>>,
    ) -> Result<AskOutcome, Error> {
        let (plan, model) = self.chosen_model(choices).await?;
        self.ask(&plan.request(question, at), model, cancel, events).await
    }

    /// Answers `question` as [`Library::ask_as_chosen`] does, but keeps nothing: no chat is made
    /// or changed.
    pub async fn answer_as_chosen(
        &self,
        question: Question,
        choices: &AskChoices,
        cancel: &Cancel,
        events: Option<UnboundedSender<AnswerEvent>>,
    ) -> Result<Answered, Error> {
        let (plan, model) = self.chosen_model(choices).await?;
        let request = plan.request(question.text, AskAt::default());
        let strategy = match request.strategy {
            Some(strategy) => strategy,
            None => self.engine.catalog().default_strategy(&question.scope)?,
        };
        self.asker
            .answer(
                &request,
                &question.scope,
                question.history,
                strategy,
                model,
                cancel,
                events,
            )
            .await
    }

    /// The plan for `choices` and its model, loaded (or taken from those kept) off the async
    /// threads.
    pub(super) async fn chosen_model(
        &self,
        choices: &AskChoices,
    ) -> Result<(AskPlan, Option<Arc<dyn LanguageModel>>), Error> {
        let plan = self.plan_answer(choices)?;
        let engine = self.engine.clone();
        let (backend, threads) = (plan.backend.clone(), plan.threads);
        let model = tokio::task::spawn_blocking(move || engine.language_model(&backend, threads))
            .await
            .map_err(Error::stopped("loading the language model"))??;
        Ok((plan, model))
    }

    /// Registers an answer about to be generated under `id` (the app's stop button names it)
    /// and returns its cancel flag; [`Library::finish_answer`] forgets it.
    pub fn start_answer(&self, id: &str) -> Cancel {
        self.engine.start_answer(id)
    }

    pub fn finish_answer(&self, id: &str) {
        self.engine.finish_answer(id)
    }

    /// Stops the answer `id`, if it is still being generated; returns whether it was.
    pub fn cancel_answer(&self, id: &str) -> bool {
        self.engine.cancel_answer(id)
    }

    /// The model of `backend` (`None` for extractive answers), loaded once and kept while the
    /// backend and thread count stay the same. Blocking: call it off the async threads.
    pub fn language_model(&self, backend: &Backend, threads: usize) -> Result<Option<Arc<dyn LanguageModel>>, Error> {
        self.engine.language_model(backend, threads)
    }

    /// Answers `request` with `model` (extractively without one), sending the answer to `events`
    /// as it is made; the question and the answer are added to the chat, also when `cancel` stops
    /// the answer part-way. A question that names no document is asked of the one the request
    /// says the chat is about, else of the one the chat's last answer cited (`ask/about.rs`). A
    /// question that fails before it is answered (no model, nothing in scope, a server down, no
    /// document to ask it of) changes nothing: no new chat, no change of scope.
    pub async fn ask(
        &self,
        request: &AskRequest,
        model: Option<Arc<dyn LanguageModel>>,
        cancel: &Cancel,
        events: Option<UnboundedSender<AnswerEvent>>,
    ) -> Result<AskOutcome, Error> {
        let mut request = request.clone();
        let (scope, history, strategy) = {
            let catalog = self.engine.catalog();
            let (scope, history, strategy) = match request.chat {
                Some(id) => {
                    let chat = catalog.chat(id)?;
                    let messages = catalog.chat_messages(id)?;
                    request.about = request.about.or_else(|| {
                        last_cited(&messages).map(|document| About {
                            document,
                            because: Because::Cited,
                        })
                    });
                    let history: Vec<Message> = messages.into_iter().map(|m| Message::new(m.role, m.content)).collect();
                    (request.scope.clone().unwrap_or(chat.scope), history, chat.strategy)
                }
                None => (request.scope.clone().unwrap_or_default(), Vec::new(), None),
            };
            let strategy = match request.strategy.or(strategy) {
                Some(strategy) => strategy,
                None => catalog.default_strategy(&scope)?,
            };
            (scope, history, strategy)
        };
        let request = &request;
        let Answered {
            answer: answered,
            results,
            retrieval,
            asked_of,
        } = self
            .asker
            .answer(request, &scope, history, strategy, model, cancel, events)
            .await?;

        let catalog = self.engine.catalog();
        let chat = match request.chat {
            Some(id) => {
                if request.scope.is_some() {
                    catalog.set_chat_scope(id, &scope)?;
                }
                id
            }
            None => catalog.create_chat(&request.question, &scope)?.id,
        };
        if request.strategy.is_some() {
            catalog.set_chat_strategy(chat, request.strategy)?;
        }
        catalog.add_chat_message(
            chat,
            &NewMessage {
                role: Role::User,
                content: &request.question,
                citations: &[],
                kind: None,
                backend: None,
            },
        )?;
        let message = catalog.add_chat_message(
            chat,
            &NewMessage {
                role: Role::Assistant,
                content: &answered.body,
                citations: &answered.citations,
                kind: Some(answered.kind),
                backend: Some(&answered.backend),
            },
        )?;
        Ok(AskOutcome {
            chat: catalog.chat(chat)?,
            message,
            answer: answered,
            results,
            retrieval,
            asked_of,
        })
    }

    /// The chat with this id, or with the only id that starts with it (as for documents).
    pub fn find_chat(&self, id: &str) -> Result<ChatId, Error> {
        if let Ok(full) = id.trim().parse::<ChatId>() {
            return Ok(self.engine.catalog().chat(full)?.id);
        }
        let wanted = id.trim().to_lowercase();
        let matches: Vec<ChatId> = self
            .chats()?
            .into_iter()
            .map(|c| c.id)
            .filter(|c| !wanted.is_empty() && c.to_string().starts_with(&wanted))
            .collect();
        match <[ChatId; 1]>::try_from(matches) {
            Ok([chat]) => Ok(chat),
            Err(_) => Err(CatalogError::ChatNotFound(id.to_string()).into()),
        }
    }

    pub fn chats(&self) -> Result<Vec<Chat>, Error> {
        Ok(self.engine.catalog().list_chats()?)
    }

    /// A chat and its messages, oldest first.
    pub fn chat(&self, id: ChatId) -> Result<(Chat, Vec<ChatMessage>), Error> {
        let catalog = self.engine.catalog();
        Ok((catalog.chat(id)?, catalog.chat_messages(id)?))
    }

    pub fn rename_chat(&self, id: ChatId, title: &str) -> Result<Chat, Error> {
        Ok(self.engine.catalog().rename_chat(id, title)?)
    }

    /// Sets the chat's own retrieval strategy (`None`: its folders' default from now on).
    pub fn set_chat_strategy(&self, id: ChatId, strategy: Option<Strategy>) -> Result<Chat, Error> {
        let catalog = self.engine.catalog();
        catalog.set_chat_strategy(id, strategy)?;
        Ok(catalog.chat(id)?)
    }

    pub fn delete_chat(&self, id: ChatId) -> Result<(), Error> {
        Ok(self.engine.catalog().delete_chat(id)?)
    }

    /// The chat as one markdown document (see [`crate::answer::chat_markdown`]).
    pub fn export_chat(&self, id: ChatId) -> Result<String, Error> {
        let (chat, messages) = self.chat(id)?;
        Ok(crate::answer::chat_markdown(&chat.title, &messages))
    }

    /// One answer of a chat as a markdown document: the question it answers as the title, the
    /// answer, and its footnotes with their quotes.
    pub fn export_answer(&self, id: ChatId, message: i64) -> Result<String, Error> {
        let (_, messages) = self.chat(id)?;
        let at = messages
            .iter()
            .position(|m| m.id == message && m.role == Role::Assistant)
            .ok_or_else(|| CatalogError::AnswerNotFound {
                chat: id.to_string(),
                message,
            })?;
        let question = messages[..at]
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .map_or("Answer", |m| m.content.trim());
        Ok(crate::answer::chat_markdown(question, &messages[at..=at]))
    }
}

/// The document of this library the chat's last answer cited most (the first cited of those
/// cited as often), if it cited any.
fn last_cited(messages: &[ChatMessage]) -> Option<DocumentId> {
    let last = messages.iter().rev().find(|m| m.role == Role::Assistant)?;
    let mut counts: Vec<(DocumentId, usize)> = Vec::new();
    for citation in last.citations.iter().filter(|c| c.remote.is_none()) {
        match counts.iter_mut().find(|(d, _)| *d == citation.document) {
            Some((_, n)) => *n += 1,
            None => counts.push((citation.document, 1)),
        }
    }
    let most = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == most).map(|(d, _)| d)
}
