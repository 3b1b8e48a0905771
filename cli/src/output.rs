//! Everything the CLI prints goes through here: text tables for people, JSON for scripts.

use std::collections::HashMap;
use std::io::Write;

use lectern::catalog::LogEntry;
use lectern::dates::utc;
use lectern::{Document, DocumentStatus, Error, Folder, FolderId, Hint, LibraryStatus};
use serde::Serialize;

/// Prints `value` as pretty JSON. A closed pipe (`| head`) ends the output quietly.
pub fn json<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(text) => {
            let _ = writeln!(std::io::stdout().lock(), "{text}");
        }
        Err(e) => eprintln!("error: the output could not be written as JSON: {e}"),
    }
}

/// Prints a failure: the message and the hint in the CLI's terms on stderr, or
/// `{"error": {code, message, hint}}` on stdout for `--json`.
pub fn error(e: &Error, as_json: bool) {
    if as_json {
        return json(&serde_json::json!({ "error": e.payload() }));
    }
    eprintln!("error: {e}");
    if let Some(hint) = e.hint() {
        eprintln!("hint: {}", hint_text(&hint));
    }
}

/// A hint, said as the commands that act on it.
fn hint_text(hint: &Hint) -> String {
    match hint {
        Hint::ListFolders => "`lectern folder ls` lists the folders".into(),
        Hint::ListDocuments => "`lectern ls` lists the documents".into(),
        Hint::ListChats => "`lectern chat ls` lists the chats".into(),
        Hint::ListLinks => "`lectern watch ls` lists the linked directories".into(),
        Hint::Unlink => "`lectern watch rm` unlinks it".into(),
        Hint::ListModels => "`lectern model ls` lists the models".into(),
        Hint::InstallModel { model: Some(id) } => format!("`lectern model install {id}` installs it"),
        Hint::InstallModel { model: None } => {
            "`lectern model install` installs the default model; `lectern model use` chooses another".into()
        }
        Hint::CheckSettings => {
            "check the backend, model and URL: `lectern ask --backend`, the app's settings or LECTERN_LLM_*".into()
        }
        Hint::EnterPassword => "`lectern doc unlock` takes the password".into(),
        Hint::ChooseDocument { choices } => {
            let listed: String = choices
                .iter()
                .map(|c| format!("\n  {}  {}  ({})", &c.id.to_string()[..8], c.name, c.folder))
                .collect();
            format!("ask it of one with `--doc ID`, or go on with `--chat` after an answer that cited one:{listed}")
        }
    }
}

pub fn folders(folders: &[Folder], as_json: bool) {
    if as_json {
        return json(&folders);
    }
    for f in folders {
        println!("{}", f.path);
    }
}

/// One line per document: short id, status, pages, the name it is shown by, folder.
pub fn documents(docs: &[Document], folders: &[Folder], as_json: bool) {
    if as_json {
        return json(&docs);
    }
    let paths = folder_paths(folders);
    if docs.is_empty() {
        println!("no documents");
    }
    for d in docs {
        println!(
            "{}  {:<15} {:>5} p  {}  [{}]",
            short_id(d),
            status_text(d),
            d.page_count.map_or("?".to_string(), |p| p.to_string()),
            d.display_name,
            paths.get(&d.folder).map_or("?", String::as_str),
        );
        if let Some(reason) = &d.reason {
            println!("          {reason}");
        }
    }
}

pub fn document_info(d: &Document, folders: &[Folder], as_json: bool) {
    if as_json {
        return json(d);
    }
    let paths = folder_paths(folders);
    let field = |name: &str, value: String| println!("{name:<10} {value}");
    field("id", d.id.to_string());
    field("name", d.display_name.clone());
    field("file", d.file_name.clone());
    field("folder", paths.get(&d.folder).cloned().unwrap_or_default());
    field("status", status_text(d));
    if let Some(reason) = &d.reason {
        field("reason", reason.clone());
    }
    field("title", d.title.clone().unwrap_or_default());
    field("author", d.author.clone().unwrap_or_default());
    field("created", d.pdf_created.clone().unwrap_or_default());
    field("modified", d.pdf_modified.clone().unwrap_or_default());
    field("source", d.source_path.clone().unwrap_or_default());
    field("type", d.mime_type.clone().unwrap_or_default());
    field("file date", d.file_modified.map(utc).unwrap_or_default());
    field("pages", d.page_count.map(|p| p.to_string()).unwrap_or_default());
    field("chunks", d.chunk_count.map(|c| c.to_string()).unwrap_or_default());
    field("chars", d.char_count.map(|c| c.to_string()).unwrap_or_default());
    field("bytes", d.byte_size.to_string());
    field("sha256", d.content_hash.clone());
    field("added", utc(d.added_at));
}

/// A document's log, a line an entry: when, how serious, what happened.
pub fn document_log(entries: &[LogEntry], as_json: bool) {
    if as_json {
        return json(&entries);
    }
    for entry in entries {
        println!("{}  {:<7}  {}", utc(entry.at), entry.level.as_str(), entry.message);
    }
}

pub fn status(status: &LibraryStatus, as_json: bool) {
    if as_json {
        return json(status);
    }
    println!(
        "{:<40} {:>5} {:>7} {:>7}  latest addition",
        "folder", "docs", "pages", "chunks"
    );
    for s in &status.folders {
        println!(
            "{:<40} {:>5} {:>7} {:>7}  {}",
            s.folder.path,
            s.documents,
            s.pages,
            s.chunks,
            s.latest_added.map(utc).unwrap_or_else(|| "-".into()),
        );
    }
    if !status.in_progress.is_empty() {
        let paused = if status.paused {
            " (paused: `lectern index resume` goes on)"
        } else {
            ""
        };
        println!("\nin progress{paused}:");
        for d in &status.in_progress {
            println!("  {}  {:<15} {}", short_id(d), status_text(d), d.file_name);
        }
    }
    if let Some(held) = &status.held {
        println!("\n{held}");
    }
    if !status.needing_attention.is_empty() {
        println!("\nneeding attention:");
        for d in &status.needing_attention {
            println!("  {}  {:<15} {}", short_id(d), d.status.as_str(), d.file_name);
            if let Some(reason) = &d.reason {
                println!("            {reason}");
            }
        }
    }
}

/// The status, with progress while indexing.
pub fn status_text(d: &Document) -> String {
    match d.status {
        DocumentStatus::Indexing if d.progress_total > 0 => {
            format!("indexing {}/{}", d.progress_done, d.progress_total)
        }
        DocumentStatus::Ready if d.embed_total > 0 => format!(
            "searchable by keyword · embedding {} %",
            d.embed_done * 100 / d.embed_total
        ),
        s => s.as_str().to_string(),
    }
}

pub fn short_id(d: &Document) -> String {
    d.id.to_string()[..8].to_string()
}

fn folder_paths(folders: &[Folder]) -> HashMap<FolderId, String> {
    folders.iter().map(|f| (f.id, f.path.clone())).collect()
}

/// What `lectern library restore-catalog` did.
pub fn restored(restored: &lectern::Restored, as_json: bool) {
    if as_json {
        return json(restored);
    }
    match &restored.backup {
        Some(backup) => println!(
            "put back the catalog backed up {} ({}): {} document(s)",
            utc(backup.made),
            backup.path.display(),
            restored.documents
        ),
        None => println!("no backup to put back: the catalog was rebuilt from the documents' indexes"),
    }
    if let Some(kept) = &restored.damaged_kept {
        println!("the catalog there before is kept as {}", kept.display());
    }
    if restored.recovered > 0 {
        println!(
            "found {} document(s) again from their indexes, in the folder \"{}\"",
            restored.recovered,
            lectern::RECOVERED_FOLDER
        );
    }
}

/// One extracted page, as `lectern extract` prints it.
#[derive(Debug, Serialize)]
pub struct ExtractedPage {
    pub number: u32,
    /// Where the page's text starts in the document's text (pages followed by a form feed), in
    /// characters.
    pub start: usize,
    /// Where it ends (exclusive).
    pub end: usize,
    /// Its length in characters: chunks and citations give `char_start..char_end` in `text`.
    pub chars: usize,
    pub text: String,
    /// The page's section headings (lines set well above its body size).
    pub headings: Vec<String>,
    pub has_text_layer: bool,
    pub has_images: bool,
    pub unmapped_fonts: Vec<String>,
}

/// The pages of `lectern extract`: each under a header saying what was found, or as JSON. A
/// closed pipe (`| head`) ends the output quietly.
pub fn extracted_pages(pages: &[ExtractedPage], as_json: bool) {
    if as_json {
        return json(&serde_json::json!({ "pages": pages }));
    }
    let mut out = std::io::stdout().lock();
    for page in pages {
        let mut notes = Vec::new();
        match (page.has_text_layer, page.has_images) {
            (false, true) => notes.push("no text layer, images only: scanned?".to_string()),
            (false, false) => notes.push("no text layer".to_string()),
            (true, _) => notes.push(format!("characters {}..{}", page.start, page.end)),
        }
        if !page.headings.is_empty() {
            notes.push(format!("headings: {}", page.headings.join(" | ")));
        }
        if !page.unmapped_fonts.is_empty() {
            notes.push(format!(
                "fonts without Unicode mapping: {}",
                page.unmapped_fonts.join(", ")
            ));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        };
        let written = writeln!(out, "--- page {}{notes} ---", page.number).and_then(|()| {
            if page.text.is_empty() {
                Ok(())
            } else {
                writeln!(out, "{}", page.text)
            }
        });
        if written.is_err() {
            return;
        }
    }
}
