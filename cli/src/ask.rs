//! `lectern ask` (the answer streamed to the terminal, Ctrl-C stops it) and `lectern chat`.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use lectern::answer::{footnote_list, AnswerEvent, AnswerKind};
use lectern::llm::{Cancel, Role};
use lectern::{AskAt, AskChoices, BackendKind, Because, Error, Library};
use tokio::sync::mpsc;

use super::args::{AskArgs, BackendArg, ChatCommand};
use super::scope::scope;

impl From<BackendArg> for BackendKind {
    fn from(arg: BackendArg) -> BackendKind {
        match arg {
            BackendArg::Builtin => BackendKind::Builtin,
            BackendArg::Ollama => BackendKind::Ollama,
            BackendArg::Openai => BackendKind::Openai,
            BackendArg::Extractive => BackendKind::Extractive,
        }
    }
}

pub async fn ask(library: &Library, args: AskArgs) -> Result<ExitCode, Error> {
    let has_scope =
        !args.scope.folders.is_empty() || !args.scope.documents.is_empty() || !args.scope.remotes.is_empty();
    let chat = args.chat.as_deref().map(|id| library.find_chat(id)).transpose()?;
    let scope = has_scope.then(|| scope(library, &args.scope)).transpose()?;
    let choices = AskChoices {
        backend: args.backend.map(Into::into),
        model: args.model.clone(),
        url: args.url.clone(),
        k: args.k,
        mode: args.mode.map(Into::into),
        relevance_floor: args.floor,
        max_tokens: Some(args.max_tokens),
        threads: args.threads,
        strategy: args.strategy.map(Into::into),
    };

    let cancel = Cancel::new();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    let (sender, mut events) = mpsc::unbounded_channel();
    let printer = (!args.json).then(|| {
        tokio::spawn(async move {
            let mut out = std::io::stdout();
            // Until the first words, a terminal is told what is happening on one line of standard
            // error, cleared when they come (standard output holds the answer alone).
            let mut status = std::io::stderr().is_terminal().then(std::io::stderr);
            while let Some(event) = events.recv().await {
                match event {
                    AnswerEvent::Stage { text, .. } => {
                        if let Some(status) = status.as_mut() {
                            let _ = write!(status, "\r\x1b[2K{text}");
                        }
                    }
                    AnswerEvent::Text { text } => {
                        if let Some(status) = status.take().as_mut() {
                            let _ = write!(status, "\r\x1b[2K");
                        }
                        let _ = out.write_all(text.as_bytes());
                        let _ = out.flush();
                    }
                    AnswerEvent::Citation { .. } => {}
                }
            }
        })
    });
    let outcome = library
        .ask_as_chosen(
            args.question.clone(),
            AskAt {
                chat,
                scope,
                about: None,
            },
            &choices,
            &cancel,
            Some(sender),
        )
        .await?;
    if let Some(printer) = printer {
        let _ = printer.await;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&outcome).unwrap_or_default());
        return Ok(ExitCode::SUCCESS);
    }
    let answer = &outcome.answer;
    let list = footnote_list(&answer.citations);
    if !list.is_empty() {
        println!("\n\n{list}");
    }
    if answer.kind == AnswerKind::Generated && answer.citations.is_empty() {
        println!(
            "\n(The model cited none of the {} passages it was given.)",
            answer.passages_supplied
        );
    }
    if cancel.is_cancelled() {
        println!("\n(stopped)");
    }
    if outcome.retrieval.query.is_none() {
        println!(
            "\n(answered without searching: strategy {})",
            outcome.retrieval.strategy
        );
    }
    if let Some(asked_of) = &outcome.asked_of {
        let why = match asked_of.because {
            Because::Cited => "the document the last answer cited",
            Because::Open => "the document chosen",
        };
        println!("\n(asked of {}, {why})", asked_of.name);
    }
    for unreachable in &outcome.results.unreachable {
        eprintln!("not searched: {}", unreachable.reason);
    }
    for skipped in &outcome.results.skipped {
        eprintln!("skipped {}: {}", skipped.document_name, skipped.reason);
    }
    println!("\nchat {}", outcome.chat.id);
    Ok(ExitCode::SUCCESS)
}

pub fn chat(library: &Library, command: ChatCommand) -> Result<(), Error> {
    match command {
        ChatCommand::Ls(flag) => {
            let chats = library.chats()?;
            if flag.json {
                println!("{}", serde_json::to_string_pretty(&chats).unwrap_or_default());
            } else if chats.is_empty() {
                println!("no chats yet: `lectern ask \"QUESTION\"` starts one");
            }
            if !flag.json {
                for chat in chats {
                    println!("{}  {:>3} messages  {}", chat.id, chat.message_count, chat.title);
                }
            }
        }
        ChatCommand::Show(args) => {
            let (chat, messages) = library.chat(library.find_chat(&args.id)?)?;
            if args.json {
                let value = serde_json::json!({ "chat": chat, "messages": messages });
                println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
                return Ok(());
            }
            println!("{}\n", chat.title);
            for message in messages {
                match message.role {
                    Role::User => println!("> {}\n", message.content),
                    _ => {
                        println!("{}", message.content);
                        let list = footnote_list(&message.citations);
                        if !list.is_empty() {
                            println!("\n{list}");
                        }
                        println!();
                    }
                }
            }
        }
        ChatCommand::Rename { id, title } => {
            let chat = library.rename_chat(library.find_chat(&id)?, &title)?;
            println!("renamed chat {} to {:?}", chat.id, chat.title);
        }
        ChatCommand::Rm { id } => {
            let id = library.find_chat(&id)?;
            library.delete_chat(id)?;
            println!("deleted chat {id}");
        }
        ChatCommand::Export { id, out } => {
            let markdown = library.export_chat(library.find_chat(&id)?)?;
            match out {
                Some(path) => std::fs::write(&path, markdown).map_err(Error::io(&path))?,
                None => print!("{markdown}"),
            }
        }
    }
    Ok(())
}
