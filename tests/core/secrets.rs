//! Secrets in the system keyring: a private D-Bus session with a real Secret Service
//! (gnome-keyring) holds a PDF's password and the API key; the catalog keeps only a mark, another
//! process reads the password from the keyring to index the PDF, and deleting the document
//! removes its password there. Without a keyring, secrets stay in the library, which says so; secrets
//! kept there move to the keyring once one answers.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use lectern::catalog::DEFAULT_FOLDER;
use lectern::llm::BackendKind;
use lectern::{DocumentStatus, Library, SecretPlace, Settings};

use crate::common::{config, corpus_manifest, corpus_pdf, database_env, index_all, library, models_dir};

/// A D-Bus session bus and gnome-keyring's Secret Service on it, in a directory of their own,
/// stopped when dropped.
struct Keyring {
    address: String,
    children: Vec<Child>,
    _dir: tempfile::TempDir,
}

impl Keyring {
    fn start() -> Keyring {
        let dir = tempfile::tempdir().unwrap();
        let mut bus = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon (Debian's dbus-daemon) runs the test's session bus");
        let mut address = String::new();
        BufReader::new(bus.stdout.take().unwrap())
            .read_line(&mut address)
            .unwrap();
        let address = address.trim().to_string();
        let mut keyring = Command::new("gnome-keyring-daemon")
            .args(["--foreground", "--components=secrets", "--unlock"])
            .env("DBUS_SESSION_BUS_ADDRESS", &address)
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .env("XDG_RUNTIME_DIR", dir.path())
            .env("HOME", dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("gnome-keyring-daemon (Debian's gnome-keyring) is the test's Secret Service");
        // The login keyring's password, on standard input, unlocks (or creates) it.
        keyring.stdin.take().unwrap().write_all(b"test").unwrap();
        let keyring = Keyring {
            address,
            children: vec![bus, keyring],
            _dir: dir,
        };
        keyring.wait_for_service();
        keyring
    }

    /// Waits until the Secret Service has its name on the bus.
    fn wait_for_service(&self) {
        for _ in 0..100 {
            let names = Command::new("dbus-send")
                .args(["--session", "--print-reply", "--dest=org.freedesktop.DBus"])
                .args(["/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames"])
                .env("DBUS_SESSION_BUS_ADDRESS", &self.address)
                .output()
                .unwrap();
            if String::from_utf8_lossy(&names.stdout).contains("org.freedesktop.secrets") {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the Secret Service did not come up on the test's bus");
    }
}

impl Drop for Keyring {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The password column and the keyring mark the catalog holds for `content_hash`.
fn stored_password(home: &Path, content_hash: &str) -> (String, bool) {
    let db = rusqlite::Connection::open(home.join("library.sqlite")).unwrap();
    db.query_row(
        "SELECT password, in_keyring FROM document_passwords WHERE content_hash = ?1",
        [content_hash],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

/// Adds the corpus's PDF that needs a password and unlocks it: the document and its password.
fn unlock_protected_pdf(lib: &Library) -> (lectern::Document, String) {
    let file = "enc-libreoffice-user-openpassword.pdf";
    let password = corpus_manifest()
        .into_iter()
        .find(|e| e.file == file)
        .unwrap()
        .user_password
        .unwrap();
    let doc = lib.add(&[corpus_pdf(file)], DEFAULT_FOLDER).unwrap().added.remove(0);
    index_all(lib);
    lib.unlock(doc.id, &password).unwrap();
    (doc, password)
}

#[test]
fn a_password_and_an_api_key_live_in_the_keyring_and_only_a_mark_in_the_library() {
    let keyring = Keyring::start();
    // This test's process talks to the test's bus (a process of its own: nextest runs each test
    // in one), and so does the `lectern` it starts.
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", &keyring.address);
    let home = tempfile::tempdir().unwrap();
    let mut with_keyring = config(home.path());
    with_keyring.keyring = true;
    let lib = Library::open(with_keyring).unwrap();
    assert_eq!(lib.secret_place(), SecretPlace::Keyring);

    let (doc, password) = unlock_protected_pdf(&lib);
    assert_eq!(
        stored_password(home.path(), &doc.content_hash),
        (String::new(), true),
        "the catalog holds a mark, not the password"
    );
    let output = Command::new(env!("CARGO_BIN_EXE_lectern"))
        .arg("--home")
        .arg(home.path())
        .envs(database_env(home.path()))
        .arg("index")
        .env("LECTERN_MODELS", models_dir())
        .env_remove("LECTERN_KEYRING")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let indexed = lib.document(&doc.id.to_string()).unwrap();
    assert_eq!(
        indexed.status,
        DocumentStatus::Ready,
        "another process read the password from the keyring: {:?}",
        indexed.reason
    );

    let service = format!("Lectern library {}", home.path().canonicalize().unwrap().display());
    let entry = keyring::Entry::new(&service, &format!("pdf-password {}", doc.content_hash)).unwrap();
    assert_eq!(entry.get_password().unwrap(), password);
    lib.delete_document(doc.id).unwrap();
    assert!(
        matches!(entry.get_password(), Err(keyring::Error::NoEntry)),
        "a deleted document's password leaves the keyring"
    );

    let settings = remote_settings("sk-in-the-keyring");
    lib.save_settings(&settings).unwrap();
    let saved = saved_settings(home.path());
    assert!(!saved.contains("sk-in-the-keyring"), "{saved}");
    assert_eq!(lib.settings().unwrap().api_key.as_deref(), Some("sk-in-the-keyring"));
    lib.save_settings(&Settings {
        api_key: None,
        ..settings
    })
    .unwrap();
    assert_eq!(lib.settings().unwrap().api_key, None);
    let key = keyring::Entry::new(&service, "api-key").unwrap();
    assert!(matches!(key.get_password(), Err(keyring::Error::NoEntry)));
}

/// The settings of a remote server, with its key.
fn remote_settings(key: &str) -> Settings {
    Settings {
        backend: BackendKind::Openai,
        url: Some("https://api.example.com/v1".into()),
        model: Some("gpt-4o-mini".into()),
        api_key: Some(key.into()),
        ..Settings::default()
    }
}

/// The saved settings as the catalog holds them.
fn saved_settings(home: &Path) -> String {
    let db = rusqlite::Connection::open(home.join("library.sqlite")).unwrap();
    db.query_row("SELECT value FROM settings WHERE key = 'answers'", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn secrets_kept_in_the_library_move_to_a_keyring_that_answers_later() {
    let home = tempfile::tempdir().unwrap();
    let (doc, password) = {
        let lib = Library::open(config(home.path())).unwrap();
        assert_eq!(lib.secret_place(), SecretPlace::Library);
        lib.save_settings(&remote_settings("sk-moved")).unwrap();
        unlock_protected_pdf(&lib)
    };
    assert_eq!(
        stored_password(home.path(), &doc.content_hash),
        (password.clone(), false)
    );
    assert!(saved_settings(home.path()).contains("sk-moved"));

    let keyring = Keyring::start();
    std::env::set_var("DBUS_SESSION_BUS_ADDRESS", &keyring.address);
    let mut with_keyring = config(home.path());
    with_keyring.keyring = true;
    let lib = Library::open(with_keyring).unwrap();
    index_all(&lib);
    assert_eq!(
        stored_password(home.path(), &doc.content_hash),
        (String::new(), true),
        "the indexer's start moved the password to the keyring"
    );
    assert_eq!(lib.settings().unwrap().api_key.as_deref(), Some("sk-moved"));
    assert!(
        !saved_settings(home.path()).contains("sk-moved"),
        "reading the settings moved the key to the keyring"
    );
    assert_eq!(lib.settings().unwrap().api_key.as_deref(), Some("sk-moved"));
    assert_eq!(lib.document(&doc.id.to_string()).unwrap().status, DocumentStatus::Ready);

    let service = format!("Lectern library {}", home.path().canonicalize().unwrap().display());
    let entry = keyring::Entry::new(&service, &format!("pdf-password {}", doc.content_hash)).unwrap();
    assert_eq!(entry.get_password().unwrap(), password);
    let key = keyring::Entry::new(&service, "api-key").unwrap();
    assert_eq!(key.get_password().unwrap(), "sk-moved");
}

#[test]
fn without_a_keyring_secrets_stay_in_the_library_which_says_so() {
    let lib = library();
    assert_eq!(lib.secret_place(), SecretPlace::Library);
    let (doc, password) = unlock_protected_pdf(&lib);
    assert_eq!(stored_password(lib.home.path(), &doc.content_hash), (password, false));
    index_all(&lib);
    assert_eq!(lib.document(&doc.id.to_string()).unwrap().status, DocumentStatus::Ready);
}
