//! Progress notifications from a served tool to one MCP client over Streamable HTTP, both in
//! this process on loopback (rmcp's client): how many a second reach the client, and what a
//! call that reports progress costs against the same call that reports none.
//!
//! - `mcp_progress/notifications/1000`: one call reporting 1,000 progress notifications, each
//!   sent (in order, all before the result) on the call's SSE stream; criterion's throughput is
//!   notifications per second (target: at least 10,000/s);
//! - `mcp_progress/call/0` and `/10`: the same tool reporting none, and ten (target: the call
//!   with progress at most 2x the one without).
//!
//! `cargo bench -p toolset --bench mcp_progress`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::json;
use toolkit::mcp::{HttpOptions, McpServer, rmcp};
use toolkit::prelude::*;

fn steps_tool() -> ToolProxy {
    ToolBuilder::new("steps")
        .description("Reports progress `count` times")
        .parameters(json!({"type": "object", "properties": {"count": {"type": "integer"}}}))
        .build_async_with_context(|args, ctx| async move {
            let count = args
                .get("count")
                .and_then(|count| count.as_u64())
                .unwrap_or(0);
            for done in 1..=count {
                ctx.progress(done as f64, Some(count as f64), "");
            }
            Ok::<_, String>(count)
        })
        .expect("a valid tool")
}

fn progress(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let (server, client) = runtime.block_on(async {
        let server = McpServer::new(vec![steps_tool()])
            .spawn_http("127.0.0.1:0", HttpOptions::default())
            .await
            .expect("serve");
        let transport = StreamableHttpClientTransport::from_uri(server.url());
        let client = ().serve(transport).await.expect("initialize");
        (server, client)
    });
    let call = |count: u64| {
        CallToolRequestParams::new("steps").with_arguments(
            json!({"count": count})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        )
    };

    let mut group = c.benchmark_group("mcp_progress");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(1000));
    group.bench_function("notifications/1000", |b| {
        b.iter(|| {
            black_box(
                runtime
                    .block_on(client.call_tool(call(1000)))
                    .expect("the call"),
            )
        })
    });
    group.throughput(Throughput::Elements(1));
    for count in [0, 10] {
        group.bench_function(format!("call/{count}"), |b| {
            b.iter(|| {
                black_box(
                    runtime
                        .block_on(client.call_tool(call(count)))
                        .expect("the call"),
                )
            })
        });
    }
    group.finish();
    runtime.block_on(async {
        let _ = client.cancel().await;
        let _ = server.shutdown().await;
    });
}

criterion_group!(benches, progress);
criterion_main!(benches);
