//! When a message searches, through the facade: the `smart` strategy's judge (by the library's
//! embedder and the second stage's model), the chat's last question that needed the documents
//! (whose passages a request about its answer gets), and the `function` strategy's decision
//! alone, for `lectern eval strategy`.

use super::ask::blocking;
use super::{AskChoices, Library};
use crate::answer::strategy::Need;
use crate::answer::Decision;
use crate::error::Error;
use crate::llm::{Cancel, Message, Role};

impl Library {
    /// What each of `messages` needs, each as the next message after `history`, by the `smart`
    /// strategy's judge.
    pub async fn needs(&self, messages: Vec<String>, history: Vec<Message>) -> Result<Vec<Need>, Error> {
        let engine = self.engine.clone();
        tokio::task::spawn_blocking(move || {
            let judge = engine.judge()?;
            let mut needs = Vec::with_capacity(messages.len());
            for batch in messages.chunks(32) {
                let texts: Vec<&str> = batch.iter().map(String::as_str).collect();
                needs.extend(judge.needs(&texts, &history)?);
            }
            Ok(needs)
        })
        .await
        .map_err(Error::stopped("judging the messages"))?
    }

    /// Whether the model `choices` name searches for each of `messages` (the `function`
    /// strategy's decision), each as the next message after `history`; the model's first turn
    /// only, cut at `max_tokens`.
    pub async fn model_searches(
        &self,
        messages: Vec<String>,
        history: Vec<Message>,
        choices: &AskChoices,
        max_tokens: usize,
    ) -> Result<Vec<bool>, Error> {
        let (plan, model) = self.chosen_model(choices).await?;
        let Some(model) = model else {
            return Err(Error::Config {
                name: "backend".into(),
                reason: "the function strategy needs a language model; extractive answers always search".into(),
            });
        };
        let mut settings = plan.settings;
        settings.generate.max_tokens = max_tokens;
        blocking("choosing whether to search", move || {
            let cancel = Cancel::new();
            messages
                .iter()
                .map(|message| {
                    let decided =
                        crate::answer::decide(model.as_ref(), message, &history, &settings, &cancel, &mut |_| {})?;
                    Ok(matches!(decided, Decision::Search(_)))
                })
                .collect()
        })
        .await
    }

    /// The text searched for the chat's last question that needed the documents, read with the
    /// chat before it: a request about the last answer gets that answer's passages again.
    pub(super) async fn last_question(&self, history: &[Message]) -> Result<Option<String>, Error> {
        for (at, message) in history.iter().enumerate().rev() {
            if message.role != Role::User {
                continue;
            }
            let before = history[..at].to_vec();
            if self.needs(vec![message.content.clone()], before.clone()).await?[0] == Need::Documents {
                return Ok(Some(crate::answer::retrieval_query(&message.content, &before)));
            }
        }
        Ok(None)
    }
}
