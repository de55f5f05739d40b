//! The providers' official SDK types as a judge of what the scripted model server sees: every
//! request body and every scripted reply goes through `provider_sdk.py`, which validates it with
//! the pinned `openai`, `anthropic` and `google-genai` packages.
//!
//! One validator process serves a whole test binary (its imports take seconds); it reads a JSON
//! line and answers one. The venv is `target/provider-sdk-venv`, set up on first use like the
//! MCP SDK's.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use serde_json::{Value, json};

use super::mcp::{Process, root, venv_python};

/// The SDK versions the requests are checked against (the newest on PyPI when pinned), and the
/// pydantic that validates them.
pub const REQUIREMENTS: &[&str] = &[
    "openai==3.63.0",
    "anthropic==2.17.0",
    "google-genai==3.6.1",
    "pydantic==2.14.4",
];

struct Validator {
    // Kept so the child is reaped with the validator; it also exits when its stdin closes.
    _process: Process,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Validator {
    fn start() -> Validator {
        let python = venv_python("provider-sdk-venv", REQUIREMENTS);
        let script = root().join("tests/common/provider_sdk.py");
        let mut process = Process::spawn(
            Command::new(python)
                .arg(script)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped()),
        );
        let input = process.0.stdin.take().expect("piped stdin");
        let output = BufReader::new(process.0.stdout.take().expect("piped stdout"));
        let mut validator = Validator {
            _process: process,
            input,
            output,
        };
        validator
            .ask(&json!({"check": "ping"}))
            .expect("the SDK validator starts");
        validator
    }

    fn ask(&mut self, question: &Value) -> Result<(), String> {
        let mut line = question.to_string();
        line.push('\n');
        self.input
            .write_all(line.as_bytes())
            .and_then(|()| self.input.flush())
            .map_err(|err| format!("the SDK validator is gone: {err}"))?;
        let mut answer = String::new();
        self.output
            .read_line(&mut answer)
            .map_err(|err| format!("the SDK validator is gone: {err}"))?;
        let answer: Value = serde_json::from_str(&answer)
            .map_err(|err| format!("the SDK validator answered {answer:?}: {err}"))?;
        match answer["ok"] {
            Value::Bool(true) => Ok(()),
            _ => Err(answer["error"].as_str().unwrap_or("refused").to_owned()),
        }
    }
}

static VALIDATOR: OnceLock<Mutex<Validator>> = OnceLock::new();

/// Starts the validator (and sets up its venv) if it is not running yet.
pub fn start() {
    VALIDATOR.get_or_init(|| Mutex::new(Validator::start()));
}

fn ask(question: Value) -> Result<(), String> {
    let validator = VALIDATOR.get_or_init(|| Mutex::new(Validator::start()));
    // A test that panicked while holding the lock leaves the validator usable.
    let mut validator = validator
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    validator.ask(&question)
}

/// Checks a request body sent to `path`; the error is the SDK's message.
pub fn check_request(path: &str, body: &Value) -> Result<(), String> {
    ask(json!({"check": "request", "path": path, "body": body}))
}

/// Checks a 200 reply body to a request sent to `path`.
pub fn check_reply(path: &str, body: &Value) -> Result<(), String> {
    ask(json!({"check": "reply", "path": path, "body": body}))
}

/// Checks one streamed event's `data` in a reply to a request sent to `path`.
pub fn check_event(path: &str, data: &str) -> Result<(), String> {
    ask(json!({"check": "event", "path": path, "data": data}))
}
