//! Generates the app's context and the permissions of its commands (the capability file grants
//! the UI exactly the commands listed here), and lets the app find llama.cpp's shared libraries
//! as the core's build script does.

fn main() {
    let llama =
        std::env::var("DEP_LECTERN_LLAMA_LIB").unwrap_or_else(|_| panic!("the core's build script did not run"));
    let out = std::path::Path::new(&llama)
        .parent()
        .unwrap_or(std::path::Path::new(&llama));
    println!(
        "cargo:rustc-link-arg=-Wl,--disable-new-dtags,-rpath,$ORIGIN:{llama}:{}",
        out.join("lib64").display()
    );
    tauri_build::try_build(
        tauri_build::Attributes::new().app_manifest(tauri_build::AppManifest::new().commands(&[
            "library_state",
            "create_folder",
            "rename_folder",
            "move_folder",
            "delete_folder",
            "import_files",
            "move_documents",
            "delete_document",
            "unlock_document",
            "ask",
            "cancel_answer",
            "list_chats",
            "open_chat",
            "rename_chat",
            "delete_chat",
            "export_chat",
            "document_pdf",
            "get_settings",
            "save_settings",
            "test_connection",
            "set_data_dir",
            "link_directory",
            "unlink_directory",
        ])),
    )
    .unwrap_or_else(|e| panic!("tauri build step failed: {e}"));
}
