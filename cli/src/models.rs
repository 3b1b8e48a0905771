//! `lectern model`: list the known and installed models, install one (with a progress bar), choose
//! the one that answers, remove one.

use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use lectern::models::InstallOptions;
use lectern::{Error, Library, ModelEntry};

use super::args::ModelCommand;
use super::output;

pub async fn run(library: &Library, command: ModelCommand) -> Result<ExitCode, Error> {
    match command {
        ModelCommand::Ls(flag) => {
            let models = library.list_models()?;
            if flag.json {
                output::json(&models);
            } else {
                print_models(&models);
            }
        }
        ModelCommand::Install { what, sha256, id } => {
            let library = library.clone();
            let installed = tokio::task::spawn_blocking(move || {
                let bar = ProgressBar::new(0).with_style(
                    ProgressStyle::with_template("{msg:40} {bar:30} {bytes}/{total_bytes} {bytes_per_sec}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                let options = InstallOptions {
                    sha256,
                    id,
                    ..InstallOptions::default()
                };
                let installed = library.install_model(&what, &options, &mut |p| {
                    bar.set_message(p.step.clone());
                    bar.set_length(p.total.unwrap_or(p.done));
                    bar.set_position(p.done);
                });
                bar.finish_and_clear();
                installed
            })
            .await
            .map_err(Error::stopped("installing the model"))??;
            println!(
                "installed {} ({}) in {}",
                installed.id,
                megabytes(installed.size),
                installed.path.display()
            );
        }
        ModelCommand::Use { id } => {
            let model = library.use_model(&id)?;
            println!("answers now come from {} (the built-in backend)", model.id);
        }
        ModelCommand::Rm { id } => {
            let now = library.remove_model(&id)?;
            match now {
                Some(now) => println!("removed {id}; answers now come from {now}"),
                None => println!("removed {id}; no chat model is installed now (`lectern model install`)"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_models(models: &[ModelEntry]) {
    println!(
        "{:<22} {:<9} {:>9} {:>8} {:>8}  {:<11} {:<10} note",
        "id", "role", "size", "memory", "context", "licence", "state"
    );
    for m in models {
        let state = match (m.installed, m.active) {
            (true, true) => "in use",
            (true, false) => "installed",
            _ => "-",
        };
        let role = match m.role {
            lectern::models::ModelRole::Chat => "chat",
            lectern::models::ModelRole::Embedding => "embedding",
            lectern::models::ModelRole::Rerank => "rerank",
            lectern::models::ModelRole::Pages => "pages",
        };
        println!(
            "{:<22} {:<9} {:>9} {:>8} {:>8}  {:<11} {:<10} {}",
            m.id,
            role,
            megabytes(m.size),
            m.memory_mb.map_or_else(|| "?".into(), |mb| format!("{mb} MB")),
            m.context.map_or_else(|| "?".into(), |c| c.to_string()),
            m.licence.as_deref().unwrap_or("?"),
            state,
            m.note
        );
    }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}
