//! The agent the durable tests and `examples/durable_worker.rs` serve, and the model it talks
//! to: tools that record each execution as one line of a file (so a test or scripts/durable
//! counts side effects), and a scripted OpenAI-compatible model whose reply depends only on
//! the conversation it is sent, so any worker, replaying any run, gets the same answer.
//!
//! A run's input is its id (`run-7`), or `pay:` and its id for a run whose tool needs approval,
//! or `ledger:` and its id for a run that writes agent state ([`Ledger`]). Its steps: `lookup`
//! (idempotent) and `book` (not), then `notify` (not), then the answer `done <id>`; a `pay:` run
//! calls `pay` (needs approval), then answers; a `ledger:` run writes `first`, then `second`,
//! then answers.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolkit::agent::Agent;
use toolkit::models::OpenAiClient;
use toolkit::prelude::*;

use super::model_server::Reply;

/// Tools whose every execution appends `tool run worker` to one file.
pub struct Errands {
    effects: PathBuf,
    worker: String,
    /// How long `book` takes: a window for a worker to die in.
    pub book_time: Duration,
}

#[toolset(name = "errand")]
impl Errands {
    /// Look a run up (no side effect a second call would add)
    #[tool(idempotent)]
    async fn lookup(&self, run: String) -> String {
        self.record("lookup", &run);
        format!("{run} is open")
    }

    /// Book a slot for a run (once: booking twice books twice)
    #[tool]
    async fn book(&self, run: String) -> String {
        self.record("book", &run);
        tokio::time::sleep(self.book_time).await;
        format!("{run} booked")
    }

    /// Tell the run's owner (once)
    #[tool]
    async fn notify(&self, run: String) -> String {
        self.record("notify", &run);
        format!("{run}: owner told")
    }

    /// Pay for a run (a person approves it first)
    #[tool(needs_approval)]
    async fn pay(&self, run: String) -> String {
        self.record("pay", &run);
        format!("{run} paid")
    }
}

/// The agent state of the durable agent: what the ledger tool wrote, in order.
#[derive(AgentState, Debug, Default, Serialize, Deserialize)]
pub struct Ledger {
    pub entries: Vec<String>,
}

#[derive(Default)]
pub struct Ledgers;

#[toolset(name = "ledger", state = Ledger)]
impl Ledgers {
    /// Write an entry into the run's ledger
    #[tool(outputs_to_state(entries))]
    fn write(&self, entry: String) -> Vec<String> {
        vec![entry]
    }
}

impl Errands {
    /// One line per execution, written with one `write` on a file opened to append, so the
    /// lines of several processes do not interleave.
    fn record(&self, tool: &str, run: &str) {
        let line = format!("{tool} {run} {}\n", self.worker);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.effects);
        if let Ok(mut file) = file {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// The agent a worker serves: the scripted model at `model_url`, the errands recording into
/// `effects` as `worker`.
pub fn agent(model_url: &str, effects: &Path, worker: &str, book_time: Duration) -> Agent {
    let errands = Errands {
        effects: effects.to_path_buf(),
        worker: worker.to_owned(),
        book_time,
    };
    let toolbox = Toolbox::builder()
        .toolset_instance(Arc::new(errands))
        .toolset::<Ledgers>()
        .build()
        .expect("the errands' names are unique");
    let model = OpenAiClient::builder("scripted")
        .base_url(model_url)
        .timeout(Duration::from_secs(30))
        .build()
        .expect("a loopback URL is a valid base URL");
    Agent::builder(model).toolbox(toolbox).max_steps(6).build()
}

/// Every line of `effects`, as (tool, run, worker).
pub fn effects(path: &Path) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut parts = line.split(' ');
            let (tool, run, worker) = (parts.next()?, parts.next()?, parts.next()?);
            Some((tool.to_owned(), run.to_owned(), worker.to_owned()))
        })
        .collect()
}

/// The run a request belongs to and its step (how many tool rounds the history holds).
pub fn run_and_step(body: &Value) -> (String, usize) {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let input = messages
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    let rounds = messages
        .iter()
        .filter(|m| m["role"] == "assistant" && m["tool_calls"].is_array())
        .count();
    (input, rounds)
}

/// The model: the reply to a request of the script above, after `delay`.
pub fn reply(body: &Value, delay: Duration) -> Reply {
    let (input, step) = run_and_step(body);
    let (kind, run) = input.split_once(':').unwrap_or(("", &input));
    let message = match (kind, step) {
        ("", 0) => calls(&[
            ("errand_lookup", "run", run, 1),
            ("errand_book", "run", run, 2),
        ]),
        ("", 1) => calls(&[("errand_notify", "run", run, 3)]),
        ("pay", 0) => calls(&[("errand_pay", "run", run, 1)]),
        ("ledger", 0) => calls(&[("ledger_write", "entry", "first", 1)]),
        ("ledger", 1) => calls(&[("ledger_write", "entry", "second", 2)]),
        _ => json!({"role": "assistant", "content": format!("done {run}")}),
    };
    let finish = match message["tool_calls"].is_array() {
        true => "tool_calls",
        false => "stop",
    };
    let body = json!({
        "id": "chatcmpl-durable", "object": "chat.completion", "created": 1741570283,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    });
    Reply::json(200, &body.to_string()).after(delay)
}

/// An assistant message calling each (tool, argument, value, number).
fn calls(calls: &[(&str, &str, &str, usize)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(tool, name, value, n)| {
            json!({"id": format!("call_{n}"), "type": "function", "function": {
                "name": tool, "arguments": json!({*name: value}).to_string()}})
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}
