//! How an error is classified, whichever area it comes from: its code (what kind of failure, and
//! so whose fault: the user's input, the library's state, a missing model or server, Lectern's own)
//! and the hint of what the user can do. Each area's error classifies itself next to where it is
//! defined ([`Classified`]); [`crate::Error`] asks the area it wraps.

use serde::Serialize;

use crate::ids::DocumentId;

/// An error that knows its code and its remedy.
pub trait Classified {
    /// The code a client branches on.
    fn code(&self) -> ErrorCode;

    /// What the user can do about it, where there is something to do.
    fn hint(&self) -> Option<Hint> {
        None
    }
}

/// What kind of failure an error is, for a client to branch on; it says whose fault it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// A folder, document or file that does not exist.
    NotFound,
    /// Input the user can correct: a bad name, a non-PDF, a move into itself.
    InvalidInput,
    /// The request clashes with the library's state: a taken name, a non-empty folder.
    Conflict,
    /// The PDF needs a (correct) password.
    NeedsPassword,
    /// A model is not installed or a model server is not answering.
    Unavailable,
    /// The package index (or another source of a model) could not be reached: the machine is
    /// offline, most likely, and a model can come from a file or folder on it instead.
    Offline,
    /// Lectern's own fault or the machine's: disk, database, a bug.
    Internal,
    /// The request could mean several things: the hint lists them to choose from.
    Ambiguous,
}

/// What the user can do about an error. Messages say what failed and whose fault it is; each
/// client says the remedy in its own terms (a command for the CLI, a button or a place in the
/// window for the app).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Hint {
    /// The folders are listed where the library is shown.
    ListFolders,
    /// The documents are listed where the library is shown.
    ListDocuments,
    /// The past chats are listed where the chats are shown.
    ListChats,
    /// The linked directories are listed where the folders are shown.
    ListLinks,
    /// The directory must be unlinked from its folder first.
    Unlink,
    /// The known models are listed in the model manager.
    ListModels,
    /// A model must be installed: this one, or (none) any language model.
    InstallModel { model: Option<String> },
    /// A model must be installed or another chosen in the settings: the model or server there is
    /// missing, unreachable, or refuses.
    CheckSettings,
    /// The PDF's password must be given (again).
    EnterPassword,
    /// The question is to be asked again of one of these documents (the likeliest first).
    ChooseDocument { choices: Vec<DocumentChoice> },
}

/// A document offered to choose from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct DocumentChoice {
    pub id: DocumentId,
    /// The name it is shown by.
    pub name: String,
    /// Its folder's path.
    pub folder: String,
}
