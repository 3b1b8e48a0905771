//! A tool on offer to a model, which either calls it or answers. A server that takes tools gets
//! them in its own request format (`http.rs`); the built-in model gets them in its prompt, in the
//! format Qwen2.5's chat template writes for tools (the Hermes format: the functions' JSON
//! schemas between `<tools>` tags in the system message, a call between `<tool_call>` tags in
//! the reply), which the default and offered built-in models were trained on.

use serde::Serialize;
use serde_json::json;

use super::{Cancel, Finish, GenerateOptions, LanguageModel, LlmError, Message, Role};

/// A function a model may call instead of answering.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// Its arguments, as a JSON schema.
    pub parameters: serde_json::Value,
}

impl Tool {
    /// As OpenAI's and Ollama's requests list tools.
    pub fn as_request(&self) -> serde_json::Value {
        json!({"type": "function", "function": self})
    }
}

/// A call a model made.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub name: String,
    pub arguments: serde_json::Value,
}

/// How a turn with a tool on offer ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Turn {
    /// The model answered (streamed as it wrote).
    Answered(Finish),
    /// The model called the tool; nothing was streamed.
    Called(ToolCall),
}

const CALL_OPEN: &str = "<tool_call>";
const CALL_CLOSE: &str = "</tool_call>";

/// `messages` with `tool` described in the system message, as Qwen2.5's template writes it.
fn with_tool_in_prompt(messages: &[Message], tool: &Tool) -> Vec<Message> {
    let block = format!(
        "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{}\n</tools>\n\n\
         For each function call, return a json object with function name and arguments within \
         <tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": \
         <args-json-object>}}\n</tool_call>",
        tool.as_request()
    );
    let mut out = messages.to_vec();
    match out.first_mut() {
        Some(first) if first.role == Role::System => first.content.push_str(&block),
        _ => out.insert(0, Message::new(Role::System, block.trim_start())),
    }
    out
}

/// A turn of `model` with `tool` described in its prompt: the reply is held back while it may
/// be the start of a call, and streamed once it cannot be.
pub fn in_prompt<M: LanguageModel + ?Sized>(
    model: &M,
    messages: &[Message],
    tool: &Tool,
    options: &GenerateOptions,
    cancel: &Cancel,
    on_text: &mut dyn FnMut(&str),
) -> Result<Turn, LlmError> {
    let mut held = String::new();
    let mut streaming = false;
    let finish = model.generate(&with_tool_in_prompt(messages, tool), options, cancel, &mut |text| {
        if streaming {
            return on_text(text);
        }
        held.push_str(text);
        if !may_be_call(&held) {
            streaming = true;
            on_text(&held);
        }
    })?;
    if streaming || finish == Finish::Cancelled {
        return Ok(Turn::Answered(finish));
    }
    match parse_call(&held) {
        Some(call) => Ok(Turn::Called(call)),
        // A call cut off by the length limit (a long query) was still a call.
        None if finish == Finish::Length && starts_call(&held) => Ok(Turn::Called(ToolCall {
            name: tool.name.to_string(),
            arguments: json!({}),
        })),
        None => {
            // Held back to its end without being a call (empty, or a call cut short or garbled):
            // shown as what it is.
            on_text(&held);
            Ok(Turn::Answered(finish))
        }
    }
}

/// Whether a reply that begins with `text` may be a call: the start of `<tool_call>`, or a JSON
/// object (small models often leave the tags out).
fn may_be_call(text: &str) -> bool {
    let start = text.trim_start();
    CALL_OPEN.starts_with(start) || start.starts_with(CALL_OPEN) || start.starts_with('{')
}

/// Whether a reply begins as a call does: the tag, or a JSON object naming a function.
fn starts_call(reply: &str) -> bool {
    let start = reply.trim_start();
    start.starts_with(CALL_OPEN) || start.replace(char::is_whitespace, "").starts_with("{\"name\"")
}

/// The call a reply is: `{"name": …, "arguments": {…}}`, between `<tool_call>` tags or not.
fn parse_call(reply: &str) -> Option<ToolCall> {
    let reply = reply.trim_start();
    let body = reply.strip_prefix(CALL_OPEN).unwrap_or(reply);
    let body = body.split(CALL_CLOSE).next()?.trim();
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let name = value.get("name")?.as_str()?.to_string();
    let arguments = match value.get("arguments") {
        // Some models write the arguments as a JSON string.
        Some(serde_json::Value::String(text)) => serde_json::from_str(text).ok()?,
        Some(arguments) => arguments.clone(),
        None => json!({}),
    };
    Some(ToolCall { name, arguments })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_read_with_its_arguments_as_an_object_or_a_string() {
        let call = parse_call(
            "<tool_call>\n{\"name\": \"search_documents\", \"arguments\": {\"query\": \"capex 2022\"}}\n</tool_call>",
        );
        assert_eq!(
            call,
            Some(ToolCall {
                name: "search_documents".into(),
                arguments: json!({"query": "capex 2022"})
            })
        );
        let call = parse_call("<tool_call>{\"name\": \"s\", \"arguments\": \"{\\\"query\\\": \\\"x\\\"}\"}");
        assert_eq!(call.map(|c| c.arguments), Some(json!({"query": "x"})));
        let bare = parse_call("{\"name\": \"search_documents\", \"arguments\": {\"query\": \"y\"}}");
        assert_eq!(bare.map(|c| c.arguments), Some(json!({"query": "y"})));
        assert_eq!(parse_call("<tool_call>{\"name\": "), None);
        assert_eq!(parse_call("{\"revenue\": 4.2}"), None, "a JSON answer is not a call");
        assert_eq!(parse_call("The answer is 4."), None);
    }

    #[test]
    fn the_tool_joins_the_system_message_or_becomes_one() {
        let tool = Tool {
            name: "search_documents",
            description: "Searches.",
            parameters: json!({"type": "object"}),
        };
        let joined = with_tool_in_prompt(&[Message::new(Role::System, "Be brief.")], &tool);
        assert_eq!(joined.len(), 1);
        assert!(joined[0].content.starts_with("Be brief.\n\n# Tools"));
        assert!(joined[0].content.contains("\"name\":\"search_documents\""));
        let added = with_tool_in_prompt(&[Message::new(Role::User, "Hi")], &tool);
        assert_eq!((added[0].role, added[1].role), (Role::System, Role::User));
    }
}
