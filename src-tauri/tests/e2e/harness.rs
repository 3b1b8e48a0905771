//! What the end-to-end test runs the app in: a private X display (Xvfb), tauri-driver over
//! WebKitWebDriver, a temporary data directory, and the models the tests install.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process leading its own process group, which is killed when dropped: tauri-driver's
/// WebKitWebDriver and the app it starts go with it.
struct Process(Child);

impl Process {
    fn spawn(command: &mut Command, what: &str) -> Process {
        Process(
            command
                .process_group(0)
                .spawn()
                .unwrap_or_else(|e| panic!("{what} does not run: {e}")),
        )
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.wait();
    }
}

/// A free loopback port.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn wait_for_port(port: u16, what: &str) {
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what} did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The models the test suite installs (`scripts/setup-models.sh`).
pub fn models_dir() -> PathBuf {
    let dir = std::env::var_os("LECTERN_TEST_MODELS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.models"));
    assert!(
        dir.join("all-MiniLM-L6-v2/model.onnx").is_file(),
        "the models are not installed in {}; run scripts/setup-models.sh {}",
        dir.display(),
        dir.display()
    );
    dir
}

/// A PDF of the repository's `corpus/` (or `$LECTERN_CORPUS`).
pub fn corpus_pdf(name: &str) -> PathBuf {
    std::env::var_os("LECTERN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus"))
        .join("pdfs")
        .join(name)
}

/// Xvfb and tauri-driver, running for one test, with the app's data in `home`.
pub struct Desktop {
    pub home: tempfile::TempDir,
    /// The X display, ":N".
    pub display: String,
    pub driver_port: u16,
    _driver: Process,
    _display: Display,
}

impl Desktop {
    /// A new display and driver for an app with an empty library and one thread for everything.
    pub fn start() -> Desktop {
        Desktop::start_with(None, &[])
    }

    /// Like [`Desktop::start`], but the app opens the library at `library` if given, and `env`
    /// overrides the environment the app gets.
    pub fn start_with(library: Option<&Path>, env: &[(&str, &str)]) -> Desktop {
        let xvfb = Display::start();
        let display = xvfb.number;
        let home = tempfile::tempdir().unwrap();
        let driver_port = free_port();
        let native_port = loop {
            let port = free_port();
            if port != driver_port {
                break port;
            }
        };
        let driver = Process::spawn(
            Command::new(tauri_driver())
                .args([
                    "--port",
                    &driver_port.to_string(),
                    "--native-port",
                    &native_port.to_string(),
                ])
                .env("DISPLAY", format!(":{display}"))
                .env(
                    "LECTERN_HOME",
                    library.map_or_else(|| home.path().join("library"), Path::to_path_buf),
                )
                .env("LECTERN_MODELS", models_dir())
                .env("XDG_CONFIG_HOME", home.path().join("config"))
                .env("XDG_DATA_HOME", home.path().join("data"))
                .env("XDG_CACHE_HOME", home.path().join("cache"))
                .env("LECTERN_LLM_THREADS", "1")
                .env("LECTERN_WORKERS", "1")
                .env("RAYON_NUM_THREADS", "1")
                .env("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
                // The server for other programs, when switched on, on a free port.
                .env("LECTERN_SERVE_ADDRESS", "127.0.0.1:0")
                .env_remove("LECTERN_LLM_BACKEND")
                .env_remove("LECTERN_LLM_MODEL")
                .env_remove("LECTERN_LLM_URL")
                .envs(env.iter().copied())
                .stdout(Stdio::null()),
            "tauri-driver (cargo install tauri-driver)",
        );
        wait_for_port(driver_port, "tauri-driver");
        wait_for_port(native_port, "WebKitWebDriver (apt install webkit2gtk-driver)");
        Desktop {
            home,
            display: format!(":{display}"),
            driver_port,
            _driver: driver,
            _display: xvfb,
        }
    }
}

/// A private X display (Xvfb), ended when dropped.
pub struct Display {
    pub number: u32,
    _server: Process,
}

impl Display {
    pub fn start() -> Display {
        let number = (90..200).find(|&n| display_free(n)).expect("a free X display number");
        let server = Process::spawn(
            Command::new("Xvfb")
                .args([
                    &format!(":{number}"),
                    "-screen",
                    "0",
                    "1280x820x24",
                    "-br",
                    "-nolisten",
                    "tcp",
                ])
                .stderr(Stdio::null()),
            "Xvfb (apt install xvfb)",
        );
        let socket = format!("/tmp/.X11-unix/X{number}");
        let started = Instant::now();
        while !Path::new(&socket).exists() {
            assert!(started.elapsed() < Duration::from_secs(20), "Xvfb did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        Display {
            number,
            _server: server,
        }
    }

    /// `:N`, as `DISPLAY` names it.
    pub fn name(&self) -> String {
        format!(":{}", self.number)
    }
}

/// tauri-driver where `cargo install` puts it, else on the PATH.
fn tauri_driver() -> PathBuf {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
    cargo_home
        .map(|dir| dir.join("bin/tauri-driver"))
        .filter(|path| path.is_file())
        .unwrap_or_else(|| PathBuf::from("tauri-driver"))
}

impl Desktop {
    /// Saves the display as the PNG `path`.
    pub fn screenshot(&self, path: &Path) {
        crate::screenshot::save(&self.display, path);
    }
}

/// Whether X display `n` is free: no server holds its lock. What a server that was killed left
/// (a lock naming a process that is gone, its socket) is cleared, so that the socket appears
/// again only once the new server listens.
fn display_free(n: u32) -> bool {
    let (lock, socket) = (format!("/tmp/.X{n}-lock"), format!("/tmp/.X11-unix/X{n}"));
    let gone = |path: &str| match std::fs::remove_file(path) {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    match std::fs::read_to_string(&lock) {
        Ok(pid) if Path::new(&format!("/proc/{}", pid.trim())).exists() => false,
        Ok(_) => gone(&socket) && gone(&lock),
        Err(_) => !Path::new(&socket).exists(),
    }
}
