//! A short run of the load harness (`examples/mcp_load.rs`) against the example server on
//! loopback: every call answered once, with its own result. `scripts/load` runs the full size.

mod common;

use std::collections::HashMap;
use std::process::Command;

use common::examples::build_example;
use common::mcp::example_http_server;

#[test]
fn fifty_clients_each_get_their_own_answers_and_none_is_lost() {
    let (_server, url) = example_http_server(Some("load-smoke-token"));
    let harness = build_example("mcp_load", false);
    let output = Command::new(harness)
        .args(["--url", &url, "--clients", "50", "--calls-per-client", "5"])
        .args(["--token-env", "LOAD_SMOKE_TOKEN"])
        .env("LOAD_SMOKE_TOKEN", "load-smoke-token")
        .output()
        .expect("run the load harness");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "harness failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let figures: HashMap<&str, &str> = stdout
        .lines()
        .filter_map(|line| line.split_once('='))
        .collect();
    let counts: Vec<(&str, &str)> = ["sent", "answered", "wrong", "failed"]
        .into_iter()
        .map(|key| (key, figures.get(key).copied().unwrap_or("missing")))
        .collect();
    assert_eq!(
        counts,
        [
            ("sent", "250"),
            ("answered", "250"),
            ("wrong", "0"),
            ("failed", "0")
        ],
        "{stdout}"
    );
}
