//! What a request may reach. A model names a scope (`lectern` is everything the token sees,
//! `lectern/Work/Taxes` a folder with its subfolders); a token limited to folders sees those
//! folders only, and whatever lies outside them answers as if it did not exist. Each endpoint
//! says which scope it served, for the request log.

use axum::Extension;

use super::ApiError;
use lectern::catalog::Scope;
use lectern::{Access, ErrorCode, Library};

/// The model that names everything a token sees.
pub const LIBRARY_MODEL: &str = "lectern";

/// The scope a request was served over, as the request log shows it (never its text).
#[derive(Debug, Clone)]
pub struct Logged(pub String);

/// A reply's part that tells the request log its scope.
pub fn logged(scope: impl Into<String>) -> Extension<Logged> {
    Extension(Logged(scope.into()))
}

/// A model's scope, and how the log names it.
pub struct Resolved {
    pub scope: Scope,
    pub label: String,
}

/// The scope `model` names for `access`.
pub fn resolve(library: &Library, access: &Access, model: &str) -> Result<Resolved, ApiError> {
    if model == LIBRARY_MODEL {
        let scope = access.everything().ok_or_else(ApiError::sees_nothing)?;
        let label = match &access.folders {
            None => "library".to_string(),
            Some(folders) => folders
                .iter()
                .map(|f| format!("folder {}", f.path))
                .collect::<Vec<_>>()
                .join(", "),
        };
        return Ok(Resolved { scope, label });
    }
    let path = model
        .strip_prefix("lectern/")
        .ok_or_else(|| ApiError::no_such_model(model))?;
    let folder = match library.folder(path) {
        Ok(folder) if access.sees(&folder) => folder,
        Err(e) if e.code() != ErrorCode::NotFound => return Err(e.into()),
        _ => return Err(ApiError::no_such_model(model)),
    };
    Ok(Resolved {
        scope: Scope {
            folders: vec![folder.id],
            ..Scope::default()
        },
        label: format!("folder {}", folder.path),
    })
}

/// The folders `access` sees, as models, with when each was made.
pub fn models(library: &Library, access: &Access) -> Result<Vec<(String, i64)>, ApiError> {
    let mut models = Vec::new();
    if access.everything().is_some() {
        models.push((LIBRARY_MODEL.to_string(), 0));
    }
    models.extend(
        library
            .folders_seen_by(access)?
            .into_iter()
            .map(|f| (format!("{LIBRARY_MODEL}/{}", f.path), f.created_at / 1000)),
    );
    Ok(models)
}
