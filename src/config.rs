//! Where a library lives and how it indexes: the data directory, the models directory, the
//! embedder, the limits per document and the number of documents indexed at once.

use std::path::PathBuf;
use std::time::Duration;

use crate::chunk::ChunkerSettings;
use crate::error::Error;
use crate::pdf::Limits;
use crate::server::ServerApi;

/// Gives each embedding model one thread (`RAYON_NUM_THREADS=1`) unless the user chose otherwise.
/// Parallelism comes from indexing several documents at once, one model thread each: two cores
/// shared by threaded matrix products in every worker run many times slower. The thread pool
/// reads the setting when a model first runs, so call this before.
pub fn one_thread_per_model() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
}

/// Which embedder indexes the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderConfig {
    /// all-MiniLM-L6-v2 in-process, from `<models>/all-MiniLM-L6-v2`.
    MiniLm,
    /// A model served over HTTP.
    Http {
        api: ServerApi,
        url: String,
        model: String,
        api_key: Option<String>,
    },
}

/// Everything a [`crate::Library`] needs to open.
#[derive(Debug, Clone)]
pub struct LibraryConfig {
    /// The data directory: catalog, files, indexes.
    pub home: PathBuf,
    /// Where the models are installed (`<home>/models` unless set).
    pub models_dir: PathBuf,
    pub embedder: EmbedderConfig,
    pub limits: Limits,
    /// Documents indexed at once; each runs the model on one thread.
    pub workers: usize,
    pub chunker: ChunkerSettings,
}

impl LibraryConfig {
    /// Defaults for a library in `home`.
    pub fn new(home: PathBuf) -> LibraryConfig {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
        LibraryConfig {
            models_dir: home.join("models"),
            home,
            embedder: EmbedderConfig::MiniLm,
            limits: Limits::default(),
            workers,
            chunker: ChunkerSettings::default(),
        }
    }

    /// The configuration from the environment, for the library in `home` when a program names one
    /// (its `--home`): the models then live in `home/models` unless `LECTERN_MODELS` says
    /// otherwise.
    pub fn from_env_at(home: Option<PathBuf>) -> Result<LibraryConfig, Error> {
        let mut config = LibraryConfig::from_env()?;
        if let Some(home) = home {
            if std::env::var_os("LECTERN_MODELS").is_none() {
                config.models_dir = home.join("models");
            }
            config.home = home;
        }
        Ok(config)
    }

    /// The configuration from the environment: `LECTERN_HOME` (else the XDG data directory),
    /// `LECTERN_MODELS`, `LECTERN_WORKERS`, `LECTERN_TIMEOUT_SECS`, and for an HTTP embedder
    /// `LECTERN_EMBEDDER=ollama:MODEL|openai:MODEL` with `LECTERN_EMBED_URL` and
    /// `LECTERN_EMBED_API_KEY`.
    pub fn from_env() -> Result<LibraryConfig, Error> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let home = match var("LECTERN_HOME") {
            Some(home) => PathBuf::from(home),
            None => dirs::data_dir()
                .ok_or_else(|| Error::Config {
                    name: "LECTERN_HOME".into(),
                    reason: "no data directory is known for this user; set LECTERN_HOME".into(),
                })?
                .join("lectern"),
        };
        let mut config = LibraryConfig::new(home);
        if let Some(models) = var("LECTERN_MODELS") {
            config.models_dir = PathBuf::from(models);
        }
        if let Some(workers) = var("LECTERN_WORKERS") {
            config.workers = parse_number("LECTERN_WORKERS", &workers)?.max(1) as usize;
        }
        if let Some(secs) = var("LECTERN_TIMEOUT_SECS") {
            config.limits.timeout = Duration::from_secs(parse_number("LECTERN_TIMEOUT_SECS", &secs)?);
        }
        if let Some(spec) = var("LECTERN_EMBEDDER") {
            config.embedder = parse_embedder(&spec, var("LECTERN_EMBED_URL"), var("LECTERN_EMBED_API_KEY"))?;
        }
        Ok(config)
    }
}

fn parse_number(name: &str, value: &str) -> Result<u64, Error> {
    value.parse().map_err(|_| Error::Config {
        name: name.into(),
        reason: format!("{value:?} is not a whole number"),
    })
}

/// Reads `minilm`, `ollama:MODEL` or `openai:MODEL`.
fn parse_embedder(spec: &str, url: Option<String>, api_key: Option<String>) -> Result<EmbedderConfig, Error> {
    let bad = |reason: &str| Error::Config {
        name: "LECTERN_EMBEDDER".into(),
        reason: reason.into(),
    };
    if spec == "minilm" {
        return Ok(EmbedderConfig::MiniLm);
    }
    let (kind, model) = spec
        .split_once(':')
        .ok_or_else(|| bad("expected minilm, ollama:MODEL or openai:MODEL"))?;
    let api = match kind {
        "ollama" => ServerApi::Ollama,
        "openai" => ServerApi::OpenAi,
        _ => return Err(bad("expected minilm, ollama:MODEL or openai:MODEL")),
    };
    Ok(EmbedderConfig::Http {
        api,
        url: url.unwrap_or_else(|| api.default_url().to_string()),
        model: model.to_string(),
        api_key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedder_specs_parse() {
        assert_eq!(parse_embedder("minilm", None, None).unwrap(), EmbedderConfig::MiniLm);
        assert_eq!(
            parse_embedder("ollama:nomic-embed-text", None, None).unwrap(),
            EmbedderConfig::Http {
                api: ServerApi::Ollama,
                url: ServerApi::Ollama.default_url().into(),
                model: "nomic-embed-text".into(),
                api_key: None
            }
        );
        assert!(parse_embedder("bert", None, None).is_err());
    }
}
