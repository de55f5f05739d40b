//! MCP tasks (2025-11-25), titles and protocol versions: toolkit's client against the
//! reference server `@modelcontextprotocol/server-everything`, and against toolkit's own
//! server.

mod common;

use std::time::{Duration, Instant};

use serde_json::json;
use toolkit::context::{ElicitationAnswer, ElicitationRequest, Role, SamplingReply};
use toolkit::mcp::{McpClient, McpTransport};
use toolkit::prelude::*;

use common::mcp::everything_server;

/// With sampling and elicitation handlers (and roots, declared by default), the client sees
/// every tool the reference server offers a client without tasks of its own, and calls its
/// task-augmented `simulate-research-query` (execution.taskSupport `required`): the call
/// becomes a task the client waits for (the server takes four one-second stages).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_servers_task_tool_is_called_as_a_task() {
    let Some(program) = everything_server() else {
        eprintln!(
            "skipped: node and npm are needed to run @modelcontextprotocol/server-everything"
        );
        return;
    };
    let client = McpClient::builder(
        McpTransport::stdio(program.to_string_lossy())
            .arg("stdio")
            .inherit_stderr(false),
    )
    .on_sampling(|_| async {
        Ok(SamplingReply {
            role: Role::Assistant,
            content: Content::text("sampled"),
            model: "test".into(),
            stop_reason: None,
        })
    })
    .on_elicit(|_: ElicitationRequest| async { ElicitationAnswer::Decline })
    .connect()
    .await
    .expect("connect");
    // The server registers the tools a client's capabilities allow once it is initialized,
    // and says so with `tools/list_changed`.
    let deadline = Instant::now() + Duration::from_secs(5);
    while client.tools().len() < 16 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut names = client.tool_names();
    names.sort();
    assert_eq!(names.len(), 16, "{names:?}");
    for name in ["get-roots-list", "trigger-sampling-request", "trigger-elicitation-request"] {
        assert!(names.iter().any(|listed| listed == name), "{name}: {names:?}");
    }

    let research = client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == "simulate-research-query")
        .expect("listed");
    let began = Instant::now();
    let report = research
        .acall(json!({"topic": "tasks"}))
        .await
        .expect("the task's result");
    let report = report.as_str().unwrap_or_default().to_owned();
    assert!(report.contains("# Research Report: tasks"), "{report}");
    eprintln!("simulate-research-query: {:?}", began.elapsed());
}
