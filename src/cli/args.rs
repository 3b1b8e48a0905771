//! The command line, parsed with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Ask questions about your own PDFs, offline.
#[derive(Debug, Parser)]
#[command(name = "lectern", version, about)]
pub struct Cli {
    /// The library's data directory (default: $LECTERN_HOME, else the XDG data directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
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
    /// Folders with their documents, pages and chunks; documents in progress or needing attention.
    Status(JsonFlag),
    /// Measure indexing speed on a directory of PDFs.
    Bench(BenchArgs),
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
    /// Give the password of a document that needs one, and index it.
    Unlock {
        id: String,
        #[arg(long)]
        password: String,
    },
    /// Index a document again from its stored copy.
    Reindex { id: String },
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// Keep running and index documents as they are added.
    #[arg(long)]
    pub watch: bool,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// The directory of PDFs to index (default: the shared corpus's `text-` files).
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// A JSON file of reference figures from `scripts/bench_sentence_transformers.py`, shown side by side.
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// Chunks embedded for the embedding-speed figure.
    #[arg(long, default_value_t = 256)]
    pub chunks: usize,
}
