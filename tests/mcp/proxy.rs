//! toolkit as an MCP proxy: `McpServer` over an `McpClient`'s tools must answer as the remote
//! server does. The remote server is made with the official Python SDK
//! (`tests/mcp/python_proxy_server.py`), or is the reference server; an rmcp client calls it
//! directly and through the proxy. `examples/mcp_proxy.rs`, run as a process, must end on a
//! signal and take its stdio server with it.

use crate::common;

use std::process::{Command, Stdio};

use serde_json::{Value, json};
use toolkit::mcp::rmcp::model::{
    ArgumentInfo, CallToolRequestParams, ClientCapabilities, ClientConfig, CompleteRequestParams,
    CompleteResult, CompletionContext, GetPromptRequestParams, GetPromptResult, Implementation,
    ReadResourceRequestParams, ReadResourceResult, Reference, Tool,
};
use toolkit::mcp::rmcp::service::RunningService;
use toolkit::mcp::rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use toolkit::mcp::rmcp::{RoleClient, ServiceExt};
use toolkit::mcp::{HttpOptions, McpClient, McpServer, McpTransport};

#[cfg(target_os = "linux")]
use crate::client_hardening::running;
use common::mcp::{Process, everything_server, free_port, python, script, wait_for_port};

async fn rmcp_client(url: &str) -> RunningService<RoleClient, ()> {
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .expect("initialize")
}

async fn call<S: toolkit::mcp::rmcp::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    name: &str,
    arguments: Value,
) -> Value {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
    let result = client.call_tool(params).await.expect("a result");
    serde_json::to_value(result).expect("JSON")
}

fn listed<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_tool_served_by_a_proxy_answers_exactly_as_the_remote_server_does() {
    let port = free_port();
    let mut remote_server = Process::spawn(
        Command::new(python())
            .arg(script("python_proxy_server.py"))
            .args(["streamable-http", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    );
    wait_for_port(&mut remote_server, port);
    let remote_url = format!("http://127.0.0.1:{port}/mcp");
    let remote = McpClient::connect(McpTransport::http(remote_url.as_str()))
        .await
        .expect("connect");
    let proxy = McpServer::new(remote.tools())
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");

    let direct = rmcp_client(&remote_url).await;
    let through = rmcp_client(&proxy.url()).await;
    let calls = [
        ("text", json!({})),
        ("image", json!({})),
        ("audio", json!({})),
        ("resource", json!({})),
        ("link", json!({})),
        ("structured", json!({"x": 1, "y": 2})),
        ("error", json!({})),
        ("mixed", json!({})),
    ];
    for (name, arguments) in calls {
        let expected = call(&direct, name, arguments.clone()).await;
        assert_eq!(call(&through, name, arguments).await, expected, "{name}");
    }
    // The kinds the test means to cover are really there.
    let structured = call(&direct, "structured", json!({"x": 1, "y": 2})).await;
    assert_eq!(structured["structuredContent"], json!({"x": 2, "y": 1}));
    let mixed = call(&direct, "mixed", json!({})).await;
    assert_eq!(mixed["_meta"], json!({"trace": "abc"}));
    assert_eq!(call(&direct, "error", json!({})).await["isError"], true);

    let remote_tools = direct.list_all_tools().await.expect("tools/list");
    let proxy_tools = through.list_all_tools().await.expect("tools/list");
    for tool in &remote_tools {
        let served = listed(&proxy_tools, &tool.name);
        let title = tool
            .title
            .clone()
            .or_else(|| tool.annotations.as_ref()?.title.clone());
        assert_eq!(served.title, title, "{}", tool.name);
        assert_eq!(served.description, tool.description, "{}", tool.name);
        assert_eq!(served.output_schema, tool.output_schema, "{}", tool.name);
        let hints = |tool: &Tool| {
            tool.annotations.as_ref().map(|hints| {
                (
                    hints.read_only_hint,
                    hints.destructive_hint,
                    hints.idempotent_hint,
                    hints.open_world_hint,
                )
            })
        };
        assert_eq!(hints(served), hints(tool), "{}", tool.name);
    }
    assert_eq!(
        listed(&proxy_tools, "text").title.as_deref(),
        Some("Say it")
    );

    direct.cancel().await.expect("close");
    through.cancel().await.expect("close");
    proxy.shutdown().await.expect("graceful shutdown");
}

/// The reference server's program, or `None` (saying the test is skipped) where node or npm
/// is missing.
pub(crate) fn reference_server() -> Option<std::path::PathBuf> {
    let program = everything_server();
    if program.is_none() {
        eprintln!(
            "skipped: node and npm are needed to run @modelcontextprotocol/server-everything"
        );
    }
    program
}

/// toolkit's client of the reference server `program`, over stdio.
pub(crate) async fn reference_client(program: &std::path::Path) -> McpClient {
    McpClient::connect(
        McpTransport::stdio(program.to_string_lossy())
            .arg("stdio")
            .inherit_stderr(false),
    )
    .await
    .expect("connect")
}

/// The reference server `@modelcontextprotocol/server-everything` (pinned; installed with npm
/// into `target/` on first use), over stdio: each of its results, called directly and through
/// a toolkit proxy, must be the same. Skipped, saying so, where node or npm is missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_answers_through_a_proxy_as_it_does_directly() {
    let Some(program) = reference_server() else {
        return;
    };
    let mut command = tokio::process::Command::new(&program);
    command.arg("stdio").stderr(Stdio::null());
    // Declaring nothing, as toolkit's client does by default: both see the same tools, and
    // the proxy offers no roots tool its own clients could not answer.
    let nothing = ClientCapabilities::default();
    let direct = ClientConfig::new(nothing, Implementation::new("direct", "1"))
        .serve(TokioChildProcess::new(command).expect("start the reference server"))
        .await
        .expect("initialize");
    let remote = reference_client(&program).await;
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_io);
    let proxy = McpServer::proxy(&remote)
        .await
        .expect("the remote server, listed");
    let server = tokio::spawn(proxy.serve_io(read, write));
    let through = ().serve(client_io).await.expect("initialize");

    let calls = [
        ("echo", json!({"message": "hi"})),
        ("get-sum", json!({"a": 1, "b": 2})),
        ("get-tiny-image", json!({})),
        ("get-annotated-message", json!({"messageType": "error"})),
        (
            "get-annotated-message",
            json!({"messageType": "success", "includeImage": true}),
        ),
        (
            "get-annotated-message",
            json!({"messageType": "debug", "includeImage": true}),
        ),
        ("get-resource-links", json!({"count": 3})),
        (
            "get-resource-reference",
            json!({"resourceType": "Text", "resourceId": 1}),
        ),
        (
            "get-resource-reference",
            json!({"resourceType": "Blob", "resourceId": 2}),
        ),
        ("get-structured-content", json!({"location": "Chicago"})),
        (
            "gzip-file-as-resource",
            json!({"name": "hi.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resource"}),
        ),
        (
            "trigger-long-running-operation",
            json!({"duration": 0.1, "steps": 1}),
        ),
    ];
    for (name, arguments) in calls {
        let expected = call(&direct, name, arguments.clone()).await;
        assert_eq!(call(&through, name, arguments).await, expected, "{name}");
    }

    let remote_tools = direct.list_all_tools().await.expect("tools/list");
    let proxy_tools = through.list_all_tools().await.expect("tools/list");
    assert_eq!(proxy_tools.len(), remote_tools.len());
    for tool in &remote_tools {
        let served = listed(&proxy_tools, &tool.name);
        assert_eq!(served.title, tool.title, "{}", tool.name);
        assert_eq!(served.output_schema, tool.output_schema, "{}", tool.name);
        assert_eq!(served.annotations, tool.annotations, "{}", tool.name);
    }
    assert!(
        !proxy_tools.iter().any(|tool| tool.name.contains("roots")),
        "no roots tool: {:?}",
        proxy_tools
            .iter()
            .map(|tool| &tool.name)
            .collect::<Vec<_>>()
    );
    the_rest_answers_as_directly(&direct, &through).await;
    completions_answer_as_directly(&direct, &through).await;

    through.cancel().await.expect("close");
    server
        .await
        .expect("the server task")
        .expect("the server ends cleanly");
    direct.cancel().await.expect("close");
}

/// Resources, templates, prompts and completions, through the proxy as directly.
async fn the_rest_answers_as_directly<A, B>(
    direct: &RunningService<RoleClient, A>,
    through: &RunningService<RoleClient, B>,
) where
    A: toolkit::mcp::rmcp::Service<RoleClient>,
    B: toolkit::mcp::rmcp::Service<RoleClient>,
{
    // A session's own resources (the reference server adds one per `gzip-file-as-resource`
    // call) are the direct client's alone; the proxy lists what its session had when built.
    let names = |resources: Vec<toolkit::mcp::rmcp::model::Resource>| -> Vec<String> {
        (resources.into_iter().map(|resource| resource.uri.clone()))
            .filter(|uri| !uri.contains("/session/"))
            .collect()
    };
    let resources = direct.list_all_resources().await.expect("resources/list");
    assert!(
        !resources.is_empty(),
        "the reference server lists resources"
    );
    let served = through.list_all_resources().await.expect("resources/list");
    assert_eq!(names(served), names(resources.clone()));
    let first = ReadResourceRequestParams::new(resources[0].uri.clone());
    let read = |result: ReadResourceResult| serde_json::to_value(result.contents).expect("JSON");
    assert_eq!(
        read(
            through
                .read_resource(first.clone())
                .await
                .expect("resources/read")
        ),
        read(direct.read_resource(first).await.expect("resources/read")),
    );

    let templates = direct
        .list_all_resource_templates()
        .await
        .expect("templates");
    let served = through
        .list_all_resource_templates()
        .await
        .expect("templates");
    let written = |templates: Vec<toolkit::mcp::rmcp::model::ResourceTemplate>| -> Vec<String> {
        templates
            .into_iter()
            .map(|template| template.uri_template.clone())
            .collect()
    };
    assert_eq!(written(served), written(templates));

    let prompts = direct.list_all_prompts().await.expect("prompts/list");
    let served = through.list_all_prompts().await.expect("prompts/list");
    let named = |prompts: Vec<toolkit::mcp::rmcp::model::Prompt>| -> Vec<String> {
        prompts.into_iter().map(|prompt| prompt.name).collect()
    };
    assert!(!prompts.is_empty(), "the reference server lists prompts");
    assert_eq!(named(served), named(prompts.clone()));
    let simple = prompts
        .iter()
        .find(|prompt| {
            prompt
                .arguments
                .as_ref()
                .is_none_or(|args| args.iter().all(|a| a.required != Some(true)))
        })
        .expect("a prompt without required arguments");
    let get = GetPromptRequestParams::new(simple.name.clone());
    let messages = |result: GetPromptResult| serde_json::to_value(result.messages).expect("JSON");
    assert_eq!(
        messages(through.get_prompt(get.clone()).await.expect("prompts/get")),
        messages(direct.get_prompt(get).await.expect("prompts/get")),
    );
}

/// The reference server's completions (a prompt's arguments, one narrowed by the other, and a
/// resource template's parameter), asked of it directly and through the proxy.
async fn completions_answer_as_directly<A, B>(
    direct: &RunningService<RoleClient, A>,
    through: &RunningService<RoleClient, B>,
) where
    A: toolkit::mcp::rmcp::Service<RoleClient>,
    B: toolkit::mcp::rmcp::Service<RoleClient>,
{
    let ask = |reference, argument: &str, value: &str, context| {
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        params.context = context;
        params
    };
    let prompt = || Reference::for_prompt("completable-prompt");
    let template = || Reference::for_resource("demo://resource/dynamic/text/{resourceId}");
    let engineering = [("department".to_owned(), "Engineering".to_owned())];
    let engineering = Some(CompletionContext::with_arguments(engineering.into()));
    let asked: [(CompleteRequestParams, &[&str]); 4] = [
        (
            ask(prompt(), "department", "S", None),
            &["Sales", "Support"],
        ),
        (
            ask(prompt(), "name", "", engineering),
            &["Alice", "Bob", "Charlie"],
        ),
        (ask(template(), "resourceId", "3", None), &["3"]),
        (ask(template(), "resourceId", "x", None), &[]),
    ];
    for (params, expected) in asked {
        let (argument, value) = (params.argument.name.clone(), params.argument.value.clone());
        let values = |result: CompleteResult| result.completion.values;
        let wanted = values(direct.complete(params.clone()).await.expect("complete"));
        assert_eq!(wanted, expected, "{argument}={value:?} directly");
        let served = values(through.complete(params).await.expect("complete"));
        assert_eq!(served, expected, "{argument}={value:?} through the proxy");
    }
}

/// `examples/mcp_proxy.rs` over stdio (or HTTP), in front of a stdio server that outlives its
/// stdin and has a child of its own (`stdio_lingering_server.py`), is sent `signal` once it
/// serves: it must exit 0, and the server and its child must be gone soon after.
#[cfg(target_os = "linux")]
fn stopped_by(signal: &str, http: bool) {
    use std::io::{BufRead, BufReader, Write};
    use std::time::{Duration, Instant};

    let dir = std::env::temp_dir().join(format!(
        "toolkit-proxy-{signal}-{http}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let pidfile = dir.join("pids");
    let mut command = Command::new(common::examples::build_example("mcp_proxy", false));
    if http {
        command
            .args(["--http", "127.0.0.1:0"])
            .stderr(Stdio::piped());
    } else {
        command.stdout(Stdio::piped()).stderr(Stdio::null());
    }
    let script = script("stdio_lingering_server.py");
    command.arg(python()).arg(script).arg(&pidfile);
    let mut proxy = Process::spawn(command.stdin(Stdio::piped()));
    let mut stdin = proxy.0.stdin.take().expect("stdin");
    // Serving once it has said so: over HTTP on stderr, over stdio by answering `initialize`.
    let said: Box<dyn std::io::Read + Send> = match http {
        true => Box::new(proxy.0.stderr.take().expect("stderr")),
        false => Box::new(proxy.0.stdout.take().expect("stdout")),
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    if !http {
        writeln!(stdin, "{initialize}").expect("initialize sent");
    }
    let (answered, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(said).read_line(&mut line);
        let _ = answered.send(line);
    });
    let line = answer
        .recv_timeout(Duration::from_secs(60))
        .expect("the proxy serves");
    if http {
        assert!(line.starts_with("listening on http://127.0.0.1:"), "{line}");
    } else {
        let answer: Value = serde_json::from_str(&line).expect("a JSON answer");
        assert_eq!(answer["result"]["serverInfo"]["name"], "lingering");
    }
    let pids: Vec<u32> = std::fs::read_to_string(&pidfile)
        .expect("the server's pids")
        .split(' ')
        .map(|pid| pid.parse().expect("a pid"))
        .collect();
    assert!(pids.iter().all(|&pid| running(pid)));

    // The proxy's stdin stays open: only the signal ends it.
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &proxy.0.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
    // The server sleeps 60 s after its stdin closes: 10 s is 6x headroom over nothing at all.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut status = None;
    while Instant::now() < deadline {
        status = status.or_else(|| proxy.0.try_wait().expect("the proxy's status"));
        if status.is_some() && !pids.iter().any(|&pid| running(pid)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let left: Vec<u32> = pids.iter().copied().filter(|&pid| running(pid)).collect();
    let _ = std::fs::remove_dir_all(&dir);
    drop(stdin);
    assert_eq!(status.map(|status| status.code()), Some(Some(0)));
    assert_eq!(
        left,
        Vec::<u32>::new(),
        "still running after the proxy ended"
    );
}

/// The default action of SIGINT killed the proxy without running its destructors, and its
/// stdio server ran on in its own process group.
#[cfg(target_os = "linux")]
#[test]
fn a_proxy_sent_sigint_exits_cleanly_and_its_stdio_server_is_gone() {
    stopped_by("INT", false);
}

/// As SIGINT: SIGTERM is how a supervisor asks a server to stop.
#[cfg(target_os = "linux")]
#[test]
fn a_proxy_sent_sigterm_exits_cleanly_and_its_stdio_server_is_gone() {
    stopped_by("TERM", false);
}

/// Over HTTP too: the proxy ends on SIGINT, and its stdio server with it.
#[cfg(target_os = "linux")]
#[test]
fn a_proxy_serving_http_sent_sigint_exits_cleanly_and_its_stdio_server_is_gone() {
    stopped_by("INT", true);
}
