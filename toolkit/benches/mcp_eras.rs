//! One MCP tool call over Streamable HTTP in each protocol era, against one toolkit server:
//! a 2025-11-25 client (`initialize`, then a session) and a 2026-07-28 client
//! (`server/discover`, then stateless requests that carry their version and capabilities in
//! `_meta`), both rmcp's client, timed in alternating batches (`support/paired.rs`) so the
//! ratio holds on a shared machine.
//!
//! `cargo bench -p toolset --features mcp --bench mcp_eras`

#[path = "support/paired.rs"]
mod paired;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use toolkit::mcp::{HttpOptions, McpServer, rmcp};
use toolkit::prelude::*;

#[derive(Default)]
struct Stats;

#[toolset(name = "stats")]
impl Stats {
    /// Count whitespace-separated words
    #[tool]
    fn word_count(&self, text: String) -> usize {
        text.split_whitespace().count()
    }
}

fn connect(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    lifecycle: ClientLifecycleMode,
) -> RunningService<rmcp::RoleClient, ()> {
    runtime.block_on(async {
        let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
        ().serve_with_lifecycle(transport, lifecycle)
            .await
            .expect("the client connects")
    })
}

fn eras(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime
        .block_on(
            McpServer::new(Stats::to_tools()).spawn_http("127.0.0.1:0", HttpOptions::default()),
        )
        .expect("serve");
    let url = server.url();
    let old = connect(&runtime, &url, ClientLifecycleMode::Initialize);
    let new = connect(
        &runtime,
        &url,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    );
    for (client, version) in [
        (&old, ProtocolVersion::V_2025_11_25),
        (&new, ProtocolVersion::V_2026_07_28),
    ] {
        let info = client.peer_info().expect("the server introduced itself");
        assert_eq!(info.protocol_version, version, "the era the client speaks");
    }
    let arguments = json!({"text": "the quick brown fox jumps over the lazy dog"});
    let params = CallToolRequestParams::new("stats_word_count")
        .with_arguments(arguments.as_object().cloned().unwrap_or_default());
    let call = |client: &RunningService<rmcp::RoleClient, ()>| {
        let result = runtime
            .block_on(client.call_tool(params.clone()))
            .expect("the call succeeds");
        black_box(result)
    };

    // A call takes about a millisecond: batches of 20 calls keep one round's two batches close
    // in time while the clock's share stays small.
    let batch = |client| {
        let started = Instant::now();
        for _ in 0..20 {
            call(client);
        }
        started.elapsed()
    };
    let ratio = paired::paired_runs(|| batch(&old), || batch(&new));
    println!("a 2026-07-28 call / a 2025-11-25 call, one server: {ratio}");
    let mut group = c.benchmark_group("mcp_eras");
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("2025-11-25", |b| b.iter(|| call(&old)));
    group.bench_function("2026-07-28", |b| b.iter(|| call(&new)));
    group.finish();
    runtime.block_on(async {
        let _ = old.cancel().await;
        let _ = new.cancel().await;
        let _ = server.shutdown().await;
    });
}

criterion_group!(benches, eras);
criterion_main!(benches);
