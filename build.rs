//! Lets Lectern's programs find llama.cpp. It is built as shared libraries; with the `every-cpu`
//! feature (the package) its CPU kernels are one loadable module per CPU generation
//! (`ggml-cpu-haswell`, `-skylakex`, `-zen4`, …) so that the machine running a program picks the
//! best it has (`llm/kernels.rs`); without it, one build for the building machine. A program looks for
//! the libraries beside itself, then (a development build) where the build put them, or (a
//! release build) in `../lib/lectern`, where the package installs them: `/usr/bin/lectern` finds
//! `/usr/lib/lectern`. The app's build script gives its program the same run path, from
//! `DEP_LECTERN_RPATH`.
//!
//! llama-cpp-sys-2 links `libllama.so` and the like into the profile directory as links to
//! `libllama.so.0`, which it does not put there, and fails on its next build when it finds such a
//! dangling link. So `libllama.so.0` and its kind are put there too, as links to the build's own.

use std::path::{Path, PathBuf};

fn main() {
    // …/<profile>/build/llama-cpp-sys-2-<hash>/out/backends (`every-cpu`), else …/out/lib/cmake
    let out = [("DEP_LLAMA_BACKENDS_DIR", 1), ("DEP_LLAMA_GGML_CMAKE_DIR", 2)]
        .into_iter()
        .find_map(|(name, depth)| {
            println!("cargo:rerun-if-env-changed={name}");
            std::env::var_os(name).and_then(|dir| PathBuf::from(dir).ancestors().nth(depth).map(Path::to_path_buf))
        })
        .unwrap_or_else(|| panic!("llama-cpp-sys-2 did not say where it built llama.cpp (DEP_LLAMA_BACKENDS_DIR, DEP_LLAMA_GGML_CMAKE_DIR)"));
    let out = out.as_path();
    let lib = out.join("lib");
    // A release build is what the package installs: its run path names no directory of the
    // machine that built it (llama-cpp-sys-2 links the libraries beside the programs it builds).
    let rpath = match std::env::var("PROFILE").as_deref() {
        Ok("release") => "$ORIGIN:$ORIGIN/../lib/lectern".to_string(),
        _ => format!("$ORIGIN:{}:{}", lib.display(), out.join("lib64").display()),
    };
    println!("cargo:rustc-link-arg=-Wl,--disable-new-dtags,-rpath,{rpath}");
    println!("cargo:rpath={rpath}");
    if let Some(profile) = out.ancestors().nth(3) {
        for dir in [profile.to_path_buf(), profile.join("deps"), profile.join("examples")] {
            link_sonames(&lib, &dir);
        }
    }
}

/// Links `dir/libX.so.0` to `lib/libX.so.0` for every link `dir/libX.so -> libX.so.0` that
/// llama-cpp-sys-2 made, unless it is there already (a link from an earlier build is replaced).
fn link_sonames(lib: &Path, dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let Ok(target) = std::fs::read_link(entry.path()) else {
            continue;
        };
        let (soname, real) = (dir.join(&target), lib.join(&target));
        let linked = std::fs::read_link(&soname).ok();
        let stale = match &linked {
            Some(to) => *to != real,
            None => !soname.exists(),
        };
        if target.components().count() == 1 && real.exists() && stale {
            let _ = std::fs::remove_file(&soname);
            if let Err(e) = std::os::unix::fs::symlink(&real, &soname) {
                println!(
                    "cargo:warning=could not link {} to {}: {e}",
                    soname.display(),
                    real.display()
                );
            }
        }
    }
}
