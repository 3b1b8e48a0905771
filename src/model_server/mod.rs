//! The model servers Lectern talks to, for embeddings and for answers alike: which API a server
//! speaks, its usual address, where each of its endpoints is (here), the one client of an
//! endpoint (`client.rs`) and the one error of a server (`error.rs`).

mod client;
mod error;

pub use client::{error_message, read_json, read_line, root_cause, Endpoint};
pub use error::ServerError;

/// The wire protocol a model server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerApi {
    /// Ollama's own API (`/api/...`).
    Ollama,
    /// The OpenAI API (`/v1/...`), which llama.cpp's server, vLLM, LM Studio and others speak too.
    OpenAi,
}

impl ServerApi {
    /// The server's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            ServerApi::Ollama => "Ollama",
            ServerApi::OpenAi => "the OpenAI-compatible server",
        }
    }

    /// The short name in ids and settings.
    pub fn id(self) -> &'static str {
        match self {
            ServerApi::Ollama => "ollama",
            ServerApi::OpenAi => "openai",
        }
    }

    /// Where the server usually is when the user does not say.
    pub fn default_url(self) -> &'static str {
        match self {
            ServerApi::Ollama => "http://127.0.0.1:11434",
            ServerApi::OpenAi => "https://api.openai.com/v1",
        }
    }

    /// The URL of an endpoint: `ollama` under `/api/` for Ollama, `openai` under `/v1/` for the
    /// OpenAI API, whether or not `base` already ends in `/v1`.
    pub fn endpoint(self, base: &str, ollama: &str, openai: &str) -> String {
        let base = base.trim_end_matches('/');
        match self {
            ServerApi::Ollama => format!("{base}/api/{ollama}"),
            ServerApi::OpenAi if base.ends_with("/v1") => format!("{base}/{openai}"),
            ServerApi::OpenAi => format!("{base}/v1/{openai}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_found_from_a_base_url_with_or_without_v1() {
        let chat = |api: ServerApi, base| api.endpoint(base, "chat", "chat/completions");
        assert_eq!(chat(ServerApi::Ollama, "http://h:11434/"), "http://h:11434/api/chat");
        assert_eq!(
            chat(ServerApi::OpenAi, "http://h:8080"),
            "http://h:8080/v1/chat/completions"
        );
        assert_eq!(
            chat(ServerApi::OpenAi, "http://h:8080/v1/"),
            "http://h:8080/v1/chat/completions"
        );
    }
}
