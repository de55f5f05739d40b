//! A client for the MCP conformance suite's client scenarios (`@modelcontextprotocol/conformance`
//! 0.1.16 and 0.2), built on [`McpClient`] and following the suite's reference client
//! (`examples/clients/typescript/everything-client.ts`): the server URL is the last argument,
//! the scenario is in `MCP_CONFORMANCE_SCENARIO`, extra context (JSON) in
//! `MCP_CONFORMANCE_CONTEXT`. `scripts/conformance --client` builds it and runs the suite
//! with it.
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=initialize cargo run --example conformance_client -- http://127.0.0.1:3001/mcp
//! ```
//!
//! - `initialize`, `tools_call`: connect, list the tools, call the first with `{"a": 2, "b": 3}`;
//! - `elicitation-sep1034-client-defaults`: accept the server's elicitation with an empty
//!   answer, which the client fills with the schema's defaults;
//! - `sse-retry`: call `test_reconnection`, whose answer stream the server cuts: the client
//!   waits the stream's `retry` and resumes it with `Last-Event-ID`;
//! - `auth/*`: the OAuth flows (`auth.rs`);
//! - the scenarios of MCP 2026-07-28 (`era2026.rs`).

mod auth;
mod era2026;

use std::process::ExitCode;

use toolkit::context::{ElicitationAnswer, ElicitationRequest};
use toolkit::mcp::{McpClient, McpClientBuilder, McpTransport};
use toolkit::prelude::*;

type Failure = Box<dyn std::error::Error>;

#[tokio::main]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client SERVER_URL (scenario in MCP_CONFORMANCE_SCENARIO)");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(context) => Some(context),
            Err(err) => {
                eprintln!("MCP_CONFORMANCE_CONTEXT is not JSON: {err}");
                return ExitCode::from(2);
            }
        },
        Err(_) => None,
    };
    let outcome = match scenario.as_str() {
        auth if auth.starts_with("auth/") => auth::run(&url, auth, context).await,
        "initialize" | "tools_call" | "tools-call" => call_first_tool(&url).await,
        "elicitation-sep1034-client-defaults" => elicitation_defaults(&url).await,
        "sse-retry" => call_named(&url, "test_reconnection").await,
        "request-metadata" | "json-schema-ref-no-deref" => era2026::list_tools(&url).await,
        // Skills (SEP-2640, an extension): this client never fetches them, ahead of need or
        // otherwise; it connects and lists its tools.
        skills if skills.starts_with("sep-2640-") => era2026::list_tools(&url).await,
        "http-standard-headers" => era2026::every_request(&url).await,
        "sep-2322-client-request-state" => era2026::input_required(&url).await,
        "http-custom-headers" => era2026::context_calls(&url, context).await,
        "http-invalid-tool-headers" => era2026::call_listed(&url).await,
        "json-schema-2020-12-preservation" => era2026::echo_schema(&url).await,
        other => Err(format!("unknown scenario {other:?}").into()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{scenario}: {err}");
            ExitCode::FAILURE
        }
    }
}

fn client(url: &str) -> McpClientBuilder {
    McpClient::builder(McpTransport::http(url))
}

/// Connects, lists the tools and calls the first one, as the reference client does.
async fn call_first_tool(url: &str) -> Result<(), Failure> {
    let server = client(url).connect().await?;
    if let Some(tool) = server.tools().first() {
        tool.acall(json!({"a": 2, "b": 3})).await?;
    }
    Ok(())
}

/// Connects and calls the tool `name` with no arguments.
async fn call_named(url: &str, name: &str) -> Result<(), Failure> {
    let server = client(url).connect().await?;
    let tool = find(&server, name)?;
    tool.acall(json!({})).await?;
    Ok(())
}

/// Accepts the server's question with an empty answer: the client applies the defaults.
async fn elicitation_defaults(url: &str) -> Result<(), Failure> {
    let server = client(url)
        .on_elicit(|_: ElicitationRequest| async { ElicitationAnswer::Accept(json!({})) })
        .connect()
        .await?;
    let tool = find(&server, "test_client_elicitation_defaults")?;
    tool.acall(json!({})).await?;
    Ok(())
}

fn find(server: &McpClient, name: &str) -> Result<ToolProxy, Failure> {
    server
        .tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .ok_or_else(|| format!("the server lists no tool {name}").into())
}
