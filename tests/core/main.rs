//! The workspace's integration tests: the core library, the `lectern` program and its server, run
//! for real; the modules mirror `src/`, `cli/` and `serve/`.
//! Fixtures: the real PDFs of `corpus/` and files the tests write themselves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod answer;
mod backup;
mod catalog;
mod cli;
mod common;
mod corpus;
mod crash;
mod disk;
mod embed;
mod embedding;
mod hostile;
mod import;
mod index;
mod jobs;
mod mcp;
mod models;
mod ocr;
mod proxy;
mod remote;
mod search;
mod secrets;
mod serve;
mod shared;
mod store;
mod strategy;
mod watch;
mod wide_index;
