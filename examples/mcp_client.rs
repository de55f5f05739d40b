//! A small MCP inspector: connect to any MCP server, list its tools with their schemas, and call
//! one with JSON arguments.
//!
//! ```text
//! cargo run --example mcp_client -- [--call TOOL JSON] TARGET [ARGS...]
//! cargo run --example mcp_client -- target/debug/examples/mcp_server --stdio
//! cargo run --example mcp_client -- --call stats_word_count '{"text": "a b"}' http://127.0.0.1:8000/mcp
//! ```
//!
//! TARGET is an `http://` or `https://` URL (Streamable HTTP; a bearer token comes from the
//! `MCP_BEARER_TOKEN` environment variable, or `--token`), or else a command started as a child
//! process speaking MCP over stdio, with the ARGS that follow it. Without `--call` it prints
//! every tool as `name: description` and its parameter schema; with it, only the call's result.
//! A tool error is printed as the model would read it (`Error: ...`) and exits with status 1.

use std::process::ExitCode;

use toolkit::mcp::{McpClient, McpTransport};
use toolkit::prelude::*;

/// What the command line asked for.
struct Request {
    token: Option<String>,
    call: Option<(String, Value)>,
    target: String,
    args: Vec<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Request, String> {
    let mut token = std::env::var("MCP_BEARER_TOKEN").ok();
    let mut call = None;
    loop {
        let Some(arg) = args.next() else {
            return Err("no server given".into());
        };
        match arg.as_str() {
            "--token" => token = Some(args.next().ok_or("--token needs a value")?),
            "--call" => {
                let name = args.next().ok_or("--call needs a tool name")?;
                let json = args.next().ok_or("--call needs JSON arguments")?;
                let value = serde_json::from_str(&json)
                    .map_err(|err| format!("the arguments are not JSON: {err}"))?;
                call = Some((name, value));
            }
            _ => {
                return Ok(Request {
                    token,
                    call,
                    target: arg,
                    args: args.collect(),
                });
            }
        }
    }
}

fn transport(request: &Request) -> McpTransport {
    if request.target.starts_with("http://") || request.target.starts_with("https://") {
        let transport = McpTransport::http(request.target.clone());
        match &request.token {
            Some(token) => transport.bearer_token(token.clone()),
            None => transport,
        }
    } else {
        McpTransport::stdio(request.target.clone()).args(request.args.clone())
    }
}

fn list(tools: &[ToolProxy]) -> Result<(), String> {
    for tool in tools {
        println!("{}: {}", tool.name(), tool.description());
        let schema = serde_json::to_string_pretty(tool.parameters()).map_err(|e| e.to_string())?;
        println!("{schema}\n");
    }
    Ok(())
}

async fn run(request: Request) -> Result<ExitCode, String> {
    let client = McpClient::connect(transport(&request))
        .await
        .map_err(|err| err.to_string())?;
    let tools = client.tools();
    let Some((name, args)) = request.call else {
        list(&tools)?;
        return Ok(ExitCode::SUCCESS);
    };
    let Some(tool) = tools.iter().find(|tool| tool.name() == name) else {
        let names: Vec<_> = tools.iter().map(|tool| tool.name()).collect();
        return Err(format!(
            "no tool named {name}; the server has: {}",
            names.join(", ")
        ));
    };
    match tool.acall(args).await {
        Ok(Value::String(text)) => println!("{text}"),
        Ok(value) => println!("{value}"),
        Err(err) => {
            println!("{}", err.to_model_string());
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[tokio::main]
async fn main() -> ExitCode {
    let request = match parse_args(std::env::args().skip(1)) {
        Ok(request) => request,
        Err(message) => {
            eprintln!("mcp_client: {message}");
            eprintln!("usage: mcp_client [--token TOKEN] [--call TOOL JSON] TARGET [ARGS...]");
            return ExitCode::from(2);
        }
    };
    match run(request).await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("mcp_client: {message}");
            ExitCode::from(2)
        }
    }
}
