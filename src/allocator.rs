//! The C allocator's arenas. glibc gives threads that allocate at the same time arenas of their
//! own, up to eight per core, and memory freed in one arena is not reused by another: with the
//! PDF reader, the keyword writer, LanceDB's and ONNX Runtime's threads all allocating,
//! `lectern add` of realqa's 80 PDFs held 514 MiB at its peak, and 387 MiB with two arenas
//! (docs/figures.md, "Indexing and embedding").

/// How many arenas the allocator may make.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ARENAS: libc::c_int = 2;

/// Caps the allocator's arenas at [`ARENAS`]. Call it first thing in `main`, before any thread
/// starts.
pub fn share_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator, before any other thread allocates.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, ARENAS);
    }
}
