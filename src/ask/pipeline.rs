//! [`Asker::answer`]: the question's path from the strategy's step to the answer, each step in
//! the order it runs (the folder's doc draws it).

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::request::{Answered, AskRequest, Retrieval};
use super::strategy::Step;
use super::{blocking, Asker, Events};
use crate::answer::{Answer, AnswerEvent, Stage};
use crate::catalog::{Scope, Strategy};
use crate::error::Error;
use crate::llm::{Cancel, LanguageModel, Message};
use crate::search::{SearchMode, SearchRequest, SearchResults};

impl Asker {
    /// Answers `request`'s question (read with `history`) in `scope` as `strategy` says: from
    /// the passages a search finds, from the last question's passages, or from none (small talk,
    /// or the model chose not to search); with `model`, or extractively without one (when every
    /// message is searched). Sends the answer to `events` as it is made, each step announced as
    /// it starts. Keeps nothing.
    #[allow(clippy::too_many_arguments)]
    pub async fn answer(
        &self,
        request: &AskRequest,
        scope: &Scope,
        history: Vec<Message>,
        strategy: Strategy,
        model: Option<Arc<dyn LanguageModel>>,
        cancel: &Cancel,
        events: Option<UnboundedSender<AnswerEvent>>,
    ) -> Result<Answered, Error> {
        let events = Events(events);
        // The embedder's floor; its models are loaded already when the question was embedded.
        let mut settings = request.settings;
        if settings.relevance_floor.is_none() && request.mode != SearchMode::Keyword {
            settings.relevance_floor = self.engine.embedder()?.relevance_floor();
        }
        let question = request.question.as_str();
        let query = match self
            .step(question, &history, strategy, model.as_ref(), &settings, cancel, &events)
            .await?
        {
            Step::Search(query) => query,
            Step::Answered(answer) => {
                return Ok(Answered {
                    answer,
                    results: SearchResults::empty("", request.mode),
                    retrieval: Retrieval { strategy, query: None },
                    asked_of: None,
                })
            }
        };

        events.send(AnswerEvent::stage(Stage::Searching));
        let (scope, asked_of) = self.narrow(request, scope).await?;
        let scope = &scope;
        let mut results = crate::remote::search(
            &self.engine,
            &SearchRequest {
                query: query.clone(),
                scope: scope.clone(),
                k: request.k,
                mode: request.mode,
                second_stage: request.second_stage,
            },
        )
        .await?;
        let retrieval = Retrieval {
            strategy,
            query: Some(query),
        };
        // A remote library that could not be asked is said first; the answer uses the rest.
        let note: String = results
            .unreachable
            .iter()
            .map(|u| format!("(Not searched: {}.)\n\n", u.reason.trim_end_matches('.')))
            .collect();
        if !note.is_empty() {
            events.send(AnswerEvent::Text { text: note.clone() });
        }
        let noted = |answer: Answer| Answer {
            body: format!("{note}{}", answer.body),
            ..answer
        };

        // The answerers in turn: the filings' calculator, then the model or the passages.
        if let Some((computed, rows)) = self.computed_figure(question, scope, &results.hits, &events).await? {
            results.hits.extend(rows);
            return Ok(Answered {
                answer: noted(computed),
                results,
                retrieval,
                asked_of,
            });
        }
        let (question, hits, mut send) = (request.question.clone(), results.hits.clone(), events.sink());
        let cancel = cancel.clone();
        let answered = blocking("answering", move || {
            let hits = if strategy == Strategy::Confidence {
                let confident = crate::answer::confident(&hits, settings.relevance_floor);
                if confident.is_empty() {
                    return Ok(crate::answer::not_found(&question, &hits, &settings, &mut send));
                }
                confident
            } else {
                hits
            };
            crate::answer::answer(
                model.as_deref(),
                &question,
                &history,
                &hits,
                &settings,
                &cancel,
                &mut send,
            )
        })
        .await?;
        Ok(Answered {
            answer: noted(answered),
            results,
            retrieval,
            asked_of,
        })
    }
}
