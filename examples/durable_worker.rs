//! A worker serving a durable agent: the agent of `tests/common/durable_agent.rs` (three
//! errands that record each execution as a line of a file, one that needs approval) as the
//! Restate workflow `Agent`, on a loopback port the Restate server calls.
//!
//! `scripts/durable` starts two of these behind one deployment, kills one with SIGKILL mid-run
//! and counts what the runs did; with a Restate server of your own:
//!
//! ```text
//! cargo run --example durable_worker -- --port 9080 --name w1 \
//!     --model http://127.0.0.1:PORT/v1 --effects /tmp/effects.log
//! ```
//!
//! With `--model` unset it starts the scripted model itself and prints its URL. Two more modes
//! serve scripts/durable: `--model-only LOG` runs the scripted model alone (each request's run
//! and step appended to `LOG`, each reply after `--model-delay-ms`, 20 by default), and `--plain N` makes N runs in process, one after another,
//! and prints their mean time: the baseline a durable run's cost is measured against.

#[path = "../tests/common/durable_agent.rs"]
mod durable_agent;
#[path = "../tests/common/model_server.rs"]
mod model_server;

use std::path::PathBuf;
use std::time::Duration;

use toolkit::durable::DurableAgent;

/// The worker's settings, from `--flag value` pairs.
struct Settings {
    port: u16,
    name: String,
    model: Option<String>,
    effects: PathBuf,
    book_time: Duration,
    model_only: Option<PathBuf>,
    model_delay: Duration,
    plain: Option<usize>,
}

fn settings() -> Result<Settings, String> {
    let mut settings = Settings {
        port: 9080,
        name: "w1".into(),
        model: None,
        effects: std::env::temp_dir().join("durable-effects.log"),
        book_time: Duration::from_millis(20),
        model_only: None,
        model_delay: Duration::from_millis(20),
        plain: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--port" => settings.port = value.parse().map_err(|e| format!("--port: {e}"))?,
            "--name" => settings.name = value,
            "--model" => settings.model = Some(value),
            "--effects" => settings.effects = value.into(),
            "--book-ms" => {
                let millis = value.parse().map_err(|e| format!("--book-ms: {e}"))?;
                settings.book_time = Duration::from_millis(millis);
            }
            "--model-only" => settings.model_only = Some(value.into()),
            "--model-delay-ms" => {
                let millis = value
                    .parse()
                    .map_err(|e| format!("--model-delay-ms: {e}"))?;
                settings.model_delay = Duration::from_millis(millis);
            }
            "--plain" => settings.plain = Some(value.parse().map_err(|e| format!("--plain: {e}"))?),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(settings)
}

/// The scripted model alone, each reply after `delay`, each request's run and step appended to
/// `log`, until killed.
async fn model_only(log: PathBuf, delay: Duration) -> Result<(), Box<dyn std::error::Error>> {
    let server = model_server::ModelServer::answering(move |body| {
        let (run, step) = durable_agent::run_and_step(body);
        let line = format!("{run} {step}\n");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log);
        if let Ok(mut file) = file {
            let _ = std::io::Write::write_all(&mut file, line.as_bytes());
        }
        durable_agent::reply(body, delay)
    })
    .await;
    println!("scripted model at {}", server.base_url());
    std::future::pending::<()>().await;
    Ok(())
}

/// `runs` runs of the agent in process, one after another: their mean time in milliseconds.
async fn plain(
    agent: toolkit::agent::Agent,
    runs: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let started = std::time::Instant::now();
    for n in 0..runs {
        let run = agent.run(format!("plain-{n}")).await?;
        assert_eq!(run.answer, format!("done plain-{n}"));
    }
    let mean = started.elapsed().as_secs_f64() * 1000.0 / runs.max(1) as f64;
    println!("plain run mean ms: {mean:.3}");
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let settings = settings()?;
    if let Some(log) = settings.model_only {
        return model_only(log, settings.model_delay).await;
    }
    let (_model, url) = match settings.model {
        Some(url) => (None, url),
        None => {
            let server = model_server::ModelServer::answering(|body| {
                durable_agent::reply(body, Duration::from_millis(20))
            })
            .await;
            let url = server.base_url();
            println!("scripted model at {url}");
            (Some(server), url)
        }
    };
    let agent = durable_agent::agent(&url, &settings.effects, &settings.name, settings.book_time);
    if let Some(runs) = settings.plain {
        return plain(agent, runs).await;
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", settings.port)).await?;
    println!(
        "worker {} listening on {}",
        settings.name,
        listener.local_addr()?
    );
    DurableAgent::new(agent).serve(listener).await?;
    Ok(())
}
