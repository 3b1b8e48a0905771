//! A server model's context window, as the server reports it, so that a prompt is planned for
//! the window that will really read it: Ollama's `/api/show` (the model file's
//! `<architecture>.context_length`); an OpenAI-compatible server's `/v1/models` entry
//! (`max_model_len` from vLLM, `context_length` or `loaded_context_length` from others), else
//! llama.cpp's `/props` (`n_ctx`, the window its server was started with).
//!
//! Asking is best effort: a server that does not say leaves the setting or the cautious default.

use std::time::Duration;

use reqwest::blocking::Client;
use serde_json::{json, Value};

use crate::model_server::{read_json, Endpoint, ServerApi};

/// How long the server may take to say; a server without these endpoints must not delay answers.
const ASK_TIMEOUT: Duration = Duration::from_secs(3);

/// The fields of a `/v1/models` entry that hold the window a server has loaded or allows, most
/// specific first.
const MODEL_FIELDS: [&str; 5] = [
    "loaded_context_length",
    "max_model_len",
    "context_length",
    "context_window",
    "max_context_length",
];

/// The context window the server of `chat` (at `base`) reports for its model, in tokens.
pub(super) fn reported(chat: &Endpoint, base: &str) -> Option<usize> {
    let (api, model, key) = (chat.api(), chat.model(), chat.api_key());
    let client = chat.client();
    let endpoint = api.endpoint(base, "show", "models");
    match api {
        ServerApi::Ollama => ollama_window(&post(client, &endpoint, &json!({"model": model, "name": model}))?),
        ServerApi::OpenAi => {
            // A server that does not answer at all is not asked twice.
            let models = get(client, &endpoint, key).ok()?;
            models.and_then(|models| openai_window(&models, model)).or_else(|| {
                let root = endpoint.trim_end_matches("/v1/models");
                let props = get(client, &format!("{root}/props"), key).ok().flatten()?;
                llama_server_window(&props)
            })
        }
    }
}

/// The JSON a GET of `url` answers with (`None` for an error status or another body); `Err` when
/// the server could not be reached.
fn get(client: &Client, url: &str, key: Option<&str>) -> Result<Option<Value>, reqwest::Error> {
    let mut request = client.get(url).timeout(ASK_TIMEOUT);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let reply = request.send()?;
    Ok(reply.status().is_success().then(|| read_json(reply).ok()).flatten())
}

fn post(client: &Client, url: &str, body: &Value) -> Option<Value> {
    let reply = client.post(url).json(body).timeout(ASK_TIMEOUT).send().ok()?;
    reply.status().is_success().then(|| read_json(reply).ok()).flatten()
}

/// A window from a JSON number, if it is a plausible one.
fn tokens(value: &Value) -> Option<usize> {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n >= 256)
}

/// `model_info."<architecture>.context_length"` of Ollama's `/api/show` (any such key when the
/// architecture is not named).
fn ollama_window(show: &Value) -> Option<usize> {
    let info = show.get("model_info")?.as_object()?;
    let named = info
        .get("general.architecture")
        .and_then(Value::as_str)
        .and_then(|architecture| info.get(&format!("{architecture}.context_length")));
    named
        .or_else(|| {
            info.iter()
                .find(|(key, _)| key.ends_with(".context_length"))
                .map(|(_, value)| value)
        })
        .and_then(tokens)
}

/// The window of `model`'s entry in a `/v1/models` list (or of its only entry).
fn openai_window(models: &Value, model: &str) -> Option<usize> {
    let entries = models.get("data")?.as_array()?;
    let entry = entries
        .iter()
        .find(|e| e.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (entries.len() == 1).then(|| &entries[0]))?;
    MODEL_FIELDS.iter().find_map(|field| entry.get(*field).and_then(tokens))
}

/// `default_generation_settings.n_ctx` (or a top-level `n_ctx`) of llama.cpp's `/props`.
fn llama_server_window(props: &Value) -> Option<usize> {
    props
        .get("default_generation_settings")
        .and_then(|s| s.get("n_ctx"))
        .or_else(|| props.get("n_ctx"))
        .and_then(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ollama_reports_the_model_files_context_length() {
        let show = json!({"model_info": {"general.architecture": "llama", "clip.context_length": 512, "llama.context_length": 131072}});
        assert_eq!(ollama_window(&show), Some(131_072));
        assert_eq!(ollama_window(&json!({"model_info": {}})), None);
    }

    #[test]
    fn openai_entries_are_read_for_the_named_model() {
        let models = json!({"data": [
            {"id": "a", "max_model_len": 8192},
            {"id": "b", "context_length": 32768, "loaded_context_length": 4096},
        ]});
        assert_eq!(openai_window(&models, "a"), Some(8192));
        assert_eq!(openai_window(&models, "b"), Some(4096), "what is loaded comes first");
        assert_eq!(openai_window(&models, "c"), None);
        let only = json!({"data": [{"id": "x.gguf", "meta": {"n_ctx_train": 32768}}]});
        assert_eq!(openai_window(&only, "any"), None, "a training length is not the window");
        let props = json!({"default_generation_settings": {"n_ctx": 4096}});
        assert_eq!(llama_server_window(&props), Some(4096));
    }
}
