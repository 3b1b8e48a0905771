//! When a message searches, through the facade, for `lectern eval strategy`: the `smart`
//! strategy's judge (`ask/judge.rs`) and the `function` strategy's decision alone.

use super::{AskChoices, Library};
use crate::answer::Decision;
use crate::ask::{blocking, Need};
use crate::error::Error;
use crate::llm::{Cancel, Message};

impl Library {
    /// What each of `messages` needs, each as the next message after `history`, by the `smart`
    /// strategy's judge.
    pub async fn needs(&self, messages: Vec<String>, history: Vec<Message>) -> Result<Vec<Need>, Error> {
        self.asker.needs(messages, history).await
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
}
