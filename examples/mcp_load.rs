//! A load generator for an MCP server over Streamable HTTP: many clients, each with its own
//! session, each call carrying a unique argument that its result must echo.
//!
//! ```text
//! cargo run --release --example mcp_load -- --url http://127.0.0.1:8000/mcp \
//!     --clients 1000 --calls-per-client 10 [--token-env MCP_BEARER_TOKEN] \
//!     [--tool task_assign | task_confirm | text_extract_lines | stats_word_count] [--interval-ms 0] \
//!     [--record calls.jsonl] [--cpu-hog THREADS]
//! ```
//!
//! Each client opens its own session ([`McpClient`] over rmcp's client), then calls the tool
//! `--calls-per-client` times in a row. A call is *answered* when its result carries its own
//! unique argument, *wrong* when it carries anything else, and *failed* when it came back as an
//! error (or the client could not connect: all its calls count as failed). The last lines
//! printed are `key=value` figures, for `scripts/load` and `scripts/scale-out` to read; with
//! `--record`, every call is written as one JSON line (start and latency in ms, outcome).
//!
//! `task_confirm` asks the user before it files (`ctx.elicit`); each client answers yes, and
//! notes which replica asked (the server's `--replica` name, in the question) and which one
//! filed (in the answer): the figures `elicited`, `elsewhere` (answered on another replica than
//! the one that asked) and `asked_twice` (a call whose question came more than once).
//!
//! With `--cpu-hog THREADS`, that many threads of this process spin on the CPU for as long as
//! the clients run, so that a server on the same machine answers while starved of CPU (a
//! busy machine, or a noisy neighbour).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::sync::Mutex;
use toolkit::context::{ElicitationAnswer, ElicitationRequest};
use toolkit::mcp::{McpClient, McpTransport};

const USAGE: &str = "usage: mcp_load --url URL [--clients N] [--calls-per-client M] \
                     [--token-env VAR] [--tool task_assign|task_confirm|text_extract_lines|stats_word_count] \
                     [--interval-ms MS] [--record PATH] [--cpu-hog THREADS]";

/// What the command line asked for.
struct Config {
    url: String,
    clients: usize,
    calls: usize,
    token: Option<String>,
    tool: String,
    interval: Duration,
    record: Option<String>,
    hog: usize,
}

fn config() -> Result<Config, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|arg| arg == flag)
            .map(|at| args.get(at + 1).cloned().ok_or(USAGE))
            .transpose()
    };
    let number = |flag: &str, default: usize| -> Result<usize, Box<dyn std::error::Error>> {
        Ok(match value(flag)? {
            Some(text) => text.parse().map_err(|_| USAGE)?,
            None => default,
        })
    };
    let token = match value("--token-env")? {
        Some(var) => Some(std::env::var(&var).map_err(|_| format!("{var} is not set"))?),
        None => None,
    };
    Ok(Config {
        url: value("--url")?.ok_or(USAGE)?,
        clients: number("--clients", 100)?,
        calls: number("--calls-per-client", 10)?,
        token,
        tool: value("--tool")?.unwrap_or_else(|| "task_assign".to_owned()),
        interval: Duration::from_millis(number("--interval-ms", 0)? as u64),
        record: value("--record")?,
        hog: number("--cpu-hog", 0)?,
    })
}

/// How one call ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Outcome {
    Answered,
    Wrong,
    Failed,
}

/// One call: when it started (since the run began), how long it took, how it ended.
struct Call {
    start: Duration,
    latency: Duration,
    outcome: Outcome,
    error: Option<String>,
    /// For `task_confirm`: how often its question came, and whether the replica that filed
    /// was another than the one that asked.
    asked: Option<(usize, bool)>,
}

/// The questions a client's `task_confirm` calls were asked: per task title, the replicas
/// that asked, in order.
type Questions = Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<String>>>>;

/// Reads `File "TITLE"? (asked by REPLICA)`, the question `task_confirm` asks.
fn question(message: &str) -> Option<(String, String)> {
    let (title, rest) = message.strip_prefix("File ")?.split_once("? (asked by ")?;
    let title: String = serde_json::from_str(title).ok()?;
    Some((title, rest.strip_suffix(')')?.to_owned()))
}

/// The arguments of call `id` and the text its result must contain.
fn arguments(tool: &str, id: &str) -> (Value, String) {
    match tool {
        "text_extract_lines" => (json!({"text": id, "start_line": 1}), id.to_owned()),
        "task_confirm" => (json!({ "title": id }), format!("filed {id} on ")),
        "stats_word_count" => {
            // The id and a few more words, how many depending on the id.
            let more = id.bytes().map(usize::from).sum::<usize>() % 10;
            let text = format!("{id}{}", " word".repeat(more));
            (json!({ "text": text }), (more + 1).to_string())
        }
        _ => (
            json!({"task": {"title": id, "assignee": "load"}, "priority": "high"}),
            format!("{id} -> load [High]"),
        ),
    }
}

async fn client(config: Arc<Config>, index: usize, began: Instant) -> Vec<Call> {
    let mut transport = McpTransport::http(config.url.as_str());
    if let Some(token) = &config.token {
        transport = transport.bearer_token(token.as_str());
    }
    let questions = Questions::default();
    let asked = Arc::clone(&questions);
    let connected = McpClient::builder(transport)
        .on_elicit(move |request: ElicitationRequest| {
            if let (Some((title, replica)), Ok(mut asked)) =
                (question(&request.message), asked.lock())
            {
                asked.entry(title).or_default().push(replica);
            }
            async { ElicitationAnswer::Accept(json!({ "confirm": true })) }
        })
        .timeout(Duration::from_secs(60))
        // A starved server may take seconds to open a thousand sessions; every one counts.
        .connect_timeout(Duration::from_secs(60))
        .connect()
        .await;
    let tool = connected.as_ref().ok().and_then(|client| {
        client
            .tools()
            .into_iter()
            .find(|tool| tool.name() == config.tool)
    });
    let Some(tool) = tool else {
        let error = match connected {
            Err(err) => err.to_string(),
            Ok(_) => format!("the server has no tool {}", config.tool),
        };
        let start = began.elapsed();
        return (0..config.calls)
            .map(|_| Call {
                start,
                latency: Duration::ZERO,
                outcome: Outcome::Failed,
                error: Some(error.clone()),
                asked: None,
            })
            .collect();
    };
    let mut calls = Vec::with_capacity(config.calls);
    for call in 0..config.calls {
        let id = format!("c{index}-k{call}");
        let (args, expected) = arguments(&config.tool, &id);
        let start = began.elapsed();
        let result = tool.acall(args).await;
        let latency = began.elapsed() - start;
        // `task_confirm`'s answer names the replica that filed: after `expected`.
        let filed_on = match &result {
            Ok(Value::String(text)) if expected.ends_with(" on ") => {
                text.strip_prefix(expected.as_str()).map(str::to_owned)
            }
            _ => None,
        };
        let (outcome, error) = match result {
            Ok(Value::String(text)) if text.trim_end() == expected => (Outcome::Answered, None),
            Ok(Value::String(_)) if filed_on.is_some() => (Outcome::Answered, None),
            Ok(Value::Number(number)) if number.to_string() == expected => {
                (Outcome::Answered, None)
            }
            Ok(other) => (Outcome::Wrong, Some(other.to_string())),
            Err(err) => (Outcome::Failed, Some(err.to_string())),
        };
        let asked = (config.tool == "task_confirm").then(|| {
            let asked_by = questions
                .lock()
                .map(|asked| asked.get(&id).cloned().unwrap_or_default())
                .unwrap_or_default();
            let elsewhere = match (asked_by.first(), &filed_on) {
                (Some(asker), Some(filer)) => asker != filer,
                _ => false,
            };
            (asked_by.len(), elsewhere)
        });
        calls.push(Call {
            start,
            latency,
            outcome,
            error,
            asked,
        });
        if !config.interval.is_zero() {
            tokio::time::sleep(config.interval).await;
        }
    }
    calls
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at].as_secs_f64() * 1000.0
}

fn report(config: &Config, calls: &[Call], elapsed: Duration) -> std::io::Result<()> {
    let count = |outcome| calls.iter().filter(|call| call.outcome == outcome).count();
    let mut latencies: Vec<Duration> = calls
        .iter()
        .filter(|call| call.outcome == Outcome::Answered)
        .map(|call| call.latency)
        .collect();
    latencies.sort();
    let mut errors: Vec<&str> = calls.iter().filter_map(|c| c.error.as_deref()).collect();
    errors.sort();
    errors.dedup();
    for error in errors.iter().take(5) {
        eprintln!("error: {error}");
    }
    let answered = count(Outcome::Answered);
    println!("clients={}", config.clients);
    println!("sent={}", calls.len());
    println!("answered={answered}");
    println!("wrong={}", count(Outcome::Wrong));
    println!("failed={}", count(Outcome::Failed));
    let asked: Vec<(usize, bool)> = calls.iter().filter_map(|call| call.asked).collect();
    if !asked.is_empty() {
        println!(
            "elicited={}",
            asked.iter().filter(|(times, _)| *times > 0).count()
        );
        println!(
            "elsewhere={}",
            asked.iter().filter(|(_, moved)| *moved).count()
        );
        println!(
            "asked_twice={}",
            asked.iter().filter(|(times, _)| *times > 1).count()
        );
    }
    println!("seconds={:.2}", elapsed.as_secs_f64());
    println!("calls_per_s={:.0}", answered as f64 / elapsed.as_secs_f64());
    println!("p50_ms={:.2}", percentile(&latencies, 0.50));
    println!("p99_ms={:.2}", percentile(&latencies, 0.99));
    if let Some(path) = &config.record {
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        for call in calls {
            let line = json!({
                "start_ms": call.start.as_secs_f64() * 1000.0,
                "latency_ms": call.latency.as_secs_f64() * 1000.0,
                "outcome": format!("{:?}", call.outcome).to_lowercase(),
                "error": call.error,
            });
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// Threads that spin on the CPU until the returned flag is set.
fn cpu_hog(threads: usize) -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    for _ in 0..threads {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut spins = 0u64;
            while !stop.load(Ordering::Relaxed) {
                spins = std::hint::black_box(spins.wrapping_add(1));
            }
        });
    }
    stop
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config = Arc::new(config()?);
    let hog = cpu_hog(config.hog);
    let began = Instant::now();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..config.clients {
        let (config, calls) = (Arc::clone(&config), Arc::clone(&calls));
        tasks.spawn(async move {
            let done = client(config, index, began).await;
            calls.lock().await.extend(done);
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined?;
    }
    let elapsed = began.elapsed();
    hog.store(true, Ordering::Relaxed);
    let calls = calls.lock().await;
    report(&config, &calls, elapsed)?;
    Ok(())
}
