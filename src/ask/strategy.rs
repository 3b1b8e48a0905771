//! The first step of a question's path: whether it searches, and for what. The chat's strategy
//! decides: `smart` asks the judge (`judge.rs`: small talk needs no passages, a request about the
//! last answer needs that answer's question's passages), `function` lets the model choose to
//! call the search tool, and `always` / `confidence` search every message for itself read with
//! the chat before it (`answer::retrieval_query`).

use std::sync::Arc;

use super::judge::{Judge, JudgeEmbedder, Need};
use super::{blocking, Asker, Events, MadeJudge};
use crate::answer::{Answer, AnswerSettings, Decision};
use crate::catalog::Strategy;
use crate::error::Error;
use crate::llm::{Cancel, LanguageModel, Message, Role};

/// What the strategy decided for a message.
pub(super) enum Step {
    /// Search for this.
    Search(String),
    /// Answered without a search (small talk, or the model chose not to search).
    Answered(Answer),
}

impl Asker {
    /// What `question` (after `history`) searches for, by `strategy`; with no model, every
    /// message searches for itself.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn step(
        &self,
        question: &str,
        history: &[Message],
        strategy: Strategy,
        model: Option<&Arc<dyn LanguageModel>>,
        settings: &AnswerSettings,
        cancel: &Cancel,
        events: &Events,
    ) -> Result<Step, Error> {
        let itself = || crate::answer::retrieval_query(question, history);
        // Without a model, and by `always` and `confidence`, every message searches for itself.
        let model = match (strategy, model) {
            (Strategy::Smart | Strategy::Function, Some(model)) => model.clone(),
            _ => return Ok(Step::Search(itself())),
        };
        let (question, history, settings, cancel, mut send) = (
            question.to_string(),
            history.to_vec(),
            *settings,
            cancel.clone(),
            events.sink(),
        );
        if strategy == Strategy::Function {
            let decided = blocking("choosing whether to search", move || {
                crate::answer::decide(model.as_ref(), &question, &history, &settings, &cancel, &mut send)
            })
            .await?;
            return Ok(match decided {
                Decision::Search(query) => Step::Search(query),
                Decision::Replied(answer) => Step::Answered(answer),
            });
        }
        match self.needs(vec![question.clone()], history.clone()).await?[0] {
            Need::Documents => Ok(Step::Search(itself())),
            Need::LastAnswer => Ok(Step::Search(self.last_question(&history).await?.unwrap_or_else(itself))),
            Need::Nothing => {
                let answer = blocking("answering", move || {
                    crate::answer::small_talk(model.as_ref(), &question, &history, &settings, &cancel, &mut send)
                })
                .await?;
                Ok(Step::Answered(answer))
            }
        }
    }

    /// What each of `messages` needs, each as the next message after `history`, by the `smart`
    /// strategy's judge.
    pub async fn needs(&self, messages: Vec<String>, history: Vec<Message>) -> Result<Vec<Need>, Error> {
        let asker = self.clone();
        tokio::task::spawn_blocking(move || {
            let judge = asker.judge()?;
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

    /// The text searched for the chat's last question that needed the documents, read with the
    /// chat before it: a request about the last answer gets that answer's passages again.
    async fn last_question(&self, history: &[Message]) -> Result<Option<String>, Error> {
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

    /// The judge, made on first use (its examples embedded once) by the library's embedder and
    /// by the second stage's model too where it is installed; made again when that model came
    /// or went. Blocking.
    fn judge(&self) -> Result<Arc<Judge>, Error> {
        let second = self.engine.second_stage_model();
        let mut slot = self.judge.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(MadeJudge { second_stage, judge }) = slot.as_ref() {
            if second_stage.as_ref().map(Arc::as_ptr) == second.as_ref().map(Arc::as_ptr) {
                return Ok(judge.clone());
            }
        }
        let mut embedders = vec![JudgeEmbedder::Library(self.engine.embedder()?)];
        embedders.extend(second.clone().map(JudgeEmbedder::Nomic));
        let judge = Arc::new(Judge::new(embedders)?);
        *slot = Some(MadeJudge {
            second_stage: second,
            judge: judge.clone(),
        });
        Ok(judge)
    }
}
