//! Replies made without searching first: small talk under the `smart` strategy, and the turn of
//! the `function` strategy in which the model, offered a search tool, decides whether to search
//! (and for what) or to reply at once. A reply without passages goes through the same checks as
//! any answer; the numbers it may give are those of the chat's earlier answers, each checked
//! when it was made.

use serde_json::json;

use super::{context, respond, respond_with, Answer, AnswerEvent, AnswerSettings};
use crate::llm::{Cancel, LanguageModel, LlmError, Message, Role, Tool, Turn};

/// The tool the `function` strategy offers.
pub fn search_tool() -> Tool {
    Tool {
        name: "search_documents",
        description: "Searches the user's documents (PDFs) for the passages that answer a query. Call it for \
            any question about facts, figures, names, dates or anything else the documents may say.",
        parameters: json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What to look for, in the words a document would use",
                }
            },
            "required": ["query"],
        }),
    }
}

/// The instructions of a reply to small talk.
const SMALL_TALK: &str = "You are Lectern, an assistant that answers questions about the user's documents. \
The user's last message is conversation, not a question about the documents: reply in one or two sentences, \
and state no facts or figures.";

/// The instructions of the `function` strategy's first turn, with examples of when to call the
/// tool: without them the built-in model (Qwen2.5-Coder-1.5B) called it for almost every message
/// or for almost none, as the wording leaned (docs/figures.md, "Retrieval strategies").
const DECIDE: &str = r#"You answer questions about the user's documents, which you can only read with search_documents.

Examples:
User: How many employees does the company have?
You: (calls search_documents with the query "number of employees")
User: and in 2020?
You: (calls search_documents with the query "number of employees 2020")
User: thanks, that helps!
You: You're welcome!
User: can you put that in a list?
You: (your last answer, as a list)"#;

/// What the model chose in a turn with the search tool on offer.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Search for this query, then answer from what it finds.
    Search(String),
    /// The model replied at once (already streamed).
    Replied(Answer),
}

/// A reply to small talk, from the chat so far and no passages.
pub fn small_talk(
    model: &dyn LanguageModel,
    question: &str,
    history: &[Message],
    settings: &AnswerSettings,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Result<Answer, LlmError> {
    let prompt = conversation(model, SMALL_TALK, question, history, settings);
    Ok(respond(model, question, &prompt, settings, cancel, on_event)?.answer)
}

/// The `function` strategy's first turn: the model, offered [`search_tool`], calls it (a call
/// without a query searches for the question) or replies at once.
pub fn decide(
    model: &dyn LanguageModel,
    question: &str,
    history: &[Message],
    settings: &AnswerSettings,
    cancel: &Cancel,
    on_event: &mut dyn FnMut(AnswerEvent),
) -> Result<Decision, LlmError> {
    // The chat so far goes in the system message: as turns, answers made without a call
    // taught the built-in model to answer without one.
    let prompt = conversation(model, DECIDE, question, history, settings);
    let prompt = earlier_turns_in_system(prompt);
    let tool = search_tool();
    let mut call = None;
    let replied = respond_with(model, question, &prompt, settings, on_event, &mut |on_text| match model
        .generate_or_call(&prompt.messages, &tool, &settings.generate, cancel, on_text)?
    {
        Turn::Answered(finish) => Ok(Some(finish)),
        Turn::Called(called) => {
            call = Some(called);
            Ok(None)
        }
    })?;
    if let Some(replied) = replied {
        return Ok(Decision::Replied(replied.answer));
    }
    let query = call
        .as_ref()
        .and_then(|c| c.arguments.get("query"))
        .and_then(|q| q.as_str())
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .unwrap_or(question);
    Ok(Decision::Search(query.to_string()))
}

/// `prompt` with its earlier turns written into its system message, ahead of its last message.
fn earlier_turns_in_system(prompt: context::Prompt) -> context::Prompt {
    let mut messages = prompt.messages;
    let Some(last) = messages.pop() else {
        return context::Prompt { messages, ..prompt };
    };
    let mut system = match messages.first() {
        Some(first) if first.role == Role::System => first.content.clone(),
        _ => String::new(),
    };
    let turns: Vec<String> = messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| format!("{}: {}", if m.role == Role::User { "User" } else { "You" }, m.content))
        .collect();
    if !turns.is_empty() {
        system.push_str(&format!("\n\nThe chat so far:\n{}", turns.join("\n")));
    }
    context::Prompt {
        messages: vec![Message::new(Role::System, system), last],
        ..prompt
    }
}

/// A prompt of `instructions`, the latest turns of `history` that fit half the budget, and
/// `question`; no passages.
fn conversation(
    model: &dyn LanguageModel,
    instructions: &str,
    question: &str,
    history: &[Message],
    settings: &AnswerSettings,
) -> context::Prompt {
    let budget = if model.reads_prompt_here() {
        settings.prompt_budget
    } else {
        usize::MAX
    };
    let budget = budget.min(model.context_window().saturating_sub(settings.generate.max_tokens));
    let fixed = model.count_tokens(instructions) + model.count_tokens(question);
    let (turns, used) = context::recent_turns(model, history, budget.saturating_sub(fixed) / 2);
    let mut messages = vec![Message::new(Role::System, instructions)];
    messages.extend(turns);
    messages.push(Message::new(Role::User, question));
    context::Prompt {
        messages,
        passages: Vec::new(),
        tokens: fixed + used,
    }
}
