//! [`Library::ask`]: a question in a chat: retrieve over the chat's scope, answer with the chosen
//! model (or extractively) while streaming, and keep both turns with their citations.

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::mpsc::UnboundedSender;

use super::Library;
use crate::answer::{answer, Answer, AnswerEvent, AnswerSettings};
use crate::catalog::{Chat, ChatId, ChatMessage, NewMessage, Scope};
use crate::llm::{Cancel, LanguageModel, Message, Role};
use crate::search::{SearchMode, SearchRequest, SearchResults};
use crate::Error;

/// A question to answer.
#[derive(Debug, Clone)]
pub struct AskRequest {
    pub question: String,
    /// The chat to continue; a new one is started without it.
    pub chat: Option<ChatId>,
    /// The scope to ask over: a new chat's scope, or a new scope for the chat from now on.
    /// Without it, the chat's scope (the whole library for a new chat).
    pub scope: Option<Scope>,
    /// How many passages to retrieve.
    pub k: usize,
    pub mode: SearchMode,
    pub settings: AnswerSettings,
}

impl AskRequest {
    pub fn new(question: impl Into<String>) -> AskRequest {
        AskRequest {
            question: question.into(),
            chat: None,
            scope: None,
            k: 10,
            mode: SearchMode::Hybrid,
            settings: AnswerSettings::default(),
        }
    }
}

/// An answered question.
#[derive(Debug, Clone, Serialize)]
pub struct AskOutcome {
    pub chat: Chat,
    pub answer: Answer,
    /// What retrieval found (the answer's citations point into it).
    pub results: SearchResults,
}

impl Library {
    /// Answers `request` with `model` (extractively without one), sending the answer to `events`
    /// as it is made; the question and the answer are added to the chat, also when `cancel` stops
    /// the answer part-way.
    pub async fn ask(
        &self,
        request: &AskRequest,
        model: Option<Arc<dyn LanguageModel>>,
        cancel: &Cancel,
        events: Option<UnboundedSender<AnswerEvent>>,
    ) -> Result<AskOutcome, Error> {
        let chat = {
            let catalog = self.catalog();
            match (request.chat, &request.scope) {
                (Some(id), Some(scope)) => {
                    catalog.set_chat_scope(id, scope)?;
                    catalog.chat(id)?
                }
                (Some(id), None) => catalog.chat(id)?,
                (None, scope) => catalog.create_chat(&request.question, &scope.clone().unwrap_or_default())?,
            }
        };
        let history: Vec<Message> = self
            .catalog()
            .chat_messages(chat.id)?
            .into_iter()
            .map(|m| Message::new(m.role, m.content))
            .collect();
        let results = self
            .search(&SearchRequest {
                query: request.question.clone(),
                scope: chat.scope.clone(),
                k: request.k,
                mode: request.mode,
            })
            .await?;

        let (question, settings, cancel) = (request.question.clone(), request.settings, cancel.clone());
        let hits = results.hits.clone();
        let answered = tokio::task::spawn_blocking(move || {
            answer(
                model.as_deref(),
                &question,
                &history,
                &hits,
                &settings,
                &cancel,
                &mut |event| {
                    if let Some(events) = &events {
                        let _ = events.send(event);
                    }
                },
            )
        })
        .await
        .map_err(|e| Error::Task(e.to_string()))??;

        let mut catalog = self.catalog();
        catalog.add_chat_message(
            chat.id,
            &NewMessage {
                role: Role::User,
                content: &request.question,
                citations: &[],
                kind: None,
                backend: None,
            },
        )?;
        catalog.add_chat_message(
            chat.id,
            &NewMessage {
                role: Role::Assistant,
                content: &answered.body,
                citations: &answered.citations,
                kind: Some(answered.kind),
                backend: Some(&answered.backend),
            },
        )?;
        Ok(AskOutcome {
            chat: catalog.chat(chat.id)?,
            answer: answered,
            results,
        })
    }

    pub fn chats(&self) -> Result<Vec<Chat>, Error> {
        Ok(self.catalog().list_chats()?)
    }

    /// A chat and its messages, oldest first.
    pub fn chat(&self, id: ChatId) -> Result<(Chat, Vec<ChatMessage>), Error> {
        let catalog = self.catalog();
        Ok((catalog.chat(id)?, catalog.chat_messages(id)?))
    }

    pub fn rename_chat(&self, id: ChatId, title: &str) -> Result<Chat, Error> {
        Ok(self.catalog().rename_chat(id, title)?)
    }

    pub fn delete_chat(&self, id: ChatId) -> Result<(), Error> {
        Ok(self.catalog().delete_chat(id)?)
    }

    /// The chat as one markdown document: each question and answer, the answers' footnotes
    /// numbered through the whole chat, and the reference list at the end.
    pub fn export_chat(&self, id: ChatId) -> Result<String, Error> {
        let (chat, messages) = self.chat(id)?;
        let mut out = format!("# {}\n", chat.title);
        let mut references = Vec::new();
        let mut offset = 0;
        for message in &messages {
            match message.role {
                Role::User => out.push_str(&format!("\n## {}\n", message.content.trim())),
                Role::Assistant | Role::System => {
                    let (body, list) = crate::answer::renumber_footnotes(&message.content, &message.citations, offset);
                    offset += message.citations.len();
                    out.push_str(&format!("\n{}\n", body.trim()));
                    if !list.is_empty() {
                        references.push(list);
                    }
                }
            }
        }
        if !references.is_empty() {
            out.push_str(&format!("\n---\n\n{}\n", references.join("\n")));
        }
        Ok(out)
    }
}
