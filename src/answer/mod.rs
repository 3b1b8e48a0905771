//! Answers to questions: the passages a model is given (`context.rs`), the sentences of its
//! prompt it may not repeat (`echo.rs`), the numbers it may give (`check.rs`: quoted, or
//! computed by Lectern), the citations it makes (`citations.rs`), and the answer as markdown
//! with footnotes and structured citations.
//!
//! Three ways to answer: a language model given the passages that fit its context; extractive,
//! where the best passages themselves are the answer; and, when even the best passage is below
//! the relevance floor, a plain "not found in these documents" with the nearest passages, so that
//! no model is asked to answer from text that does not bear on the question.
//!
//! A model that declines is given a second look before its decline is shown: the retrieved
//! passages that did not fit its prompt, if any bear on the question. An answer is held back
//! only while it may be a decline (until its first sentence ends), so one that does not decline
//! streams as it is written; when both looks decline, the first is shown, with the
//! best-ranked passages as the nearest. An answer is then checked against the passages it
//! cites (`support.rs`): one they do not bear out becomes a decline that keeps it as the
//! model's unconfirmed reading.

mod arithmetic;
mod check;
pub mod citations;
mod columns;
pub mod context;
mod echo;
pub mod figures;
mod followup;
pub mod grade;
mod highlight;
mod markdown;
mod numbers;
mod reply;
pub mod starters;
mod support;

use serde::{Deserialize, Serialize};

pub use crate::catalog::{AnswerKind, Citation};
use crate::llm::{Cancel, Finish, GenerateOptions, LanguageModel, LlmError, Message};
use crate::search::Hit;
use check::NumberCheck;
pub use check::NumberCounts;
use citations::{CitationParser, Piece};
use echo::EchoFilter;
pub use followup::retrieval_query;
pub use markdown::{chat_markdown, footnote_list};
pub use reply::{decide, search_tool, small_talk, Decision};

/// How answers are made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnswerSettings {
    /// The cosine similarity the best passage must reach for the question to count as answerable
    /// from the scope: the user's, else the embedder's (`Library::ask` fills it in), else none.
    pub relevance_floor: Option<f32>,
    /// How many passages an extractive answer quotes.
    pub extractive_passages: usize,
    /// How many nearest passages a "not found" answer lists.
    pub nearest_passages: usize,
    /// The most tokens a prompt for the built-in model may take (instructions, chat, passages,
    /// question), whatever its window: on a CPU, reading the prompt is most of the wait for the
    /// first word. A server's prompt fills its window.
    pub prompt_budget: usize,
    pub generate: GenerateOptions,
}

/// The default prompt budget in tokens; see docs/figures.md ("Answers measured").
pub const DEFAULT_PROMPT_BUDGET: usize = 1500;

impl Default for AnswerSettings {
    fn default() -> Self {
        AnswerSettings {
            relevance_floor: None,
            extractive_passages: 3,
            nearest_passages: 3,
            prompt_budget: DEFAULT_PROMPT_BUDGET,
            generate: GenerateOptions::default(),
        }
    }
}

/// The least share of the question's keyword weight (`ScoreComponents::keyword_share`) the best
/// passage must have where no cosine floor decides; see docs/figures.md ("The relevance floor").
pub const KEYWORD_FLOOR: f32 = 0.16;

/// Whether the best of `hits` bears on the question: a page the question named is among them
/// ("What is on page 14?" has no words to match, and page 14 answers it), or its cosine reaches
/// `floor` where there is one and vectors were compared, else its share of the question's
/// keyword weight reaches [`KEYWORD_FLOOR`]. Passages found by similarity alone with no floor
/// to judge them count.
fn bears_on_question(hits: &[Hit], floor: Option<f32>) -> bool {
    let best = |part: fn(&Hit) -> Option<f32>| hits.iter().filter_map(part).reduce(f32::max);
    if hits.is_empty() {
        return false;
    }
    if hits.iter().any(|h| h.components.named_page) {
        return true;
    }
    match (floor, best(|h| h.components.vector)) {
        (Some(floor), Some(cosine)) => cosine >= floor,
        _ => best(|h| h.components.keyword_share).is_none_or(|share| share >= KEYWORD_FLOOR),
    }
}

/// How far above the relevance floor a passage's cosine must be for the `confidence` strategy
/// to give it to the model: 0.40 for all-MiniLM-L6-v2, above the best passage of every question
/// its measured sets do not answer (docs/figures.md, "The relevance floor").
pub const CONFIDENCE_MARGIN: f32 = 0.12;

/// The share of the question's keyword weight a passage must have for the `confidence` strategy
/// where no cosine floor decides: above the best passage of nine in ten unanswerable questions.
pub const CONFIDENT_SHARE: f32 = 0.30;

/// Those of `hits` that clearly bear on the question (the `confidence` strategy): a cosine
/// [`CONFIDENCE_MARGIN`] above `floor` where both are known, else a keyword share of at least
/// [`CONFIDENT_SHARE`].
pub fn confident(hits: &[Hit], floor: Option<f32>) -> Vec<Hit> {
    hits.iter()
        .filter(|h| match (floor, h.components.vector) {
            (Some(floor), Some(cosine)) => cosine >= floor + CONFIDENCE_MARGIN,
            _ => h.components.keyword_share.is_some_and(|share| share >= CONFIDENT_SHARE),
        })
        .cloned()
        .collect()
}

/// "Not found in these documents", with the nearest of `hits`.
pub fn not_found(
    question: &str,
    hits: &[Hit],
    settings: &AnswerSettings,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Answer {
    quoted(
        AnswerKind::NotFound,
        question,
        hits,
        settings.nearest_passages,
        on_event,
    )
}

/// Footnote `number`, citing `hit`.
fn citation_of(number: usize, hit: &Hit) -> Citation {
    Citation {
        number,
        document: hit.document,
        document_name: hit.document_name.clone(),
        chunk_id: hit.chunk_id.clone(),
        page: hit.page,
        char_start: hit.char_start,
        char_end: hit.char_end,
        quote: hit.text.clone(),
        score: hit.score,
        remote: hit.remote.clone(),
    }
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Answer {
    pub kind: AnswerKind,
    /// The answer's text with footnote references `[^n]`, without the footnote list.
    pub body: String,
    pub citations: Vec<Citation>,
    pub finish: Finish,
    /// Which backend answered (empty when no model was asked).
    pub backend: String,
    /// How many passages the model was given.
    pub passages_supplied: usize,
    /// How the answer's numbers were checked (all zero for answers no model wrote).
    #[serde(default)]
    pub numbers: NumberCounts,
    /// The model's answer, when the passages it cites did not bear it out and Lectern gave a
    /// decline in its stead (`support.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub unconfirmed: Option<String>,
}

impl Answer {
    /// The answer as markdown: the body, then the footnotes.
    pub fn markdown(&self) -> String {
        let list = footnote_list(&self.citations);
        if list.is_empty() {
            self.body.clone()
        } else {
            format!("{}\n\n{list}", self.body.trim_end())
        }
    }
}

/// What an answer streams as it is made.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AnswerEvent {
    /// More of the body.
    Text { text: String },
    /// A footnote resolved for the first time.
    Citation { citation: Citation },
    /// A step of the question's path begins: what the window says until the answer's first
    /// words, and while its support is checked; `text` says it to a person.
    Stage { stage: Stage, text: String },
}

impl AnswerEvent {
    /// The event of `stage` beginning.
    pub fn stage(stage: Stage) -> AnswerEvent {
        let text = stage.to_string();
        AnswerEvent::Stage { stage, text }
    }
}

/// A step of the question's path, said as it begins.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Stage {
    /// The scope is searched.
    Searching,
    /// The statements of the filings the question is about are read, to compute the figure it
    /// asks for.
    Computing,
    /// The model reads `passages` passages of `documents` (their names, best first) before it
    /// writes; meanwhile the window shows the likeliest line of the best of them.
    Reading {
        passages: usize,
        documents: Vec<String>,
        likeliest: Option<Likeliest>,
    },
    /// The answer is checked against the passages it cites.
    Checking,
}

/// The line of the best passage most likely to answer, shown while the model reads: something
/// to read, and a page to open, in the seconds before the answer's first words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Likeliest {
    /// The line (a table row, or a sentence of a longer line), as the passage has it.
    pub line: String,
    /// The passage, to open at its page (footnote 1: the first excerpt the model reads).
    pub passage: Citation,
}

impl Stage {
    /// The model is about to read `passages` for `question`.
    fn reading(question: &str, passages: &[Hit]) -> AnswerEvent {
        let mut documents: Vec<String> = Vec::new();
        for passage in passages {
            if !documents.contains(&passage.document_name) {
                documents.push(passage.document_name.clone());
            }
        }
        let likeliest = passages.first().and_then(|best| {
            Some(Likeliest {
                line: highlight::best_line(question, &best.text)?,
                passage: citation_of(1, best),
            })
        });
        AnswerEvent::stage(Stage::Reading {
            passages: passages.len(),
            documents,
            likeliest,
        })
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::Searching => write!(f, "Searching the documents…"),
            Stage::Computing => write!(f, "Reading the statements' rows to compute the figure…"),
            Stage::Reading {
                passages, documents, ..
            } => {
                let of = match documents.as_slice() {
                    [] => String::new(),
                    [one] => format!(" of {one}"),
                    [first, rest @ ..] => {
                        let others = if rest.len() == 1 { "document" } else { "documents" };
                        format!(" of {first} and {} other {others}", rest.len())
                    }
                };
                let noun = if *passages == 1 { "passage" } else { "passages" };
                write!(f, "Reading {passages} {noun}{of} before writing…")
            }
            Stage::Checking => write!(f, "Checking the answer against the passages it cites…"),
        }
    }
}

/// Answers `question` from `hits` (retrieved for it, in rank order), with `model` or, without
/// one, extractively; `history` is the chat so far, oldest first.
pub fn answer(
    model: Option<&dyn LanguageModel>,
    question: &str,
    history: &[Message],
    hits: &[Hit],
    settings: &AnswerSettings,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Result<Answer, LlmError> {
    if !bears_on_question(hits, settings.relevance_floor) {
        return Ok(not_found(question, hits, settings, on_event));
    }
    let Some(model) = model else {
        let passages = context::merge(hits);
        return Ok(quoted(
            AnswerKind::Extractive,
            question,
            &passages,
            settings.extractive_passages,
            on_event,
        ));
    };
    let budget = if model.reads_prompt_here() {
        settings.prompt_budget
    } else {
        usize::MAX
    };
    let prompt = context::plan(model, question, history, hits, budget, settings.generate.max_tokens);
    if prompt.passages.is_empty() {
        return Err(LlmError::ContextFull {
            window: model.context_window(),
        });
    }
    // The passages that did not fit, for a second look before the answer declines.
    let rest: Vec<Hit> = hits
        .iter()
        .filter(|h| !prompt.passages.iter().any(|p| context::overlaps(h, p)))
        .cloned()
        .collect();
    let second = (!rest.is_empty() && bears_on_question(&rest, settings.relevance_floor))
        .then(|| context::plan(model, question, history, &rest, budget, settings.generate.max_tokens))
        .filter(|p| !p.passages.is_empty());
    on_event(Stage::reading(question, &prompt.passages));
    let Some(second) = second else {
        let first = respond(model, question, &prompt, settings, cancel, on_event)?;
        return confirm(model, question, history, &prompt.passages, first, cancel, on_event);
    };
    let declined = |gate: &DeclineGate, answer: &Answer| {
        gate.closed() && answer.finish != Finish::Cancelled && grade::declines(answer)
    };
    let mut gate = DeclineGate::default();
    let first = respond(model, question, &prompt, settings, cancel, &mut |event| {
        gate.pass(event, on_event)
    })?;
    if !declined(&gate, &first.answer) {
        gate.open(on_event);
        return confirm(model, question, history, &prompt.passages, first, cancel, on_event);
    }
    on_event(Stage::reading(question, &second.passages));
    let mut again = DeclineGate::default();
    let answered = respond(model, question, &second, settings, cancel, &mut |event| {
        again.pass(event, on_event)
    })?;
    if declined(&again, &answered.answer) {
        // Declined twice: the first decline shows the best-ranked passages as the nearest.
        gate.open(on_event);
        return Ok(first.answer);
    }
    again.open(on_event);
    confirm(model, question, history, &second.passages, answered, cancel, on_event)
}

/// The model's answer as it was when the `passages` it cites state it (or the check's reply is
/// unclear, or the check failed); else a decline that keeps the model's reading and quotes the
/// passages it cites (`support.rs`). Only the model's own answer is checked, not passages
/// Lectern quoted for it, nor one whose figures Lectern computed from the passages' numbers.
fn confirm(
    model: &dyn LanguageModel,
    question: &str,
    history: &[Message],
    passages: &[Hit],
    responded: Responded,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Result<Answer, LlmError> {
    let answer = responded.answer;
    // An answer whose figures Lectern computed from quoted numbers is borne out already.
    let computed = answer.numbers.computed > 0;
    if !responded.own || computed || answer.finish != Finish::Stop || says_not_found(&answer.body) {
        return Ok(answer);
    }
    let cited: Vec<Hit> = passages
        .iter()
        .filter(|p| {
            answer
                .citations
                .iter()
                .any(|c| c.chunk_id == p.chunk_id && c.char_start == p.char_start && c.char_end == p.char_end)
        })
        .cloned()
        .collect();
    if cited.is_empty() {
        return Ok(answer);
    }
    let earlier = history
        .iter()
        .rev()
        .find(|m| m.role == crate::llm::Role::User)
        .map(|m| m.content.as_str());
    let reading = support::reading(&answer.body);
    on_event(AnswerEvent::stage(Stage::Checking));
    // A check that could not be made (a server gone, the answer stopped) leaves the answer as
    // it was: the check may take an answer back, never lose one for its own failure.
    let verdict = support::check(model, question, earlier, &reading, &cited, cancel);
    if !matches!(verdict, Ok(support::Verdict::NotStated)) {
        return Ok(answer);
    }
    // What streamed is the model's answer; the reply that follows holds the decline.
    on_event(AnswerEvent::Text {
        text: format!("\n\n({})", support::NOT_STATED),
    });
    let mut body = support::withheld_lead(&reading);
    for citation in &answer.citations {
        quote(&citation.quote, citation.number, Some(question), &mut body, &mut |_| {});
    }
    Ok(Answer {
        body: body.trim_end().to_string(),
        unconfirmed: Some(answer.body.clone()),
        ..answer
    })
}

/// The longest first sentence held back as a possible decline, in bytes.
const DECLINE_LENGTH: usize = 300;

/// Holds back the events of an answer while it may be a decline: until its first sentence has
/// ended and does not say the documents do not say. Of two declines, the first look's is shown;
/// a decline is dropped when the second look answers.
#[derive(Default)]
struct DeclineGate {
    held: Vec<AnswerEvent>,
    text: String,
    open: bool,
}

impl DeclineGate {
    fn pass(&mut self, event: AnswerEvent, on_event: &mut dyn FnMut(AnswerEvent)) {
        if self.open {
            return on_event(event);
        }
        if let AnswerEvent::Text { text } = &event {
            self.text.push_str(text);
        }
        self.held.push(event);
        let first = echo::sentence_end(&self.text).map(|end| &self.text[..end]);
        // A first sentence this long without an end is not a decline.
        let long = first.is_none() && self.text.len() > DECLINE_LENGTH;
        if long || first.is_some_and(|sentence| !says_not_found(sentence)) {
            self.open(on_event);
        }
    }

    /// Whether events are still held back.
    fn closed(&self) -> bool {
        !self.open
    }

    /// Sends what is held and lets everything after it through.
    fn open(&mut self, on_event: &mut dyn FnMut(AnswerEvent)) {
        self.open = true;
        for event in self.held.drain(..) {
            on_event(event);
        }
    }
}

/// The model's answer to `prompt`: streamed through the echo filter, the number check and the
/// citation parser; an answer that declines, or had nothing of its own, shows the passages that
/// came nearest, and one that cites nothing cites the passage it draws on.
fn respond(
    model: &dyn LanguageModel,
    question: &str,
    prompt: &context::Prompt,
    settings: &AnswerSettings,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Result<Responded, LlmError> {
    let answered = respond_with(model, question, prompt, settings, on_event, &mut |on_text| {
        model
            .generate(&prompt.messages, &settings.generate, cancel, on_text)
            .map(Some)
    })?;
    answered.ok_or_else(|| LlmError::Runtime("the model's answer ended without a finish".into()))
}

/// A model's answer, and whether its body is the model's own answer rather than passages Lectern
/// quoted in its stead (after a decline, a withheld figure or an answer that names nothing).
struct Responded {
    answer: Answer,
    own: bool,
}

/// A generation that sends its text to the callback it is given: how it ended, or `None` when
/// the model called a tool instead of answering.
type Generate<'a> = dyn FnMut(&mut dyn FnMut(&str)) -> Result<Option<Finish>, LlmError> + 'a;

/// As [`respond`], with the text `generate` sends; `None` from it (the model called a tool
/// instead of answering, so sent nothing) is no answer.
fn respond_with(
    model: &dyn LanguageModel,
    question: &str,
    prompt: &context::Prompt,
    settings: &AnswerSettings,
    on_event: &mut dyn FnMut(AnswerEvent),
    generate: &mut Generate<'_>,
) -> Result<Option<Responded>, LlmError> {
    // The prompt's instructions, whichever they are, may not come back as an answer.
    let instructions = prompt
        .messages
        .first()
        .filter(|m| m.role == crate::llm::Role::System)
        .map_or(context::INSTRUCTIONS, |m| m.content.as_str());
    let mut echo = EchoFilter::new(&[instructions, context::ANSWER_CUE]);
    let mut seen: Vec<String> = prompt
        .passages
        .iter()
        .enumerate()
        .map(|(i, p)| context::passage_block(i + 1, &p.document_name, p.page, &p.context, &p.text))
        .collect();
    if prompt.passages.is_empty() {
        // A reply without passages may give what the chat's earlier answers gave.
        seen.extend(
            prompt
                .messages
                .iter()
                .filter(|m| m.role == crate::llm::Role::Assistant)
                .map(|m| m.content.clone()),
        );
    }
    let mut check = NumberCheck::new(question, &seen);
    let mut parser = CitationParser::new(prompt.passages.len());
    let mut body = String::new();
    let mut citations = Vec::new();
    let mut deliver = |pieces: Vec<Piece>, body: &mut String, citations: &mut Vec<Citation>| {
        for piece in pieces {
            match piece {
                Piece::Text(text) => {
                    body.push_str(&text);
                    on_event(AnswerEvent::Text { text });
                }
                Piece::NewFootnote { number, passage } => {
                    let citation = citation_of(number, &prompt.passages[passage]);
                    citations.push(citation.clone());
                    on_event(AnswerEvent::Citation { citation });
                }
            }
        }
    };
    let Some(finish) = generate(&mut |text| {
        deliver(parser.push(&check.push(&echo.push(text))), &mut body, &mut citations);
    })?
    else {
        return Ok(None);
    };
    deliver(parser.push(&check.push(&echo.finish())), &mut body, &mut citations);
    deliver(parser.push(&check.finish()), &mut body, &mut citations);
    deliver(parser.finish(), &mut body, &mut citations);
    // A stopped answer gets nothing more than what the reader saw.
    let stopped = finish == Finish::Cancelled;
    let uncited = citations.is_empty() && !stopped;
    let echo_only = uncited && body.trim().is_empty();
    if echo_only {
        // All the model wrote was its instructions: say so rather than show nothing.
        on_event(AnswerEvent::Text {
            text: NO_ANSWER.to_string(),
        });
        body = NO_ANSWER.to_string();
    }
    // Every sentence gave a figure that could not be checked: what is left is the note.
    let unchecked_only = !stopped && check.nothing_shown() && check.counts.withheld > 0;
    let nearest = !prompt.passages.is_empty();
    let mut own = false;
    if nearest && ((uncited && (echo_only || says_not_found(&body))) || unchecked_only) {
        // The passages were relevant enough to ask the model: show the best of them, so that
        // the reader can judge for themselves whether they answer.
        let text = "\n\nThe passages that came nearest:\n\n".to_string();
        on_event(AnswerEvent::Text { text: text.clone() });
        body = format!("{}{text}", body.trim_end());
        let shown = &prompt.passages[..prompt.passages.len().min(settings.nearest_passages)];
        citations = quote_passages(shown, Some(question), &mut body, on_event);
    } else if nearest && !stopped && !citations.is_empty() && names_nothing(&body, question, &prompt.passages) {
        // "The dataset used is [^1].": the model pointed at a passage without saying what it
        // holds. Show the passages it cited, with the line most likely to answer in bold.
        let text = "\n\nThe answer names nothing; the passages it cites:\n\n".to_string();
        on_event(AnswerEvent::Text { text: text.clone() });
        body = format!("{}{text}", body.trim_end());
        for citation in &citations {
            quote(&citation.quote, citation.number, Some(question), &mut body, on_event);
        }
    } else if uncited {
        own = true;
        // Small models often answer from a passage without citing it: cite the passage the
        // answer draws on, so it can still be checked against the page.
        let texts: Vec<&str> = prompt.passages.iter().map(|p| p.text.as_str()).collect();
        if let Some(passage) = highlight::supporting_passage(question, &body, &texts) {
            let citation = citation_of(1, &prompt.passages[passage]);
            let text = " [^1]".to_string();
            body = format!("{}{text}", body.trim_end());
            on_event(AnswerEvent::Text { text });
            on_event(AnswerEvent::Citation {
                citation: citation.clone(),
            });
            citations.push(citation);
        }
    } else {
        own = true;
    }
    let answer = Answer {
        kind: AnswerKind::Generated,
        body: body.trim().to_string(),
        citations,
        finish,
        backend: model.describe(),
        passages_supplied: prompt.passages.len(),
        numbers: check.counts,
        unconfirmed: None,
    };
    Ok(Some(Responded { answer, own }))
}

/// Words an answer may wrap around what it names ("is", "the answer", "found in excerpt").
const FRAME_WORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "is",
    "are",
    "was",
    "were",
    "be",
    "answer",
    "excerpt",
    "excerpts",
    "passage",
    "passages",
    "document",
    "documents",
    "page",
    "in",
    "on",
    "of",
    "from",
    "as",
    "can",
    "found",
    "given",
    "shown",
    "stated",
    "mentioned",
    "see",
    "under",
];

/// Words that open a yes-or-no question.
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would", "should",
];

/// Whether the first sentence of `body` names nothing: once its footnotes, the labels of the
/// `passages` (a file name, page and heading copied from the prompt) and the question's own words are
/// taken out, only words like "is" and "the answer" are left.
fn names_nothing(body: &str, question: &str, passages: &[Hit]) -> bool {
    let asked = echo::words(question);
    // A yes-or-no or either-or question is answered by its own words ("It is in Paris").
    let polar = asked.first().is_some_and(|w| AUXILIARIES.contains(&w.as_str()));
    if polar || asked.iter().any(|w| w == "or") {
        return false;
    }
    let first = echo::sentence_end(body).map_or(body, |end| &body[..end]);
    let mut words = echo::words(&without_footnotes(first));
    for passage in passages {
        let labels = std::iter::once(passage.document_name.as_str()).chain(passage.context.lines().skip(1));
        for label in labels.map(echo::words) {
            // A one-word label ("Yes") or one of figures alone ("2022") may be what the answer names.
            if label.len() > 1 && label.iter().any(|w| !w.chars().all(|c| c.is_ascii_digit())) {
                remove_runs(&mut words, &label);
            }
        }
    }
    words.iter().enumerate().all(|(i, w)| {
        let page_number = i > 0 && words[i - 1] == "page" && w.chars().all(|c| c.is_ascii_digit());
        asked.contains(w) || FRAME_WORDS.contains(&w.as_str()) || page_number
    })
}

/// Takes every run of `words` equal to `run` out of them.
fn remove_runs(words: &mut Vec<String>, run: &[String]) {
    let mut at = 0;
    while at + run.len() <= words.len() {
        if words[at..at + run.len()] == *run {
            words.drain(at..at + run.len());
        } else {
            at += 1;
        }
    }
}

/// `text` without its footnote references (`[^2]`).
fn without_footnotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("[^") {
        out.push_str(&rest[..at]);
        rest = match rest[at..].find(']') {
            Some(close) => &rest[at + close + 1..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// What an answer says when the model wrote nothing but a copy of its instructions.
const NO_ANSWER: &str = "The model gave no answer of its own.";

/// Phrases with which an answer says the documents do not hold the answer.
const NOT_FOUND: [&str; 12] = [
    "do not say",
    "does not say",
    "don't say",
    "doesn't say",
    "not in the documents",
    "could not find",
    "cannot find",
    "can't find",
    "do not contain",
    "does not contain",
    "not mentioned",
    "no information",
];

/// Whether `answer` says that the documents do not hold the answer.
pub fn says_not_found(answer: &str) -> bool {
    let lower = answer.to_lowercase().replace('’', "'");
    NOT_FOUND.iter().any(|p| lower.contains(p))
}

/// An answer made of passages themselves: the best ones (extractive, each with the line or
/// sentence most likely to answer in bold), or the nearest ones when nothing was relevant enough.
fn quoted(
    kind: AnswerKind,
    question: &str,
    hits: &[Hit],
    count: usize,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Answer {
    let shown = &hits[..hits.len().min(count)];
    let mut body = match (kind, shown.is_empty()) {
        (AnswerKind::NotFound, true) => {
            "I could not find this in the documents of this scope: no passage matched the question.".to_string()
        }
        (AnswerKind::NotFound, false) => {
            "I could not find this in the documents of this scope. The nearest passages were:\n\n".to_string()
        }
        _ => "The most relevant passages:\n\n".to_string(),
    };
    on_event(AnswerEvent::Text { text: body.clone() });
    let bold = (kind == AnswerKind::Extractive).then_some(question);
    let citations = quote_passages(shown, bold, &mut body, on_event);
    Answer {
        kind,
        body: body.trim_end().to_string(),
        citations,
        finish: Finish::Stop,
        backend: String::new(),
        passages_supplied: 0,
        numbers: NumberCounts::default(),
        unconfirmed: None,
    }
}

/// Appends each of `passages` to `body` as a cited block quote, footnotes numbered from 1, with
/// the line most likely to answer `bold_for` (a question) in bold; returns the citations.
fn quote_passages(
    passages: &[Hit],
    bold_for: Option<&str>,
    body: &mut String,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Vec<Citation> {
    let mut citations = Vec::new();
    for (i, hit) in passages.iter().enumerate() {
        let citation = citation_of(i + 1, hit);
        on_event(AnswerEvent::Citation {
            citation: citation.clone(),
        });
        citations.push(citation);
        quote(&hit.text, i + 1, bold_for, body, on_event);
    }
    citations
}

/// Streams and appends passage `text` as a block quote marked with footnote `number`, its line
/// most likely to answer `bold_for` in bold.
fn quote(text: &str, number: usize, bold_for: Option<&str>, body: &mut String, on_event: &mut dyn FnMut(AnswerEvent)) {
    let span = bold_for.and_then(|question| highlight::best_span(question, text));
    let text = format!("> {} [^{number}]\n\n", quote_line(text, span));
    on_event(AnswerEvent::Text { text: text.clone() });
    body.push_str(&text);
}

/// A passage as one line of a block quote, escaped, with the character range `span` in bold.
fn quote_line(text: &str, span: Option<(usize, usize)>) -> String {
    let flat = |part: &str| markdown::escape_quote(&part.split_whitespace().collect::<Vec<_>>().join(" "));
    let Some((start, end)) = span else {
        return flat(text);
    };
    let chars: Vec<char> = text.chars().collect();
    let part = |from: usize, to: usize| flat(&chars[from..to].iter().collect::<String>());
    let (before, bold, after) = (part(0, start), part(start, end), part(end, chars.len()));
    [before, format!("**{bold}**"), after]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{DocumentId, FolderId};
    use crate::search::ScoreComponents;

    fn passage(name: &str, context: &str) -> Hit {
        Hit {
            document: DocumentId::new_random(),
            document_name: name.into(),
            folder: FolderId(1),
            folder_path: "F".into(),
            chunk_id: "c".into(),
            page: 12,
            char_start: 0,
            char_end: 4,
            text: "text".into(),
            score: 1.0,
            components: ScoreComponents::default(),
            remote: None,
            context: context.into(),
        }
    }

    #[test]
    fn the_model_reading_is_said_with_its_passages_and_their_documents_best_first() {
        let said = |hits: &[Hit]| match Stage::reading("How tall is it?", hits) {
            AnswerEvent::Stage { text, .. } => text,
            other => panic!("{other:?}"),
        };
        let (a, b, c) = (passage("a.pdf", ""), passage("b.pdf", ""), passage("c.pdf", ""));
        assert_eq!(
            said(std::slice::from_ref(&a)),
            "Reading 1 passage of a.pdf before writing…"
        );
        assert_eq!(
            said(&[a.clone(), b.clone(), a.clone()]),
            "Reading 3 passages of a.pdf and 1 other document before writing…"
        );
        assert_eq!(
            said(&[b, a, c]),
            "Reading 3 passages of b.pdf and 2 other documents before writing…"
        );
    }

    #[test]
    fn while_the_model_reads_the_best_passage_s_likeliest_line_is_shown_with_its_page() {
        let mut best = passage("tower.pdf", "");
        best.text = "The tower opened in 1889.\nIt is 330 metres tall, antennas included.\nIt has three floors.".into();
        let other = passage("other.pdf", "");
        let likeliest = |question: &str, hits: &[Hit]| match Stage::reading(question, hits) {
            AnswerEvent::Stage {
                stage: Stage::Reading { likeliest, .. },
                ..
            } => likeliest,
            other => panic!("{other:?}"),
        };
        let shown = likeliest("How tall is it?", &[best.clone(), other.clone()]).expect("a line");
        assert_eq!(shown.line, "It is 330 metres tall, antennas included.");
        assert_eq!(
            (shown.passage.number, shown.passage.document, shown.passage.page),
            (1, best.document, 12)
        );
        // No line shares a word with the question: nothing is shown but the stage.
        assert_eq!(likeliest("Qui?", &[best, other]), None);
        assert_eq!(likeliest("How tall is it?", &[]), None);
    }

    #[test]
    fn an_answer_names_nothing_when_only_the_question_a_footnote_and_a_label_are_left() {
        let question = "What are the compared items with blue color in Table 1-1?";
        let passages = [passage("manual.pdf", "manual.pdf\n2.6 Basic OSD Menu Options")];
        for empty in [
            "The compared items with blue color in Table 1-1 are [^1].",
            "The compared items are [^1] manual.pdf, page 12 (under: 2.6 Basic OSD Menu Options).",
            "The answer can be found in excerpt [^1].",
        ] {
            assert!(names_nothing(empty, question, &passages), "{empty}");
        }
        for named in [
            "The compared items are Data restore and Designed durability [^1].",
            "They are [^1]: Data restore.",
            "Yes [^1].",
        ] {
            assert!(!names_nothing(named, question, &passages), "{named}");
        }
        assert!(
            !names_nothing("The total is 42 [^1].", "What is the total?", &passages),
            "a number is something named"
        );
        for (asked, answer) in [
            ("Is the Eiffel Tower in Paris?", "The Eiffel Tower is in Paris [^1]."),
            ("Which is taller, the tower or the bridge?", "The tower is taller [^1]."),
        ] {
            assert!(
                !names_nothing(answer, asked, &passages),
                "{asked} {answer}: answered by its own words"
            );
        }
        // A label is taken out as whole words: "Table 1" is no reason to read "18" as "8".
        let labelled = [passage("survey.pdf", "survey.pdf\nTable 1\nYes")];
        assert!(!names_nothing("The gap is 18% [^1].", "What is the gap?", &labelled));
        assert!(!names_nothing(
            "The answer is yes [^1].",
            "What does it say?",
            &labelled
        ));
        assert!(names_nothing("The gap is [^1] Table 1.", "What is the gap?", &labelled));
    }
}
