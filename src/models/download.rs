//! HTTP downloads that survive a dropped connection: the bytes go to `<dest>.partial`, the next
//! attempt asks for the rest with `Range`, and the file takes its name only once it is whole and,
//! where its size and SHA-256 are known, checked. Redirects (Hugging Face sends downloads to a
//! CDN) are followed.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use reqwest::blocking::{Client, Response};
use reqwest::header::{ACCEPT, CONTENT_RANGE, RANGE};
use reqwest::StatusCode;
use sha2::{Digest, Sha256};

use super::ModelError;

/// What a downloaded file must be, where known.
#[derive(Debug, Clone, Default)]
pub struct Expect {
    pub size: Option<u64>,
    pub sha256: Option<String>,
}

/// Attempts per file: a connection dropped part-way is resumed this many times before giving up
/// (the `.partial` file stays, so the next command resumes again).
const ATTEMPTS: usize = 4;

/// An HTTP client for model downloads.
pub struct Downloader {
    client: Client,
    /// Set from elsewhere to stop a download between two reads; what was written stays, to be
    /// resumed.
    cancel: Option<Arc<AtomicBool>>,
}

impl Downloader {
    pub fn new() -> Result<Downloader, ModelError> {
        let client = Client::builder()
            .user_agent(concat!("lectern/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(30))
            // A model is a gigabyte: no limit on the whole transfer (the blocking client's default
            // is 30 s).
            .timeout(None)
            .redirect(reqwest::redirect::Policy::limited(10))
            .build()
            .map_err(|e| ModelError::Unreachable {
                url: String::new(),
                reason: e.to_string(),
            })?;
        Ok(Downloader { client, cancel: None })
    }

    /// The same downloader, stopped by `cancel` (when given) with [`ModelError::Cancelled`].
    pub fn cancelled_by(self, cancel: Option<Arc<AtomicBool>>) -> Downloader {
        Downloader { cancel, ..self }
    }

    /// GETs `url` as JSON, asking for `accept`.
    pub fn json(&self, url: &str, accept: &str) -> Result<serde_json::Value, ModelError> {
        let response = self.send(url, |r| r.header(ACCEPT, accept))?;
        let response = check_status(url, response)?;
        response.json().map_err(|e| ModelError::BadArchive {
            what: url.to_string(),
            reason: format!("the reply is not the JSON expected ({e})"),
        })
    }

    /// Downloads `url` to `dest`, resuming a `.partial` file left by an earlier attempt, and
    /// checks it against `expect`. `progress` gets the bytes so far and the total when known.
    pub fn download(
        &self,
        url: &str,
        dest: &Path,
        expect: &Expect,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<(), ModelError> {
        if dest.is_file() && verify(dest, url, expect).is_ok() {
            return Ok(());
        }
        let partial = partial_path(dest);
        let mut last = None;
        for _ in 0..ATTEMPTS {
            match self.fetch(url, &partial, expect, progress) {
                Ok(()) => {
                    last = None;
                    break;
                }
                Err(e @ (ModelError::CutShort { .. } | ModelError::Unreachable { .. })) => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        if let Some(e) = last {
            return Err(e);
        }
        if let Err(e) = verify(&partial, url, expect) {
            // Wrong bytes cannot be resumed into right ones.
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
        std::fs::rename(&partial, dest).map_err(ModelError::io(dest))
    }

    /// One attempt: asks for what `partial` lacks and appends it.
    fn fetch(
        &self,
        url: &str,
        partial: &Path,
        expect: &Expect,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<(), ModelError> {
        let mut have = std::fs::metadata(partial).map_or(0, |m| m.len());
        if have > 0 && expect.size == Some(have) {
            return Ok(());
        }
        let response = self.send(url, |r| {
            if have > 0 {
                r.header(RANGE, format!("bytes={have}-"))
            } else {
                r
            }
        })?;
        let append = match response.status() {
            StatusCode::PARTIAL_CONTENT if resumes_at(&response) == Some(have) => true,
            StatusCode::PARTIAL_CONTENT | StatusCode::RANGE_NOT_SATISFIABLE => {
                // Not the rest of what is there (the file changed, or is shorter): start again.
                std::fs::remove_file(partial).map_err(ModelError::io(partial))?;
                return Err(ModelError::CutShort {
                    url: url.to_string(),
                    received: 0,
                    expected: expect.size.unwrap_or(have),
                });
            }
            _ => false,
        };
        let mut response = check_status(url, response)?;
        if !append {
            have = 0;
        }
        let total = response.content_length().map(|n| n + have).or(expect.size);
        if let (Some(total), Some(size)) = (total, expect.size) {
            if total != size {
                return Err(ModelError::Size {
                    what: url.to_string(),
                    expected: size,
                    actual: total,
                });
            }
        }
        let mut file = OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(partial)
            .map_err(ModelError::io(partial))?;
        let mut buffer = vec![0u8; 256 * 1024];
        loop {
            if self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed)) {
                file.sync_all().map_err(ModelError::io(partial))?;
                return Err(ModelError::Cancelled);
            }
            let n = match response.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(_) => {
                    file.sync_all().map_err(ModelError::io(partial))?;
                    return Err(ModelError::CutShort {
                        url: url.to_string(),
                        received: have,
                        expected: total.unwrap_or(have),
                    });
                }
            };
            file.write_all(&buffer[..n]).map_err(ModelError::io(partial))?;
            have += n as u64;
            progress(have, total);
        }
        file.sync_all().map_err(ModelError::io(partial))?;
        match total {
            Some(total) if have < total => Err(ModelError::CutShort {
                url: url.to_string(),
                received: have,
                expected: total,
            }),
            _ => Ok(()),
        }
    }

    fn send(
        &self,
        url: &str,
        build: impl FnOnce(reqwest::blocking::RequestBuilder) -> reqwest::blocking::RequestBuilder,
    ) -> Result<Response, ModelError> {
        build(self.client.get(url)).send().map_err(|e| ModelError::Unreachable {
            url: url.to_string(),
            reason: root_cause(&e),
        })
    }
}

/// Where the bytes of `dest` collect until it is whole.
pub fn partial_path(dest: &Path) -> PathBuf {
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    dest.with_file_name(name)
}

/// The first byte a 206 reply's `Content-Range: bytes START-END/TOTAL` starts at.
fn resumes_at(response: &Response) -> Option<u64> {
    let value = response.headers().get(CONTENT_RANGE)?.to_str().ok()?;
    value.strip_prefix("bytes ")?.split('-').next()?.trim().parse().ok()
}

fn check_status(url: &str, response: Response) -> Result<Response, ModelError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    Err(match status {
        StatusCode::NOT_FOUND => ModelError::NotFound { url: url.to_string() },
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => ModelError::Http {
            url: url.to_string(),
            status: status.as_u16(),
            hint: ": the file needs a login or an access token",
        },
        _ => ModelError::Http {
            url: url.to_string(),
            status: status.as_u16(),
            hint: "",
        },
    })
}

/// Checks a whole file's size and SHA-256 against what is expected.
pub fn verify(path: &Path, what: &str, expect: &Expect) -> Result<(), ModelError> {
    let actual = std::fs::metadata(path).map_err(ModelError::io(path))?.len();
    if let Some(size) = expect.size {
        if actual != size {
            return Err(ModelError::Size {
                what: what.to_string(),
                expected: size,
                actual,
            });
        }
    }
    if let Some(expected) = &expect.sha256 {
        let actual = sha256_file(path)?;
        if !actual.eq_ignore_ascii_case(expected) {
            return Err(ModelError::Checksum {
                what: what.to_string(),
                expected: expected.clone(),
                actual,
            });
        }
    }
    Ok(())
}

/// The SHA-256 of a file, in lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String, ModelError> {
    let mut file = File::open(path).map_err(ModelError::io(path))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(ModelError::io(path))?;
    Ok(hex::encode(hasher.finalize()))
}

/// The innermost reason of an HTTP error, which says what actually failed (refused, DNS, TLS).
fn root_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}
