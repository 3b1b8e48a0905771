//! Which documents a question is asked of: folders (each with its subfolders) and chosen
//! documents, narrowed by metadata filters, and of those only the ones that are ready.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::names::Names;
use super::sql::Value;
use super::{Catalog, CatalogError, DocumentId, FolderId};

/// How many scopes' documents the catalog keeps between reads.
const SCOPES_KEPT: usize = 4;

/// The documents a search covers. Empty folders and documents mean the whole library, unless
/// the scope names remote libraries: then it covers those alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Scope {
    /// Folders, each with all its subfolders.
    pub folders: Vec<FolderId>,
    /// Documents chosen one by one, wherever they are.
    pub documents: Vec<DocumentId>,
    pub filters: ScopeFilters,
    /// Remote libraries (or folders of them) asked beside the local part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "typescript", ts(as = "Option<Vec<RemoteScope>>", optional))]
    pub remotes: Vec<RemoteScope>,
}

impl Scope {
    /// Whether this library's documents are searched: always, unless the scope names only
    /// remote libraries.
    pub fn has_local_part(&self) -> bool {
        self.remotes.is_empty() || !self.folders.is_empty() || !self.documents.is_empty()
    }
}

/// A remote library in a scope: the whole of what its token sees, or one folder of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RemoteScope {
    /// The remote's name here.
    pub remote: String,
    /// A folder's path in the remote library (with its subfolders).
    #[serde(default)]
    pub folder: Option<String>,
}

/// Metadata filters; every one given must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ScopeFilters {
    /// A substring of the PDF's author (case-insensitive).
    pub author: Option<String>,
    /// A substring of the PDF's title or of the file name (case-insensitive).
    pub name: Option<String>,
    /// The PDF's creation date is on or after this ISO date (`2020` or `2020-05-01`).
    pub created_from: Option<String>,
    /// The PDF's creation date is before the end of this ISO date (`2021` covers all of 2021).
    pub created_to: Option<String>,
    /// Added to the library at or after this instant (milliseconds since the Unix epoch).
    pub added_after: Option<i64>,
    /// Added to the library before this instant (milliseconds since the Unix epoch).
    pub added_before: Option<i64>,
}

/// A ready document in scope, with what a search needs to know of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopedDocument {
    pub id: DocumentId,
    pub folder: FolderId,
    /// The folder's slash-separated path.
    pub folder_path: String,
    pub file_name: String,
    /// The PDF's metadata title, if it has one.
    pub title: Option<String>,
    /// Bumped each time the document's index is published.
    pub index_generation: i64,
    /// How many pages the PDF has.
    pub page_count: u64,
}

/// The ready documents of a scope as one read of the catalog found them, ordered by id, with the
/// words of their names (made when first asked for).
#[derive(Debug, Default)]
pub struct ScopeDocuments {
    docs: Vec<ScopedDocument>,
    names: OnceLock<Names>,
}

impl ScopeDocuments {
    pub fn new(docs: Vec<ScopedDocument>) -> ScopeDocuments {
        ScopeDocuments {
            docs,
            names: OnceLock::new(),
        }
    }

    /// The words of the documents' names.
    pub fn names(&self) -> &Names {
        self.names.get_or_init(|| Names::of(&self.docs))
    }
}

impl Deref for ScopeDocuments {
    type Target = [ScopedDocument];

    fn deref(&self) -> &[ScopedDocument] {
        &self.docs
    }
}

/// The documents of the scopes read last, with the catalog's change stamp they were read at: a
/// library of ten thousand documents is not read again for each question while it does not
/// change.
#[derive(Default)]
pub(super) struct ScopesRead(RefCell<Vec<ScopeRead>>);

/// A scope, the catalog's change stamp it was read at, and its documents.
type ScopeRead = (Scope, (i64, u64), Arc<ScopeDocuments>);

#[cfg(test)]
impl ScopedDocument {
    /// A document of this name and title, in folder 1.
    pub fn named(file_name: &str, title: Option<&str>) -> ScopedDocument {
        ScopedDocument {
            id: DocumentId::new_random(),
            folder: FolderId(1),
            folder_path: "F".into(),
            file_name: file_name.into(),
            title: title.map(String::from),
            index_generation: 1,
            page_count: 1,
        }
    }
}

impl Catalog {
    /// The ready documents in `scope`, ordered by id, read in one statement (one snapshot), or
    /// kept from the last read of the same scope if the catalog has not changed since.
    pub fn documents_in_scope(&self, scope: &Scope) -> Result<Arc<ScopeDocuments>, CatalogError> {
        let stamp = self.db.change_stamp();
        let mut read = self.scopes_read.0.borrow_mut();
        if let Some(stamp) = stamp {
            if let Some((_, _, docs)) = read.iter().find(|(s, at, _)| *at == stamp && s == scope) {
                return Ok(docs.clone());
            }
        }
        let docs = Arc::new(ScopeDocuments::new(self.scoped(scope, None)?));
        read.retain(|(s, at, _)| Some(*at) == stamp && s != scope);
        if let Some(stamp) = stamp {
            read.truncate(SCOPES_KEPT - 1);
            read.insert(0, (scope.clone(), stamp, docs.clone()));
        }
        Ok(docs)
    }

    /// Which of `among` are ready documents in `scope` now (a cheap second look after a search).
    pub fn documents_in_scope_among(
        &self,
        scope: &Scope,
        among: &[DocumentId],
    ) -> Result<Vec<ScopedDocument>, CatalogError> {
        if among.is_empty() {
            return Ok(Vec::new());
        }
        self.scoped(scope, Some(among))
    }

    fn scoped(&self, scope: &Scope, among: Option<&[DocumentId]>) -> Result<Vec<ScopedDocument>, CatalogError> {
        let mut params: Vec<Value> = Vec::new();
        let mut bind = |v: Value| {
            params.push(v);
            format!("?{}", params.len())
        };
        let mut selected = Vec::new();
        let mut cte = String::new();
        if !scope.folders.is_empty() {
            let roots: Vec<String> = scope.folders.iter().map(|f| bind(Value::Int(f.0))).collect();
            cte = subtree_cte(&roots);
            selected.push("d.folder_id IN (SELECT id FROM sub)".to_string());
        }
        if !scope.documents.is_empty() {
            let ids: Vec<String> = scope
                .documents
                .iter()
                .map(|d| bind(Value::Text(d.to_string())))
                .collect();
            selected.push(format!("d.id IN ({})", ids.join(", ")));
        }
        let mut conditions = vec!["d.status = 'ready'".to_string()];
        if !selected.is_empty() {
            conditions.push(format!("({})", selected.join(" OR ")));
        }
        if let Some(among) = among {
            let ids: Vec<String> = among.iter().map(|d| bind(Value::Text(d.to_string()))).collect();
            conditions.push(format!("d.id IN ({})", ids.join(", ")));
        }
        let f = &scope.filters;
        if let Some(author) = &f.author {
            let p = bind(Value::Text(like_pattern(author)));
            conditions.push(format!("lower(d.author) LIKE lower({p}) ESCAPE '\\'"));
        }
        if let Some(name) = &f.name {
            let p = bind(Value::Text(like_pattern(name)));
            conditions.push(format!(
                "(lower(d.title) LIKE lower({p}) ESCAPE '\\' OR lower(d.file_name) LIKE lower({p}) ESCAPE '\\')"
            ));
        }
        if let Some(from) = &f.created_from {
            let p = bind(Value::Text(from.clone()));
            conditions.push(format!("d.pdf_created >= {p}"));
        }
        if let Some(to) = &f.created_to {
            // `2021` must include `2021-12-31T10:00`: compare as long a start of the date.
            let p = bind(Value::Text(to.clone()));
            conditions.push(format!("substr(d.pdf_created, 1, length(CAST({p} AS TEXT))) <= {p}"));
        }
        if let Some(after) = f.added_after {
            let p = bind(Value::Int(after));
            conditions.push(format!("d.added_at >= {p}"));
        }
        if let Some(before) = f.added_before {
            let p = bind(Value::Int(before));
            conditions.push(format!("d.added_at < {p}"));
        }
        let sql = format!(
            "{cte} SELECT d.id, d.folder_id, d.file_name, d.title, d.index_generation, d.page_count
             FROM documents d WHERE {} ORDER BY d.id",
            conditions.join(" AND ")
        );
        let paths: HashMap<FolderId, String> = self.list_folders()?.into_iter().map(|f| (f.id, f.path)).collect();
        self.db.query(&sql, &params, |r| {
            let id = r
                .get::<String>(0)?
                .parse::<DocumentId>()
                .map_err(|e| CatalogError::Column {
                    index: 0,
                    reason: e.to_string(),
                })?;
            let folder = FolderId(r.get(1)?);
            Ok(ScopedDocument {
                id,
                folder,
                folder_path: paths.get(&folder).cloned().unwrap_or_default(),
                file_name: r.get(2)?,
                title: r.get(3)?,
                index_generation: r.get(4)?,
                page_count: r.get(5)?,
            })
        })
    }
}

/// `WITH RECURSIVE sub` holding the folders bound as `roots` and all their descendants.
fn subtree_cte(roots: &[String]) -> String {
    format!(
        "WITH RECURSIVE sub(id) AS (
             SELECT id FROM folders WHERE id IN ({})
             UNION
             SELECT f.id FROM folders f JOIN sub ON f.parent_id = sub.id
         )",
        roots.join(", ")
    )
}

/// A LIKE pattern matching `needle` anywhere, with LIKE's own characters escaped.
fn like_pattern(needle: &str) -> String {
    let mut p = String::from("%");
    for c in needle.chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}
