//! The command line, parsed with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use lectern::search::eval::Part;
use lectern::search::Tuning;

/// Ask questions about your own PDFs, offline.
#[derive(Debug, Parser)]
#[command(name = "lectern", version, about)]
pub struct Cli {
    /// The library's data directory (default: $LECTERN_HOME, else the XDG data directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// A PostgreSQL database with pgvector (postgres://user@host:port/database) to share the
    /// library's indexes in and search them from (default: $LECTERN_DATABASE_URL).
    #[arg(long, global = true, value_name = "URL")]
    pub database_url: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create, rename, move, delete and list folders.
    #[command(subcommand)]
    Folder(FolderCommand),
    /// Add PDF files, or directories of them, to a folder and index them.
    Add(AddArgs),
    /// List the documents of a folder (or of the whole library).
    Ls(LsArgs),
    /// Move, rename, delete, unlock or re-index documents.
    #[command(subcommand)]
    Doc(DocCommand),
    /// Index queued documents until none is left (`--watch`: keep waiting for more).
    Index(IndexArgs),
    /// Indexing jobs: add files as a job and follow it by id (from any process), pause, resume
    /// or cancel it.
    #[command(subcommand)]
    Jobs(JobsCommand),
    /// Other Lectern servers' libraries, asked beside this one (`--remote NAME` in a scope).
    #[command(subcommand)]
    Remote(RemoteCommand),
    /// Folders with their documents, pages and chunks (subfolders included); documents in
    /// progress or needing attention.
    Status(JsonFlag),
    /// Find the passages that best match a question, across a folder's documents.
    Search(SearchArgs),
    /// Measure retrieval quality on questions with known answers, for every search mode.
    Eval(EvalArgs),
    /// Ask a question; the answer streams in, with footnotes citing the passages it is based on.
    Ask(AskArgs),
    /// List, show, rename, delete and export chats.
    #[command(subcommand)]
    Chat(ChatCommand),
    /// Keep folders in sync with directories on disk: link, list, unlink, sync, run.
    #[command(subcommand)]
    Watch(WatchCommand),
    /// The language and embedding models: list, install, choose, remove.
    #[command(subcommand)]
    Model(ModelCommand),
    /// Print the text the core extracts from a PDF, page by page (no library needed).
    Extract(ExtractArgs),
    /// Serve the library to other programs over HTTP (OpenAI-style `/v1/models`,
    /// `/v1/chat/completions`, `/v1/embeddings`, and `/v1/search`), each request needing a token;
    /// manage the tokens limited to folders and read the log of requests.
    Serve(ServeArgs),
    /// Serve the library to an MCP client over standard input and output (for a client that
    /// starts Lectern itself; `lectern serve` serves MCP over HTTP at /mcp).
    Mcp,
    /// The library as a whole: copy it into a database, or out of one.
    #[command(subcommand)]
    Library(LibraryCommand),
}

#[derive(Debug, Subcommand)]
pub enum LibraryCommand {
    /// Copy the whole library (folders, documents, chats, settings, tokens, PDFs and indexes,
    /// without embedding again) into a new PostgreSQL database, or from one into an empty
    /// directory: `--to postgres://user@host:port/database` or `--to DIR`.
    Export {
        /// A database URL (`postgres://…`) or a directory, holding no library yet.
        #[arg(long)]
        to: String,
        /// Print what was copied as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Put back the catalog (folders, documents, chats, settings) from its newest good backup,
    /// kept daily in the data directory's `backups/`, after Lectern said it is damaged; the
    /// damaged file is kept beside it. Documents whose index and PDF are on disk but which the
    /// backup lacks are found again, in the folder "Recovered". Without a backup, the catalog is
    /// rebuilt from the indexes alone. Close the app first.
    RestoreCatalog {
        /// A backup to put back instead of the newest good one.
        #[arg(long)]
        from: Option<PathBuf>,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ServeArgs {
    #[command(subcommand)]
    pub command: Option<ServeCommand>,
    /// Where to listen: this machine only unless another address is given.
    #[arg(long, default_value = lectern_serve::DEFAULT_ADDRESS)]
    pub listen: std::net::SocketAddr,
    /// Print the library's token (made now if it has none) and exit.
    #[arg(long, conflicts_with = "rotate_token")]
    pub show_token: bool,
    /// Replace the library's token with a new one, print it and exit: the old one stops working.
    #[arg(long)]
    pub rotate_token: bool,
}

#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// Tokens that see only some folders, for programs that should not see the whole library.
    #[command(subcommand)]
    Token(TokenCommand),
    /// The latest requests served: when, whose token, what, over which scope, and the reply.
    Log {
        /// How many of the latest requests.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a token that sees only these folders (each with its subfolders), and print it; it is
    /// shown this once.
    Add {
        name: String,
        /// A folder the token sees (repeat for more).
        #[arg(long = "folder", required = true, value_name = "PATH")]
        folders: Vec<String>,
    },
    /// List the limited tokens and their folders.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove a limited token: it stops working at once.
    Remove { name: String },
}

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The PDF file.
    pub file: PathBuf,
    /// The user password of an encrypted PDF (other users can see it in the process list;
    /// prefer --password-stdin).
    #[arg(long)]
    pub password: Option<String>,
    /// Read the password from the first line of standard input.
    #[arg(long, conflicts_with = "password")]
    pub password_stdin: bool,
    /// Only this page (1-based).
    #[arg(long)]
    pub page: Option<u32>,
    /// Print JSON instead of text: `pages`, each with number, text, its character offsets in the
    /// document's text (start, end, chars), has_text_layer, has_images and unmapped_fonts.
    #[arg(long)]
    pub json: bool,
}

/// Retrieval strategies, as the command line spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StrategyArg {
    /// Search for every message.
    Always,
    /// Search for every message; the model reads only passages that clearly bear on it.
    Confidence,
    /// The model is given a search tool and decides.
    Function,
    /// Small talk and requests about the last answer do not search; the rest does.
    Smart,
}

impl From<StrategyArg> for lectern::catalog::Strategy {
    fn from(arg: StrategyArg) -> Self {
        use lectern::catalog::Strategy;
        match arg {
            StrategyArg::Always => Strategy::Always,
            StrategyArg::Confidence => Strategy::Confidence,
            StrategyArg::Function => Strategy::Function,
            StrategyArg::Smart => Strategy::Smart,
        }
    }
}

/// Retrieval modes, as the command line spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    Hybrid,
    Vector,
    Keyword,
}

#[derive(Debug, Args)]
pub struct ScopeArgs {
    /// A folder to search, with its subfolders (repeat for several; default: the whole library).
    #[arg(long = "folder", value_name = "FOLDER")]
    pub folders: Vec<String>,
    /// A document to search, by id or id prefix (repeat for several).
    #[arg(long = "doc", value_name = "ID")]
    pub documents: Vec<String>,
    /// A remote library to search too, or one folder of it (repeat for several; `lectern remote
    /// ls` lists them). With only remotes, this library is not searched.
    #[arg(long = "remote", value_name = "NAME[/FOLDER]")]
    pub remotes: Vec<String>,
    /// Only documents whose PDF author contains this text.
    #[arg(long)]
    pub author: Option<String>,
    /// Only documents whose title or file name contains this text.
    #[arg(long)]
    pub name: Option<String>,
    /// Only PDFs created on or after this date (YYYY, YYYY-MM or YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub created_from: Option<String>,
    /// Only PDFs created on or before this date (YYYY, YYYY-MM or YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub created_to: Option<String>,
    /// Only documents added on or after this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE")]
    pub added_after: Option<String>,
    /// Only documents added before this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE")]
    pub added_before: Option<String>,
}

/// Answer backends, as the command line spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    Builtin,
    Ollama,
    Openai,
    Extractive,
}

#[derive(Debug, Args)]
pub struct AskArgs {
    /// The question.
    pub question: String,
    /// Where to look (default: the chat's scope; for a new chat, the whole library).
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Continue this chat (its id, or the start of it).
    #[arg(long, value_name = "ID")]
    pub chat: Option<String>,
    /// Who answers (default: the saved settings, else $LECTERN_LLM_BACKEND, else builtin).
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// The model: a GGUF path for builtin, a model name for ollama and openai (default: the saved
    /// settings, else $LECTERN_LLM_MODEL; for builtin, the model chosen with `lectern model use`).
    #[arg(long)]
    pub model: Option<String>,
    /// The server's base URL for ollama and openai (default: the saved settings, else
    /// $LECTERN_LLM_URL, else the usual one).
    #[arg(long)]
    pub url: Option<String>,
    /// How many passages to retrieve, 1 to 50 (default: the saved settings, else 10).
    #[arg(long)]
    pub k: Option<usize>,
    /// How passages are retrieved (default: the saved settings, else hybrid).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// When to search; kept as the chat's strategy (default: the chat's, else its folder's,
    /// else always).
    #[arg(long, value_enum)]
    pub strategy: Option<StrategyArg>,
    /// The cosine similarity the best passage must reach, else the answer is "not found"
    /// (default: $LECTERN_RELEVANCE_FLOOR, else the embedding model's own: 0.28 for
    /// all-MiniLM-L6-v2; without one, a share of the question's keyword weight decides).
    #[arg(long)]
    pub floor: Option<f32>,
    /// The most tokens the answer may have.
    #[arg(long, default_value_t = 512)]
    pub max_tokens: usize,
    /// Threads for the built-in model (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the whole outcome as JSON at the end instead of streaming text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum WatchCommand {
    /// Link a directory (searched recursively) to a folder and sync it once.
    Add {
        dir: PathBuf,
        /// The folder that mirrors the directory.
        #[arg(long)]
        folder: String,
        /// Keep the documents of files deleted from the directory.
        #[arg(long)]
        keep_deleted: bool,
    },
    /// List the linked directories: folder, last sync, pending and failed files.
    Ls(JsonFlag),
    /// Unlink a directory (by id or path); the folder keeps its documents.
    Rm { link: String },
    /// Catch up on every linked directory once (what changed while nothing watched).
    Sync,
    /// Watch the linked directories and index what changes, until interrupted.
    Run,
}

#[derive(Debug, Subcommand)]
pub enum ChatCommand {
    /// List the chats, most recent first.
    Ls(JsonFlag),
    /// Show a chat's questions and answers.
    Show(ChatIdArgs),
    /// Rename a chat.
    Rename {
        /// The chat's id, or the start of it.
        id: String,
        title: String,
    },
    /// Delete a chat.
    Rm {
        /// The chat's id, or the start of it.
        id: String,
    },
    /// Export a chat as markdown with footnotes.
    Export {
        /// The chat's id, or the start of it.
        id: String,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct ChatIdArgs {
    /// The chat's id, or the start of it.
    pub id: String,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The question or keywords.
    pub query: String,
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// How many passages to show.
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    #[arg(long, value_enum, default_value_t = ModeArg::Hybrid)]
    pub mode: ModeArg,
    /// Score the best pages again with the second stage's model (when it is installed:
    /// `lectern model install nomic-embed-text-v1.5`); about three seconds more.
    #[arg(long)]
    pub second_stage: bool,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub what: Option<EvalCommand>,
    /// A JSON Lines file of `{"question", "doc", "pages"}` (doc: file name; pages: 1-based).
    pub questions: Option<PathBuf>,
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// List every question whose page each mode misses in the top 5 (whole scope).
    #[arg(long)]
    pub verbose: bool,
    /// Measure hybrid search with the second stage too (its model must be installed: `lectern
    /// model install nomic-embed-text-v1.5`); a few seconds a question.
    #[arg(long)]
    pub second_stage: bool,
    /// Write each question's ranks and pages found, per scope and mode, as JSON Lines here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only part K of N of the questions, split by their answering document (1/2 and 2/2 are
    /// halves that share no document): fit on one part, report on another.
    #[arg(long, value_name = "K/N")]
    pub part: Option<Part>,
    /// Search with other weights than the library's: `NAME=VALUE,…` of vector_weight,
    /// keyword_full, name_weight and statement_boost (`scripts/fit-retrieval.py` fits them).
    #[arg(long, value_name = "NAME=VALUE,…")]
    pub tune: Option<Tuning>,
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Measure answers against gold answers: share correct, declines, share citing a gold page,
    /// citations that resolve, numbers quoted / computed / withheld, time to first token and
    /// tokens/s, per backend and model and per source of the questions.
    Answers(Box<EvalAnswersArgs>),
    /// Measure when the `smart` strategy (or `function`'s model) searches, per file and kind of
    /// message. Lines are `{"message" (or "question"), "needs_documents" (default true), "kind"}`.
    Strategy(EvalStrategyArgs),
}

#[derive(Debug, Args)]
pub struct EvalStrategyArgs {
    /// JSON Lines files: eval/smart.jsonl, and question sets (every question should search).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Measure the `function` strategy instead: the saved model's decision, offered the search
    /// tool (a few seconds a message with the built-in model).
    #[arg(long)]
    pub function: bool,
    /// Threads for the built-in model (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// List the messages judged wrongly.
    #[arg(long)]
    pub verbose: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct EvalAnswersArgs {
    /// A JSON Lines file of `{"id", "question", "answer", "doc", "pages"}`; `"after": ID` asks a
    /// question in the chat of an earlier one, `"answer": null` marks one the documents do not
    /// answer.
    pub questions: PathBuf,
    #[command(flatten)]
    pub scope: ScopeArgs,
    /// Who answers (repeat to compare; default: builtin).
    #[arg(long, value_enum)]
    pub backend: Vec<BackendArg>,
    /// A model for builtin (an id of `lectern model ls` or a GGUF path) or a server's model name
    /// (repeat to compare; default: the default model).
    #[arg(long)]
    pub model: Vec<String>,
    /// The server's base URL for ollama and openai.
    #[arg(long)]
    pub url: Option<String>,
    /// Passages retrieved per question.
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// The most tokens a prompt may take (default: Lectern's default budget).
    #[arg(long)]
    pub budget: Option<usize>,
    /// Retrieve with the second stage (its model must be installed).
    #[arg(long)]
    pub second_stage: bool,
    /// The most tokens an answer may have.
    #[arg(long, default_value_t = 256)]
    pub max_tokens: usize,
    /// Threads for the built-in model (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Only the first N questions (follow-ups keep the questions they follow).
    #[arg(long)]
    pub limit: Option<usize>,
    /// Only part K of N of the questions, split by their answering document (1/2 and 2/2 are
    /// halves that share no document): fit on one part, report on another.
    #[arg(long, value_name = "K/N")]
    pub part: Option<Part>,
    /// Write each question's answer, grade and timing as JSON Lines to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Ask nothing: grade the answers of a run written with `--out` again, against this set's
    /// gold answers, and print the share correct as stored and as graded now, per run and source.
    #[arg(long, value_name = "FILE", conflicts_with = "out")]
    pub regrade: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Known and installed models: size, licence, memory, context, which answers and which embeds.
    Ls(JsonFlag),
    /// Install a model: a known id (`lectern model ls`), an https:// URL of a GGUF file, or the
    /// path of a GGUF file on this machine.
    Install {
        what: String,
        /// The SHA-256 the file from a URL or path must have.
        #[arg(long)]
        sha256: Option<String>,
        /// The id to install a file from a URL or path under (default: its file name).
        #[arg(long)]
        id: Option<String>,
    },
    /// Answer with this installed chat model (the built-in backend) from now on.
    Use { id: String },
    /// Remove an installed model.
    Rm { id: String },
}

#[derive(Debug, Args)]
pub struct JsonFlag {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum FolderCommand {
    /// List every folder with its path.
    Ls(JsonFlag),
    /// Create a folder; `A/B` creates B inside the existing folder A.
    Create { path: String },
    /// Rename a folder in place.
    Rename { path: String, name: String },
    /// Move a folder with everything in it under another folder (or to the top level).
    Mv {
        path: String,
        /// The new parent folder.
        #[arg(long, conflicts_with = "top", required_unless_present = "top")]
        to: Option<String>,
        /// Move to the top level.
        #[arg(long)]
        top: bool,
    },
    /// Delete a folder; a folder holding anything needs one of the two options.
    Rm {
        path: String,
        /// Delete the documents (and subfolders) inside it too.
        #[arg(long, conflicts_with = "move_to_parent")]
        delete_documents: bool,
        /// Move the documents and subfolders up to the parent folder.
        #[arg(long)]
        move_to_parent: bool,
    },
    /// Show or set when chats over a folder search (those without a strategy of their own).
    Strategy {
        path: String,
        /// The new default: always, confidence, function, smart, or inherit (the parent
        /// folder's); without it, the folder's is shown.
        strategy: Option<String>,
    },
}

/// `lectern remote`: other Lectern servers' libraries, asked beside this one.
#[derive(Debug, Subcommand)]
pub enum RemoteCommand {
    /// Add the library a `lectern serve` serves, once it answers with the token.
    Add {
        /// The name it goes by here (as in `--remote NAME`).
        name: String,
        /// Its API address, as `lectern serve` prints it (`http://host:8765/v1`).
        url: String,
        /// The token its owner gave (`lectern serve token add` makes one).
        #[arg(long)]
        token: String,
    },
    /// List the remote libraries.
    Ls(JsonFlag),
    /// Forget a remote library and its token.
    Rm { name: String },
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// PDF files, or directories searched recursively for PDFs.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The folder to add to.
    #[arg(long, short, default_value = lectern::catalog::DEFAULT_FOLDER)]
    pub folder: String,
    /// Queue the documents and return at once; a background process indexes them.
    #[arg(long)]
    pub no_wait: bool,
    /// Print JSON instead of progress bars.
    #[arg(long)]
    pub json: bool,
}

/// Indexing jobs, whichever process started them (`lectern jobs add`, `lectern serve`'s
/// `/v1/jobs`, the MCP tool `add_documents`) and whichever indexes them.
#[derive(Debug, Subcommand)]
pub enum JobsCommand {
    /// Add PDF files, or directories of them, to a folder as a job; prints its id at once and
    /// indexes in the background (`lectern jobs tail ID` follows it).
    Add(AddArgs),
    /// The latest jobs, newest first.
    Ls(JsonFlag),
    /// How a job stands: documents done, failed and left, pages per second.
    Show {
        /// A job id, or a unique prefix of one.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Print a job's log as it grows, until the job ends.
    Tail {
        /// A job id, or a unique prefix of one.
        id: String,
        /// Start after this entry (the last one seen), not at the start.
        #[arg(long, default_value_t = 0)]
        after: i64,
        /// One JSON object a line.
        #[arg(long)]
        json: bool,
    },
    /// Start none of the job's documents until it is resumed.
    Pause {
        /// A job id, or a unique prefix of one.
        id: String,
    },
    /// Let a paused job go on.
    Resume {
        /// A job id, or a unique prefix of one.
        id: String,
    },
    /// Stop a job: its documents not yet read end failed (`lectern doc reindex` starts one over).
    Cancel {
        /// A job id, or a unique prefix of one.
        id: String,
    },
}

#[derive(Debug, Args)]
pub struct LsArgs {
    /// The folder (default: the whole library).
    pub folder: Option<String>,
    /// Include subfolders.
    #[arg(long, short)]
    pub recursive: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Subcommand)]
pub enum DocCommand {
    /// Everything known about a document.
    Info {
        /// A document id, or a unique prefix of one.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// What happened to a document and when: added, moved, read, ready, embedded, failed and why.
    Log {
        /// A document id, or a unique prefix of one.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Move documents to another folder (their indexes stay where they are).
    Mv {
        #[arg(required = true)]
        ids: Vec<String>,
        #[arg(long)]
        to: String,
    },
    /// Rename a document.
    Rename { id: String, name: String },
    /// Delete documents with their indexes.
    Rm {
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Give the password of a document that needs one (typed at a prompt unless given), and
    /// index it.
    Unlock {
        id: String,
        /// The password (other users can see it in the process list; prefer the prompt or
        /// --password-stdin).
        #[arg(long)]
        password: Option<String>,
        /// Read the password from the first line of standard input.
        #[arg(long, conflicts_with = "password")]
        password_stdin: bool,
    },
    /// Index a document again from its stored copy.
    Reindex { id: String },
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct IndexArgs {
    #[command(subcommand)]
    pub command: Option<IndexCommand>,
    /// Keep running and index documents as they are added.
    #[arg(long)]
    pub watch: bool,
}

/// Control of indexing, whichever Lectern process indexes the library (this one, another
/// `lectern`, or the desktop app).
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Pause indexing: steps under way stop between two pages and nothing starts until
    /// `lectern index resume`; nothing is lost.
    Pause,
    /// Let paused indexing go on.
    Resume,
    /// Stop indexing documents, or take them out of the queue: each ends failed, to be indexed
    /// again with `lectern doc reindex`.
    Cancel {
        /// Document ids, or unique prefixes of them.
        #[arg(required = true)]
        ids: Vec<String>,
    },
}
