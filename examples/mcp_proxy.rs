//! An MCP proxy: serves all of a remote MCP server (its tools, resources, resource templates,
//! prompts and completions) through [`McpServer::proxy`], over stdio or Streamable HTTP.
//!
//! ```text
//! cargo run --example mcp_proxy -- [--http ADDR] TARGET [ARGS...]
//! cargo run --example mcp_proxy -- target/debug/examples/mcp_server --stdio
//! cargo run --example mcp_proxy -- --http 127.0.0.1:8001 http://127.0.0.1:8000/mcp
//! ```
//!
//! TARGET is an `http://` or `https://` URL (a bearer token comes from `MCP_BEARER_TOKEN`), or
//! else a command started as a child process speaking MCP over stdio, with the ARGS that follow
//! it. Without `--http` the proxy serves over its own stdin and stdout. It ends when its client
//! leaves (stdio) or on `SIGINT` / `SIGTERM`, and a TARGET it started ends with it.

use toolkit::mcp::{HttpOptions, McpClient, McpServer, McpTransport, shutdown_signal};

const USAGE: &str = "usage: mcp_proxy [--http ADDR] TARGET [ARGS...]";

/// Where the proxy serves, and what.
struct Request {
    http: Option<String>,
    target: String,
    args: Vec<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Request, String> {
    let mut http = None;
    loop {
        match args.next().ok_or("no server given")?.as_str() {
            "--http" => http = Some(args.next().ok_or("--http needs an address")?),
            target => {
                return Ok(Request {
                    http,
                    target: target.to_owned(),
                    args: args.collect(),
                });
            }
        }
    }
}

fn transport(request: &Request) -> McpTransport {
    if request.target.starts_with("http://") || request.target.starts_with("https://") {
        let transport = McpTransport::http(request.target.clone());
        match std::env::var("MCP_BEARER_TOKEN") {
            Ok(token) => transport.bearer_token(token),
            Err(_) => transport,
        }
    } else {
        McpTransport::stdio(request.target.clone()).args(request.args.clone())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let request = parse_args(std::env::args().skip(1)).map_err(|err| format!("{err}\n{USAGE}"))?;
    let remote = McpClient::connect(transport(&request)).await?;
    let proxy = McpServer::proxy(&remote).await?;
    match &request.http {
        None => proxy.serve_stdio().await?,
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
            // Listening for the signals before saying so: one sent as soon as the line is read
            // ends the server, not the process.
            let shutdown = shutdown_signal();
            // The resolved address, for a caller that asked for port 0.
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            proxy
                .serve_http(listener, HttpOptions::default(), shutdown)
                .await?;
        }
    }
    // Ending `main` drops the client, which kills a stdio TARGET and what it started.
    Ok(())
}
