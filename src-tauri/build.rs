//! Generates the app's context and the permissions of its commands (the capability file grants
//! the UI exactly the commands listed here), and gives the app the run path to llama.cpp's shared
//! libraries that the core's build script gives its own programs.

fn main() {
    let rpath = std::env::var("DEP_LECTERN_RPATH").unwrap_or_else(|_| panic!("the core's build script did not run"));
    println!("cargo:rustc-link-arg=-Wl,--disable-new-dtags,-rpath,{rpath}");
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
