//! Short runs of the load harness (`examples/mcp_load.rs`) against the example server on
//! loopback: every call answered once, with its own result, also when the server is starved of
//! CPU. `scripts/load` runs the full size (`--cpu-hog` for the starved one).

mod common;

use std::collections::HashMap;
use std::process::Command;

use common::examples::build_example;
use common::mcp::example_http_server;

#[test]
fn fifty_clients_each_get_their_own_answers_and_none_is_lost() {
    let counts = run_harness(&["--clients", "50", "--calls-per-client", "5"]);
    assert_eq!(counts, expected(250), "{counts:?}");
}

/// A sync tool runs on the server's blocking pool, at most 32 calls of it at once: the others
/// wait for a place, however slowly places free up on a machine whose CPU is taken.
#[test]
fn a_server_starved_of_cpu_answers_every_call_of_a_sync_tool() {
    let counts = run_harness(&[
        "--clients",
        "100",
        "--calls-per-client",
        "5",
        "--tool",
        "stats_word_count",
        "--cpu-hog",
        "3",
    ]);
    assert_eq!(counts, expected(500), "{counts:?}");
}

/// What a run with every call answered reports.
fn expected(calls: usize) -> Vec<(String, String)> {
    [
        ("sent", calls),
        ("answered", calls),
        ("wrong", 0),
        ("failed", 0),
    ]
    .into_iter()
    .map(|(key, n)| (key.to_owned(), n.to_string()))
    .collect()
}

/// Runs the harness against a fresh example server; its sent, answered, wrong and failed counts.
fn run_harness(args: &[&str]) -> Vec<(String, String)> {
    let (_server, url) = example_http_server(Some("load-smoke-token"));
    let harness = build_example("mcp_load", false);
    let output = Command::new(harness)
        .args(["--url", &url])
        .args(args)
        .args(["--token-env", "LOAD_SMOKE_TOKEN"])
        .env("LOAD_SMOKE_TOKEN", "load-smoke-token")
        .output()
        .expect("run the load harness");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "harness failed: {stdout}\n{stderr}"
    );
    let figures: HashMap<&str, &str> = stdout
        .lines()
        .filter_map(|line| line.split_once('='))
        .collect();
    if figures.get("failed") != Some(&"0") {
        // The errors the harness saw, for the failure message.
        eprintln!("{stderr}");
    }
    ["sent", "answered", "wrong", "failed"]
        .into_iter()
        .map(|key| {
            let value = figures.get(key).copied().unwrap_or("missing");
            (key.to_owned(), value.to_owned())
        })
        .collect()
}
