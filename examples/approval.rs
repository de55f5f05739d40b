//! A run that waits for a person: the model asks to delete two files and read a third; the
//! delete tool is `#[tool(needs_approval)]`, and with no approval handler the run pauses. Its
//! resume token is saved to a file, and a second process (this example again, run with
//! `resume FILE URL`) reads it, takes the person's decisions (delete `draft.txt`: yes;
//! `thesis.txt`: no) and finishes the run.
//!
//! `cargo run --example approval` runs offline: a scripted OpenAI-compatible server on
//! 127.0.0.1 speaks Chat Completions to both processes.

#[path = "../tests/common/model_server.rs"]
mod model_server;
#[path = "../tests/common/wire.rs"]
mod wire;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use model_server::ModelServer;
use toolkit::agent::{Agent, AgentError, Decision, ResumeToken};
use toolkit::models::OpenAiClient;
use toolkit::prelude::*;
use wire::{openai_calls, openai_text};

#[derive(Default)]
struct Files;

#[toolset(name = "files")]
impl Files {
    /// Delete a file
    #[tool(needs_approval)]
    fn delete(&self, path: String) -> String {
        format!("deleted {path}")
    }

    /// Read a file
    #[tool]
    fn read(&self, path: String) -> String {
        format!("{path}: 3 pages of notes")
    }
}

/// What the model replies: three calls, then its answer once it has their results.
fn script() -> Vec<model_server::Reply> {
    vec![
        openai_calls(&[
            ("call_1", "files_delete", json!({"path": "draft.txt"})),
            ("call_2", "files_delete", json!({"path": "thesis.txt"})),
            ("call_3", "files_read", json!({"path": "notes.txt"})),
        ]),
        openai_text(
            "I deleted draft.txt and kept thesis.txt, as you asked; notes.txt has 3 pages.",
        ),
    ]
}

fn agent(base_url: &str) -> Result<Agent, Box<dyn std::error::Error>> {
    let model = OpenAiClient::builder("gpt-4o-mini")
        .base_url(base_url)
        .timeout(Duration::from_secs(10))
        .build()?;
    let toolbox = Toolbox::builder()
        .toolset_instance(Arc::new(Files))
        .build()?;
    Ok(Agent::builder(model).toolbox(toolbox).build())
}

/// The arguments of a call as text (OpenAI sends them as a JSON string).
fn arguments(call: &ToolCall) -> String {
    match &call.args {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// First process: run until the pause, save the token, and hand over to a second process.
async fn first(token_file: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let server = ModelServer::start(script()).await;
    let url = server.base_url();
    println!("(offline: a scripted OpenAI-compatible server at {url})");
    let token = match agent(&url)?.run("Tidy up my folder.").await {
        Err(AgentError::Paused(token)) => token,
        Ok(run) => return Err(format!("the run ended without a pause: {}", run.answer).into()),
        Err(other) => return Err(other.into()),
    };
    println!("[1] paused at step {} for approval of:", token.step());
    for call in token.pending() {
        println!("[1]   {} {}", call.name, arguments(call));
    }
    std::fs::write(token_file, serde_json::to_vec(&token)?)?;
    println!(
        "[1] saved the token ({} messages) to a file",
        token.history().len()
    );
    let exe = std::env::current_exe()?;
    let args = ["resume".to_owned(), token_file.display().to_string(), url];
    // The server keeps answering on this process's runtime while the second one runs.
    let output =
        tokio::task::spawn_blocking(move || Command::new(exe).args(args).output()).await??;
    print!("{}", String::from_utf8_lossy(&output.stdout));
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned().into());
    }
    Ok(())
}

/// Second process: read the token, decide, resume.
async fn second(token_file: &str, url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let token: ResumeToken = serde_json::from_slice(&std::fs::read(token_file)?)?;
    let decisions: Vec<Decision> = token
        .pending()
        .iter()
        .map(|call| match arguments(call).contains("thesis") {
            true => Decision::deny(call, "the thesis stays"),
            false => Decision::approve(call),
        })
        .collect();
    for decision in &decisions {
        println!(
            "[2] {} {}: {:?}",
            decision.call.name,
            arguments(&decision.call),
            decision.verdict
        );
    }
    let run = agent(url)?.resume(token, decisions).await?;
    for record in run.tool_calls() {
        println!("[2]   {} = {}", record.call.name, record.result.text());
    }
    println!("[2] answer: {}", run.answer);
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    match args.as_slice() {
        [_, command, file, url] if command == "resume" => second(file, url).await,
        _ => {
            let file =
                std::env::temp_dir().join(format!("toolkit-approval-{}.json", std::process::id()));
            let outcome = first(&file).await;
            let _ = std::fs::remove_file(&file);
            outcome
        }
    }
}
