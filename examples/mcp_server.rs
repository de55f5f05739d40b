//! The quickstart toolsets served over MCP, to any MCP client (Claude Desktop, an IDE, the
//! Python SDK's client).
//!
//! ```text
//! cargo run --example mcp_server -- --stdio
//! cargo run --example mcp_server -- --http 127.0.0.1:8000 [--token-file PATH] [--stateless]
//!     [--max-sessions N] [--max-sessions-per-client N] [--session-idle-ms MS]
//!     [--read-timeout-ms MS] [--write-timeout-ms MS] [--max-connections N] [--call-log PATH]
//!     [--only NAME,NAME...] [--replica NAME] [--jwt-issuer URL --resource URL [--jwks-url URL]]
//! MCP_BEARER_TOKEN=... cargo run --example mcp_server -- --http 127.0.0.1:8000
//! cargo run --example mcp_server -- --http 127.0.0.1:8000 \
//!     --jwt-issuer https://auth.example.com --resource http://127.0.0.1:8000/mcp
//! ```
//!
//! Over HTTP the endpoint is `http://ADDR/mcp`. With a token (from the `MCP_BEARER_TOKEN`
//! environment variable or the first line of `--token-file`), requests without
//! `Authorization: Bearer TOKEN` get 401. `--token SECRET` works too, but a command line is
//! visible to every local user (`ps`): prefer the variable or the file. `--stateless` keeps no
//! session on the server, for replicas behind a load balancer. `--read-timeout-ms` bounds how
//! long a client may take to send a request (default 30 s), `--write-timeout-ms` how long the
//! server waits for one to take its answer (default 30 s); `--call-log PATH` appends a line
//! per tool call run; `--only` serves just the tools named (`scripts/peers` serves
//! `task_assign` alone, as the servers it is compared with do); `--replica NAME` is the name
//! `task_confirm` gives its server in its question and its answer; replicas share the key that
//! seals `task_confirm`'s question for a 2026-07-28 client (`MCP_REQUEST_STATE_KEY`, 32 bytes or
//! more), so its answer may reach any of them. Ctrl-C shuts the server down
//! gracefully.
//!
//! `--jwt-issuer` protects the server with OAuth instead of a fixed token: every request needs a
//! JWT access token that the issuer signed (its keys from `<issuer>/.well-known/jwks.json`, or
//! `--jwks-url`) for `--resource`, the server's canonical URL; the server publishes its
//! protected resource metadata at `/.well-known/oauth-protected-resource/mcp`, which MCP
//! clients read to find the issuer (docs/mcp.md, "Protecting a server with OAuth").

use serde::{Deserialize, Serialize};
use toolkit::mcp::{HttpOptions, JwtVerifier, McpServer, ProtectedResource, RequestStateOptions};
use toolkit::prelude::*;
use toolkit::schemars::JsonSchema;

#[derive(Default)]
struct TextStatsToolset;

#[toolset(name = "stats")]
impl TextStatsToolset {
    /// Count whitespace-separated words
    #[tool]
    fn word_count(&self, text: String) -> usize {
        text.split_whitespace().count()
    }

    #[tool(description = "Count lines")]
    fn line_count(&self, text: String) -> usize {
        text.lines().count()
    }
}

/// How urgent a task is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

/// A task to file.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Task {
    /// A short title
    title: String,
    /// Who does it
    assignee: String,
}

/// The user's answer to `task_confirm`.
#[derive(Debug, Deserialize, JsonSchema)]
struct Confirmation {
    /// File the task?
    confirm: bool,
}

/// The name this server gives itself (`--replica NAME`): `task_confirm` says which replica
/// asked and which one filed, so `scripts/scale-out` can count questions answered on another
/// replica than the one that asked.
#[derive(Default)]
struct TaskToolset {
    replica: String,
}

#[toolset(name = "task")]
impl TaskToolset {
    /// File a task with a priority.
    ///
    /// # Arguments
    /// * `task` - the task to file
    /// * `priority` - how urgent it is
    /// * `note` - an optional note for the assignee
    // It returns in microseconds: the server runs it on its async workers.
    #[tool(inline)]
    fn assign(
        &self,
        task: Task,
        priority: Priority,
        note: Option<String>,
    ) -> Result<String, String> {
        if task.title.trim().is_empty() {
            return Err("the task title is empty".into());
        }
        let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
        Ok(format!(
            "{} -> {} [{priority:?}]{note}",
            task.title, task.assignee
        ))
    }

    /// File a task once the user confirms it.
    ///
    /// # Arguments
    /// * `title` - the task's title
    // Asking is the tool's first step, so a retried call repeats nothing: over MCP 2026-07-28
    // the question travels as an `input_required` result and the call may finish on another
    // replica than the one that asked.
    #[tool]
    async fn confirm(&self, ctx: &ToolContext, title: String) -> Result<String, String> {
        let asked = format!("File {title:?}? (asked by {})", self.replica);
        match ctx.elicit::<Confirmation>(asked).await {
            Ok(Elicited::Accepted(Confirmation { confirm: true })) => {
                Ok(format!("filed {title} on {}", self.replica))
            }
            Ok(_) => Ok(format!("{title} not filed")),
            Err(err) => Err(err.to_string()),
        }
    }
}

fn tools(replica: String) -> Vec<ToolProxy> {
    let mut tools = TextStatsToolset::to_tools();
    tools.extend(std::sync::Arc::new(TaskToolset { replica }).into_tools());
    tools.extend(toolkit::builtin::TextProcessingToolset::to_tools());
    tools
}

const USAGE: &str = "usage: mcp_server --stdio | --http ADDR [--token-file PATH | --token SECRET] \
                     [--stateless] [--max-sessions N] [--max-sessions-per-client N] [--session-idle-ms MS] \
                     [--read-timeout-ms MS] [--write-timeout-ms MS] [--max-connections N] [--call-log PATH] \
                     [--only NAME,NAME...] [--replica NAME] [--jwt-issuer URL --resource URL [--jwks-url URL]] \
                     (or the token in MCP_BEARER_TOKEN)";

/// The bearer token: `--token-file` (its first line), `--token`, or `MCP_BEARER_TOKEN`.
fn bearer_token(args: &[String]) -> Result<Option<String>, Box<dyn std::error::Error>> {
    if let Some(path) = flag::<String>(args, "--token-file")? {
        let text = std::fs::read_to_string(&path)
            .map_err(|err| format!("could not read the token file {path}: {err}"))?;
        return Ok(text.lines().next().map(|line| line.trim().to_owned()));
    }
    if let Some(token) = flag(args, "--token")? {
        return Ok(Some(token));
    }
    Ok(std::env::var("MCP_BEARER_TOKEN")
        .ok()
        .filter(|token| !token.is_empty()))
}

/// The value after `flag`, parsed; `None` when the flag is absent.
fn flag<T: std::str::FromStr>(args: &[String], flag: &str) -> Result<Option<T>, &'static str> {
    args.iter()
        .position(|arg| arg == flag)
        .map(|at| args.get(at + 1).and_then(|n| n.parse().ok()).ok_or(USAGE))
        .transpose()
}

fn http_options(args: &[String]) -> Result<HttpOptions, Box<dyn std::error::Error>> {
    let ms = std::time::Duration::from_millis;
    let mut options = HttpOptions::default();
    if let Some(token) = bearer_token(args)? {
        options = options.bearer_token(token);
    }
    if let Some(issuer) = flag::<String>(args, "--jwt-issuer")? {
        let resource: String = flag(args, "--resource")?
            .ok_or("--jwt-issuer needs --resource URL: the server's URL, the tokens' audience")?;
        // Tokens the issuer signed for this server: `aud` must be its URL (RFC 8707).
        let mut verifier = JwtVerifier::new(issuer, &resource);
        if let Some(url) = flag::<String>(args, "--jwks-url")? {
            verifier = verifier.jwks_url(url);
        }
        options = options
            .token_verifier(verifier)
            .protected_resource(ProtectedResource::new(resource));
    }
    if let Some(max) = flag(args, "--max-sessions")? {
        options = options.max_sessions(max);
    }
    if let Some(idle) = flag(args, "--session-idle-ms")? {
        options = options.session_idle_timeout(ms(idle));
    }
    if let Some(read) = flag(args, "--read-timeout-ms")? {
        options = options.read_timeout(ms(read));
    }
    if let Some(write) = flag(args, "--write-timeout-ms")? {
        options = options.write_timeout(ms(write));
    }
    if let Some(max) = flag(args, "--max-connections")? {
        options = options.max_connections(max);
    }
    if let Some(max) = flag(args, "--max-sessions-per-client")? {
        options = options.max_sessions_per_client(max);
    }
    Ok(options.stateless(args.iter().any(|arg| arg == "--stateless")))
}

/// The server, with `--call-log PATH`: a line `<tool> <arguments>` appended to PATH before
/// each call runs (an audit trail; the restart test counts runs with it). A call that cannot
/// be logged is refused.
fn server(args: &[String]) -> Result<McpServer, Box<dyn std::error::Error>> {
    let replica = flag::<String>(args, "--replica")?.unwrap_or_else(|| "this server".into());
    let mut tools = tools(replica);
    if let Some(names) = flag::<String>(args, "--only")? {
        let names: Vec<&str> = names.split(',').map(str::trim).collect();
        tools.retain(|tool| names.contains(&tool.name()));
        if tools.len() != names.len() {
            return Err(format!("--only names a tool this server does not have: {names:?}").into());
        }
    }
    let mut toolbox = Toolbox::builder().tools("quickstart", tools);
    if let Some(path) = flag::<String>(args, "--call-log")? {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|err| format!("could not open the call log {path}: {err}"))?;
        let file = std::sync::Mutex::new(file);
        toolbox = toolbox.before_call(move |call, _tool| {
            let line = format!("{} {}\n", call.name, call.args);
            let mut file = file.lock().map_err(|_| "the call log is unusable")?;
            std::io::Write::write_all(&mut *file, line.as_bytes())
                .map_err(|err| format!("could not log the call: {err}"))
        });
    }
    let mut server = McpServer::from_toolbox(toolbox.build()?)
        .with_name("toolkit-quickstart", env!("CARGO_PKG_VERSION"));
    // Replicas behind one load balancer share the key that seals a question's `requestState`,
    // so an answer may reach any of them.
    if let Ok(key) = std::env::var("MCP_REQUEST_STATE_KEY") {
        let options = RequestStateOptions::new()
            .key(key)
            .map_err(|err| format!("MCP_REQUEST_STATE_KEY: {err}"))?;
        server = server.with_request_state(options);
    }
    Ok(server)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = server(&args)?;
    match args.first().map(String::as_str) {
        Some("--stdio") => server.serve_stdio().await?,
        Some("--http") => {
            let addr = args.get(1).ok_or(USAGE)?;
            let options = http_options(&args)?;
            let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
            // The resolved address, for a caller that asked for port 0.
            println!("listening on http://{}/mcp", listener.local_addr()?);
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            server.serve_http(listener, options, shutdown).await?;
        }
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
