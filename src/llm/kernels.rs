//! llama.cpp's CPU kernels as the package ships them (the `every-cpu` feature): one build per CPU
//! generation, of which the best this CPU runs is loaded before llama.cpp starts.

use std::path::{Path, PathBuf};

/// The builds of llama.cpp's CPU kernels that are never loaded: those using Intel's AMX tiles.
/// Under some virtual machines the tiles' configuration does not survive a thread's switch, and
/// the AMX kernels then stop on an illegal instruction (seen on a Sapphire Rapids guest with
/// permission to use AMX granted); the AVX-512 builds run there.
const SKIPPED_KERNELS: &[&str] = &["sapphirerapids"];

/// Loads the best build of the CPU kernels for this CPU, once, before llama.cpp starts.
pub(super) fn load() -> Result<(), String> {
    let kernels = kernels().ok_or_else(|| {
        format!(
            "none of its CPU kernels (libggml-cpu-*.so) beside the program, in ../lib/lectern or in {} runs on this CPU; reinstall Lectern's package (or build it again)",
            llama_cpp_sys_2::BACKENDS_DIR.unwrap_or("the build directory")
        )
    })?;
    let path = std::ffi::CString::new(kernels.as_os_str().as_encoded_bytes())
        .map_err(|_| format!("{} holds a NUL byte", kernels.display()))?;
    // SAFETY: a NUL-terminated path; llama.cpp loads and registers the library, once.
    let registered = unsafe { llama_cpp_sys_2::ggml_backend_load(path.as_ptr()) };
    if registered.is_null() {
        return Err(format!("its CPU kernels {} did not load", kernels.display()));
    }
    Ok(())
}

/// The CPU kernels to load: the best for this CPU beside the program, else in `../lib/lectern`
/// beside it (as the package installs them), else where the build put them.
fn kernels() -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf));
    let installed = beside.as_ref().map(|dir| dir.join("../lib/lectern"));
    let built = llama_cpp_sys_2::BACKENDS_DIR.map(PathBuf::from);
    beside
        .into_iter()
        .chain(installed)
        .chain(built)
        .find_map(|dir| best_kernels(&dir))
}

fn kernel_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("libggml-cpu-") && name.ends_with(".so")
        })
        .map(|e| e.path())
        .collect()
}

/// The build of the CPU kernels in `dir` that scores best on this CPU, by each build's own
/// `ggml_backend_score` (0: this CPU lacks its instructions), as llama.cpp chooses, but for the
/// builds [`SKIPPED_KERNELS`] names.
fn best_kernels(dir: &Path) -> Option<PathBuf> {
    kernel_files(dir)
        .into_iter()
        .filter(|path| {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            !SKIPPED_KERNELS.iter().any(|skipped| name.contains(skipped))
        })
        .filter_map(|path| {
            // SAFETY: llama.cpp's own kernel builds, opened as llama.cpp opens them to score them;
            // the score function takes nothing and only reads the CPU's features.
            let score = unsafe {
                let library = libloading::Library::new(&path).ok()?;
                let score = library
                    .get::<unsafe extern "C" fn() -> std::os::raw::c_int>(b"ggml_backend_score")
                    .ok()?;
                score()
            };
            (score > 0).then_some((score, path))
        })
        .max_by_key(|(score, _)| *score)
        .map(|(_, path)| path)
}
