//! The agent tests, one module per subject, in one test binary (each once linked the HTTP stack
//! and the agent loop on its own).

#[path = "../common/mod.rs"]
mod common;

mod anthropic;
mod approval;
mod as_tool;
mod context;
mod conversation;
mod gemini;
mod openai;
mod prepare;
mod react;
mod replies;
mod responses;
mod run;
mod stream;
mod telemetry;
mod typed;
