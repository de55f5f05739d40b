//! Round-trip latency of one MCP tool call over stdio: `examples/mcp_server.rs` against the same
//! tool served by the official Python SDK (`tests/mcp/python_quickstart_server.py`), measured in
//! one run with the same client (rmcp's), so the ratio compares the servers.
//!
//! `cargo bench -p toolset --bench mcp_stdio` (sets up the Python venv on first use).

// The integration tests' helpers, whose `pub` items serve many test crates.
#[allow(unreachable_pub)]
#[path = "../../tests/common/mod.rs"]
mod common;

use common::mcp as support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use toolkit::mcp::rmcp;

fn connect(
    runtime: &tokio::runtime::Runtime,
    program: &str,
    args: &[&str],
) -> RunningService<rmcp::RoleClient, ()> {
    runtime.block_on(async {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        let (child, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the server");
        ().serve(child).await.expect("initialize")
    })
}

fn round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let ours = connect(&runtime, &support::example_server_release(), &["--stdio"]);
    let script = support::script("python_quickstart_server.py");
    let python = connect(&runtime, &support::python(), &[&script]);
    let arguments = json!({"text": "the quick brown fox jumps over the lazy dog"});
    let params = CallToolRequestParams::new("stats_word_count")
        .with_arguments(arguments.as_object().cloned().unwrap_or_default());

    let mut group = c.benchmark_group("mcp_stdio_round_trip");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    for (name, client) in [("toolkit", &ours), ("python_sdk", &python)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let result = runtime
                    .block_on(client.call_tool(params.clone()))
                    .expect("the call succeeds");
                black_box(result)
            })
        });
    }
    group.finish();
    runtime.block_on(async {
        let _ = ours.cancel().await;
        let _ = python.cancel().await;
    });
}

criterion_group!(benches, round_trip);
criterion_main!(benches);
