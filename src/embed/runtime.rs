//! ONNX Runtime, loaded from the shared library the setup installed (`libonnxruntime.so`, from the
//! `onnxruntime` wheel on PyPI, its SHA-256 checked) the first time a model needs it: nothing is
//! linked or downloaded when Lectern is built. A process has one runtime environment, kept for
//! its lifetime; a failure to load is kept too, and told to every caller.

use std::path::Path;
use std::sync::OnceLock;

use ort::environment::Environment;

use super::EmbedError;

/// The runtime library's file name in its directory.
pub const LIBRARY_FILE: &str = "libonnxruntime.so.1.31.1";

static ENVIRONMENT: OnceLock<Result<Environment, String>> = OnceLock::new();

/// The process's ONNX Runtime environment, loading the library in `dir` the first time.
pub fn environment(dir: &Path) -> Result<Environment, EmbedError> {
    let library = dir.join(LIBRARY_FILE);
    if !library.is_file() {
        return Err(EmbedError::ModelMissing {
            dir: dir.to_path_buf(),
            file: LIBRARY_FILE.to_string(),
        });
    }
    ENVIRONMENT
        .get_or_init(|| {
            ort::init_from(&library)
                .map_err(|e| e.to_string())?
                .with_name("lectern")
                .with_telemetry(false)
                .build()
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|reason| EmbedError::RuntimeMissing { library, reason })
}
