//! The prompt: instructions, earlier turns of the chat, the passages that fit, and the question,
//! sized with the model's own token counts.
//!
//! The question, the instructions and room for the answer come first; earlier turns are kept,
//! newest first, up to a third of the window; the passages fill what is left, in rank order,
//! each labelled `[n]` so the model can cite it. A passage that does not fit whole is left out
//! rather than cut, so that a citation always points at text the model saw.

use crate::llm::{LanguageModel, Message, Role};
use crate::search::Hit;

/// Tokens a chat template adds around each message (role markers, separators), a safe margin.
const PER_MESSAGE: usize = 8;

/// The instructions the model gets.
pub const INSTRUCTIONS: &str = "You answer questions about the user's documents using only the numbered passages \
given with the question. After each sentence, cite the passage it comes from with its number in square brackets, \
for example [1] or [2]. If the passages do not answer the question, say that the documents do not say.";

/// A worked example shown before the real question: small models follow an example of citing far
/// more reliably than an instruction alone.
const EXAMPLE_QUESTION: &str = "Passages:\n[1] (guide.pdf, page 4) The museum opens at 9 am and closes at 6 pm, \
except on Mondays.\n\n[2] (guide.pdf, page 7) Tickets cost 12 euros; children under 12 enter free.\n\n\
Question: When does the museum open?";
const EXAMPLE_ANSWER: &str = "The museum opens at 9 am and closes at 6 pm, except on Mondays [1].";

/// What the model is asked, and which passages it was given.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub messages: Vec<Message>,
    /// Indexes into the hits given to [`plan`], in label order: label `n` is `supplied[n - 1]`.
    pub supplied: Vec<usize>,
    /// The tokens the prompt takes, by the model's count.
    pub tokens: usize,
}

/// Plans the prompt for `question` with `history` (earlier turns, oldest first) and `hits` (in
/// rank order), leaving `answer_room` tokens for the answer.
pub fn plan(
    model: &dyn LanguageModel,
    question: &str,
    history: &[Message],
    hits: &[Hit],
    answer_room: usize,
) -> Prompt {
    let window = model.context_window();
    let count = |text: &str| model.count_tokens(text) + PER_MESSAGE;
    let question_part =
        format!("\nQuestion: {question}\nAnswer in one or two sentences and cite the passage number, like [1].");
    let mut used =
        count(INSTRUCTIONS) + count(EXAMPLE_QUESTION) + count(EXAMPLE_ANSWER) + count(&question_part) + answer_room;

    let mut turns = Vec::new();
    let history_budget = window / 3;
    let mut history_used = 0;
    for message in history.iter().rev() {
        let cost = count(&message.content);
        if history_used + cost > history_budget || used + history_used + cost > window {
            break;
        }
        history_used += cost;
        turns.push(message.clone());
    }
    turns.reverse();
    used += history_used;

    let mut passages = String::from("Passages:\n");
    let mut supplied = Vec::new();
    for (i, hit) in hits.iter().enumerate() {
        let block = passage_block(supplied.len() + 1, hit);
        let cost = model.count_tokens(&block);
        if used + cost > window {
            continue;
        }
        used += cost;
        passages.push_str(&block);
        supplied.push(i);
    }

    let mut messages = vec![
        Message::new(Role::System, INSTRUCTIONS),
        Message::new(Role::User, EXAMPLE_QUESTION),
        Message::new(Role::Assistant, EXAMPLE_ANSWER),
    ];
    messages.extend(turns);
    messages.push(Message::new(Role::User, format!("{passages}{question_part}")));
    Prompt {
        messages,
        supplied,
        tokens: used - answer_room,
    }
}

/// One passage as the model sees it.
fn passage_block(label: usize, hit: &Hit) -> String {
    format!(
        "[{label}] ({}, page {}) {}\n\n",
        hit.document_name,
        hit.page,
        hit.text.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}
