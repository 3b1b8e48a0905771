//! The built-in language model: any GGUF file run in-process by llama.cpp (through the
//! `llama-cpp-2` crate), with the chat template and tokenizer the file carries. Which file is the
//! models' business (`crate::models`).
//!
//! A model keeps the contexts of its last two generations with the tokens their caches hold: a
//! prompt that begins as one of them did (the instructions, a chat's earlier turns) reads only
//! what follows. Two, because an answer is followed by its support check, whose instructions
//! differ: the next question finds the answer's instructions still read. A generation that
//! finds the contexts in use (another answer being written at once) makes one of its own.
//!
//! llama.cpp rather than candle's quantised models: on the same prompt and tokens, llama.cpp is
//! several times faster on this class of machine (its kernels are chosen at run time for the CPU,
//! candle's quantised dot products only when the whole build targets AVX2), and it reads chat
//! templates and tokenizers from GGUF metadata itself. `lectern-bench llm` measures both.

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use super::runtime::backend;
use super::{Cancel, Finish, GenerateOptions, LanguageModel, LlmError, Message};

/// The largest context a generation asks llama.cpp for, whatever the model was trained on: the
/// key-value cache grows with it, and retrieved passages rarely need more.
const MAX_CONTEXT: u32 = 8192;

/// Prompt tokens read per llama.cpp call, so that a cancel is seen while a long prompt is read: a
/// slice takes at most about 0.35 s on one thread here. 64 reads a 1,526-token prompt as fast as
/// one call does (8.1 s against 7.9 s); 32 takes 12.2 s.
const PROMPT_SLICE: usize = 64;

/// How many contexts a model keeps between generations.
const KEPT_CONTEXTS: usize = 2;

/// The fewest tokens a prompt must share with a kept context to be read in it: more than a chat
/// template's opening, which every prompt shares.
const MIN_SHARED: usize = 16;

/// A context kept between generations, and the tokens whose keys and values it holds, from
/// position 0.
struct Session {
    ctx: LlamaContext<'static>,
    tokens: Vec<LlamaToken>,
}

/// A GGUF model loaded in this process.
pub struct BuiltinModel {
    /// The last generations' contexts, the latest first. Declared before `model`, so that they
    /// are dropped first: a context refers to the model.
    sessions: Mutex<Vec<Session>>,
    path: PathBuf,
    model: LlamaModel,
    template: LlamaChatTemplate,
    context: u32,
    threads: i32,
}

impl BuiltinModel {
    /// Loads the GGUF file at `path`; generation uses `threads` threads.
    pub fn load(path: &Path, threads: usize) -> Result<BuiltinModel, LlmError> {
        if !path.is_file() {
            return Err(LlmError::NotInstalled {
                path: path.to_path_buf(),
            });
        }
        let backend = backend()?;
        let load = |reason: String| LlmError::Load {
            path: path.to_path_buf(),
            reason,
        };
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|e| load(format!("{e} (is it a GGUF file?)")))?;
        let template = model
            .chat_template(None)
            .map_err(|e| load(format!("it has no usable chat template ({e})")))?;
        let context = model.n_ctx_train().clamp(512, MAX_CONTEXT);
        Ok(BuiltinModel {
            sessions: Mutex::new(Vec::new()),
            path: path.to_path_buf(),
            model,
            template,
            context,
            threads: threads.clamp(1, 64) as i32,
        })
    }

    /// The chat as the model reads it, ending where the assistant's answer begins.
    pub fn render(&self, messages: &[Message]) -> Result<String, LlmError> {
        let chat = messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.as_str().to_string(), m.content.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| LlmError::Runtime(format!("a message holds a NUL character: {e}")))?;
        self.model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| LlmError::Runtime(format!("the model's chat template failed: {e}")))
    }

    /// The tokens of a rendered prompt.
    pub fn tokenize(&self, prompt: &str) -> Vec<LlamaToken> {
        self.model.vocab().tokenize(prompt.as_bytes(), false, true)
    }

    /// Generates from prompt tokens, sending text to `on_text`; also used by the benchmark to
    /// time the runtime on given tokens. The prompt's tokens that begin as a kept context's did
    /// are not read again.
    pub fn generate_from_tokens(
        &self,
        tokens: &[LlamaToken],
        options: &GenerateOptions,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Finish, LlmError> {
        let room = (self.context as usize).saturating_sub(tokens.len());
        if tokens.is_empty() || room == 0 {
            return Err(LlmError::ContextFull {
                window: self.context as usize,
            });
        }
        // The kept context that shares the most with this prompt; else a new one while fewer are
        // kept than may be, else the oldest. None while another generation is using them (or one
        // failed holding them): then a context of its own.
        let mut kept = self.sessions.try_lock().ok();
        let reused = kept.as_mut().and_then(|sessions| {
            let best = (sessions.iter().enumerate())
                .map(|(i, s)| (shared_prefix(&s.tokens, tokens), std::cmp::Reverse(i)))
                .max();
            match best {
                Some((shared, std::cmp::Reverse(at))) if shared >= MIN_SHARED => Some(sessions.remove(at)),
                _ if sessions.len() < KEPT_CONTEXTS => None,
                _ => sessions.pop(),
            }
        });
        let mut session = match reused {
            Some(session) => session,
            None => self.new_session()?,
        };
        let finish = self.generate_in(&mut session, tokens, room, options, cancel, on_text)?;
        // A failed generation's context is dropped: what its cache holds is in doubt.
        if let Some(sessions) = kept.as_mut() {
            sessions.insert(0, session);
            sessions.truncate(KEPT_CONTEXTS);
        }
        Ok(finish)
    }

    /// How many tokens each kept context holds, the latest first.
    pub fn cached_tokens(&self) -> Vec<usize> {
        self.sessions
            .lock()
            .map_or_else(|_| Vec::new(), |kept| kept.iter().map(|s| s.tokens.len()).collect())
    }

    fn new_session(&self) -> Result<Session, LlmError> {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.context))
            .with_n_batch(self.context)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        let ctx = self
            .model
            .new_context(backend()?, params)
            .map_err(|e| LlmError::Runtime(format!("could not make a context: {e}")))?;
        // SAFETY: the context refers to `self.model`, which it does not outlive: it lives only
        // in this call or in `self.sessions`, which is dropped before `self.model` (field order),
        // and the model is never replaced.
        let ctx = unsafe { std::mem::transmute::<LlamaContext<'_>, LlamaContext<'static>>(ctx) };
        Ok(Session {
            ctx,
            tokens: Vec::new(),
        })
    }

    /// [`BuiltinModel::generate_from_tokens`] in `session`, whose tokens are kept in step with
    /// its cache: a stop part-way leaves it usable.
    fn generate_in(
        &self,
        session: &mut Session,
        tokens: &[LlamaToken],
        room: usize,
        options: &GenerateOptions,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Finish, LlmError> {
        let runtime = |what: &str, e: &dyn std::fmt::Display| LlmError::Runtime(format!("{what}: {e}"));
        let Session { ctx, tokens: cached } = session;
        // The cache of the prefix shared with the last generation is kept; the prompt's last
        // token is read again in any case, for the logits the first new token is drawn from.
        let shared = shared_prefix(cached, tokens).min(tokens.len() - 1);
        let shared = match ctx.clear_kv_cache_seq(Some(0), u32::try_from(shared).ok(), None) {
            Ok(true) => shared,
            _ => {
                ctx.clear_kv_cache();
                0
            }
        };
        cached.truncate(shared);
        // The prompt is read in slices so that a cancel is seen between them.
        let mut batch = LlamaBatch::new(PROMPT_SLICE, 1);
        let last = tokens.len() - 1;
        for part in tokens[shared..].chunks(PROMPT_SLICE) {
            if cancel.is_cancelled() {
                return Ok(Finish::Cancelled);
            }
            batch.clear();
            for (j, &token) in part.iter().enumerate() {
                let i = cached.len() + j;
                batch
                    .add(token, i as i32, &[0], i == last)
                    .map_err(|e| runtime("prompt batch", &e))?;
            }
            ctx.decode(&mut batch).map_err(|e| runtime("reading the prompt", &e))?;
            cached.extend_from_slice(part);
        }
        let mut sampler = sampler(&self.model, options);
        let vocab = self.model.vocab();
        let mut utf8 = Vec::new();
        let limit = options.max_tokens.min(room);
        for position in (tokens.len()..tokens.len() + limit).map(|p| p as i32) {
            if cancel.is_cancelled() {
                return Ok(Finish::Cancelled);
            }
            let token = sampler.sample(ctx, batch.n_tokens() - 1);
            sampler.accept(token);
            if vocab.is_eog(token) {
                flush_utf8(&mut utf8, true, on_text);
                return Ok(Finish::Stop);
            }
            utf8.extend(vocab.token_to_piece(token, false, None));
            flush_utf8(&mut utf8, false, on_text);
            batch.clear();
            batch
                .add(token, position, &[0], true)
                .map_err(|e| runtime("next token", &e))?;
            ctx.decode(&mut batch).map_err(|e| runtime("generating", &e))?;
            cached.push(token);
        }
        flush_utf8(&mut utf8, true, on_text);
        Ok(Finish::Length)
    }
}

/// How many tokens `a` and `b` begin with alike.
fn shared_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// A GGUF model's tokenizer alone: its vocabulary read without its weights, to count tokens as
/// the model does.
pub struct GgufTokenizer {
    model: LlamaModel,
}

impl GgufTokenizer {
    pub fn load(path: &Path) -> Result<GgufTokenizer, LlmError> {
        let params = LlamaModelParams::default().with_vocab_only(true);
        let model = LlamaModel::load_from_file(backend()?, path, &params).map_err(|e| LlmError::Load {
            path: path.to_path_buf(),
            reason: format!("{e} (is it a GGUF file?)"),
        })?;
        Ok(GgufTokenizer { model })
    }

    /// The tokens of `text`, as a prompt's part.
    pub fn count(&self, text: &str) -> usize {
        self.model.vocab().tokenize(text.as_bytes(), false, false).len()
    }
}

/// Greedy decoding (or sampling at a temperature), with a mild penalty on repeating the last
/// 64 tokens: small models otherwise fall into loops.
fn sampler(model: &LlamaModel, options: &GenerateOptions) -> LlamaSampler {
    let penalties = LlamaSampler::penalties(model.n_vocab(), 64, 1.1, 0.0, 0.0);
    if options.temperature <= 0.0 {
        LlamaSampler::chain_simple([penalties, LlamaSampler::greedy()])
    } else {
        LlamaSampler::chain_simple([
            penalties,
            LlamaSampler::temp(options.temperature),
            LlamaSampler::dist(0x1ec7e2),
        ])
    }
}

/// Sends the complete UTF-8 characters of `bytes` and keeps a trailing partial one (a token may
/// end inside a character); at the end, whatever remains is sent, repaired.
fn flush_utf8(bytes: &mut Vec<u8>, at_end: bool, on_text: &mut dyn FnMut(&str)) {
    let valid = match std::str::from_utf8(bytes) {
        Ok(s) => s.len(),
        Err(e) if e.error_len().is_none() && !at_end => e.valid_up_to(),
        Err(_) => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            bytes.clear();
            on_text(&text);
            return;
        }
    };
    if valid > 0 {
        let rest = bytes.split_off(valid);
        if let Ok(text) = std::str::from_utf8(bytes) {
            on_text(text);
        }
        *bytes = rest;
    }
}

impl LanguageModel for BuiltinModel {
    fn describe(&self) -> String {
        let name = self
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        format!("built-in model {name}")
    }

    fn context_window(&self) -> usize {
        self.context as usize
    }

    fn reads_prompt_here(&self) -> bool {
        true
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.model.vocab().tokenize(text.as_bytes(), false, false).len()
    }

    fn generate(
        &self,
        messages: &[Message],
        options: &GenerateOptions,
        cancel: &Cancel,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Finish, LlmError> {
        let prompt = self.render(messages)?;
        self.generate_from_tokens(&self.tokenize(&prompt), options, cancel, on_text)
    }
}
