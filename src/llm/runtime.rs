//! llama.cpp's process-wide state, shared by every model it runs here (the built-in chat model,
//! the second stage's embedding model), started once: in the package, after the best build of its
//! CPU kernels for this CPU is loaded (`kernels.rs`).

use std::sync::OnceLock;

use llama_cpp_2::llama_backend::LlamaBackend;

use super::LlmError;

/// llama.cpp's process-wide state, initialised once, its CPU kernels the build for the best
/// instructions this CPU has (AVX2, AVX-512, VNNI, …).
pub(crate) fn backend() -> Result<&'static LlamaBackend, LlmError> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default().with_logs_enabled(false));
            #[cfg(feature = "every-cpu")]
            super::kernels::load()?;
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| LlmError::Runtime(format!("llama.cpp did not start: {e}")))
}
