//! Resources, resource templates, prompts and completion through a real server: `McpClient`
//! against `McpServer` over Streamable HTTP on loopback, raw JSON-RPC lines over an in-memory
//! stdio pipe for the subscriptions, and `McpClient` against the reference server
//! `@modelcontextprotocol/server-everything`.

use crate::common;

use std::time::Duration;

use common::mcp::everything_server;
use common::raw_mcp::{INITIALIZE, INITIALIZED};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolkit::completion::Completer;
use toolkit::mcp::{CompletionRef, HttpOptions, McpClient, McpServer, McpTransport};
use toolkit::prelude::*;
use toolkit::prompts::{PromptArgument, PromptDefinition};
use toolkit::resources::{RequestError, ResourceDefinition, ResourceTemplateDefinition, arg};
use toolkit::{PromptProxy, ResourceProxy, ResourceTemplateProxy};

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// A server with a text and a binary resource, a template with a typed parameter, and a
/// prompt with a required and an optional argument, both completed.
fn server() -> McpServer {
    let readme = ResourceDefinition::new("docs://readme", "readme")
        .title("Read me")
        .description("What this is")
        .mime_type("text/markdown");
    let logo = ResourceDefinition::new("img://logo", "logo").mime_type("image/png");
    let files = ResourceTemplateDefinition::new("files://{dir}/{name}", "file")
        .expect("a valid template")
        .description("A file by directory and name");
    let users = ResourceTemplateDefinition::new("users://{id}/profile", "profile").expect("valid");
    let documents = ResourceTemplateDefinition::new("file:///{+path}", "document").expect("valid");
    let review = PromptDefinition::new("review")
        .title("Code review")
        .description("Review a piece of code")
        .argument(PromptArgument::required("code").description("The code"))
        .argument(PromptArgument::optional("language"));
    McpServer::new(Vec::new())
        .with_resource(ResourceProxy::from_fn(readme, || "# Hello"))
        .with_resource(ResourceProxy::from_fn(logo, || {
            vec![0x89u8, b'P', b'N', b'G']
        }))
        .with_resource_template(
            ResourceTemplateProxy::from_fn(files, |params| {
                let dir: String = arg(&params, "dir")?;
                let name: String = arg(&params, "name")?;
                Ok::<_, RequestError>(format!("{dir}|{name}"))
            })
            .with_completer("dir", Completer::values(["docs", "data", "src"])),
        )
        .with_resource_template(ResourceTemplateProxy::from_async_fn(
            users,
            |params| async move {
                let id: u32 = arg(&params, "id")?;
                Ok::<_, RequestError>(json!({"id": id}))
            },
        ))
        .with_resource_template(ResourceTemplateProxy::from_fn(documents, |params| {
            let path: String = arg(&params, "path")?;
            Ok::<_, RequestError>(path)
        }))
        .with_prompt(
            PromptProxy::from_fn(review, |args| {
                let code: String = arg(&args, "code")?;
                let language: Option<String> = arg(&args, "language")?;
                let language = language.unwrap_or_else(|| "code".into());
                Ok::<_, RequestError>(vec![
                    PromptMessage::user(format!("Review this {language}:")),
                    PromptMessage::user(Resource::text("mem://code", "text/plain", code)),
                ])
            })
            .with_completer(
                "language",
                Completer::from_fn(|typed, chosen| {
                    let sure = chosen.contains_key("code");
                    ["rust", "ruby", "python"]
                        .into_iter()
                        .filter(|name| name.starts_with(typed))
                        .map(move |name| {
                            if sure {
                                name.to_owned()
                            } else {
                                format!("{name}?")
                            }
                        })
                        .collect::<Vec<_>>()
                }),
            ),
        )
}

async fn http_client() -> (toolkit::mcp::HttpServerHandle, McpClient) {
    let handle = server()
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let url = format!("http://{}/mcp", handle.local_addr());
    let client = McpClient::connect(McpTransport::http(url))
        .await
        .expect("connect");
    (handle, client)
}

#[tokio::test]
async fn resources_and_templates_are_listed_and_read_over_http() {
    let (handle, client) = http_client().await;
    let resources = client.list_resources().await.expect("list");
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["docs://readme", "img://logo"]);
    assert_eq!(resources[0].title.as_deref(), Some("Read me"));
    assert_eq!(resources[0].mime_type.as_deref(), Some("text/markdown"));

    let templates = client
        .list_resource_templates()
        .await
        .expect("list templates");
    assert_eq!(templates[0].uri_template.as_str(), "files://{dir}/{name}");
    assert_eq!(templates[0].uri_template.params(), ["dir", "name"]);

    let readme = client.read_resource("docs://readme").await.expect("read");
    assert_eq!(
        serde_json::to_value(&readme).unwrap(),
        json!([{"uri": "docs://readme", "mimeType": "text/markdown", "text": "# Hello"}])
    );
    let logo = client.read_resource("img://logo").await.expect("read logo");
    assert_eq!(logo[0].blob.as_deref(), Some("iVBORw=="));
    assert_eq!(logo[0].mime_type.as_deref(), Some("image/png"));
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn template_parameters_are_extracted_percent_decoded_and_typed() {
    let (handle, client) = http_client().await;
    let read = client
        .read_resource("files://my%20docs/a%2Bb.txt")
        .await
        .expect("read");
    assert_eq!(read[0].text.as_deref(), Some("my docs|a+b.txt"));
    assert_eq!(read[0].uri, "files://my%20docs/a%2Bb.txt");
    let profile = client
        .read_resource("users://42/profile")
        .await
        .expect("read");
    assert_eq!(profile[0].text.as_deref(), Some(r#"{"id":42}"#));

    let bad = client
        .read_resource("users://abc/profile")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        bad.contains("-32602") && bad.contains("argument `id`"),
        "{bad}"
    );
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn template_parameters_that_climb_or_carry_control_characters_are_refused_naming_them() {
    let (handle, client) = http_client().await;
    let slash =
        "template parameter `name` may not contain `/` (a template takes a path as `{+name}`)";
    let climbs = "template parameter `path` climbs above its root (`..`)";
    let control = "may not contain control characters (NUL, CR, LF...)";
    for (uri, refusal) in [
        ("files://docs/../../etc/passwd", slash.to_owned()),
        ("files://docs/%2e%2e%2fetc", slash.to_owned()),
        (
            "files://docs/a%00.txt",
            format!("template parameter `name` {control}"),
        ),
        (
            "files://docs/a%0d%0aX",
            format!("template parameter `name` {control}"),
        ),
        (
            "files://%zz/x",
            "template parameter `dir` has a `%` that is not followed by two hex digits".to_owned(),
        ),
        ("file:///../../etc/passwd", climbs.to_owned()),
        (
            "file:///docs/%2e%2e%2f%2e%2e%2fetc/passwd",
            climbs.to_owned(),
        ),
        (
            "file:///docs/a%00",
            format!("template parameter `path` {control}"),
        ),
        (
            "file:///docs/a%0d%0a",
            format!("template parameter `path` {control}"),
        ),
    ] {
        let err = client.read_resource(uri).await.unwrap_err().to_string();
        assert!(
            err.ends_with(&format!(
                "resources/read: Mcp error: -32602: Invalid params: {refusal}"
            )),
            "{uri}: {err}"
        );
    }
    let read = client
        .read_resource("file:///docs/./2026/../a%20b.txt")
        .await
        .expect("read");
    assert_eq!(read[0].text.as_deref(), Some("docs/a b.txt"));
    let read = client
        .read_resource("files://docs/notes..txt")
        .await
        .expect("read");
    assert_eq!(read[0].text.as_deref(), Some("docs|notes..txt"));
    handle.shutdown().await.expect("shutdown");
}

/// -32002 before MCP 2026-07-28, -32602 since (SEP-2164): toolkit's client speaks 2026-07-28.
#[tokio::test]
async fn an_unknown_uri_is_resource_not_found() {
    let (handle, client) = http_client().await;
    for uri in ["docs://nothing", "users://7/posts", "files://x"] {
        let err = client.read_resource(uri).await.unwrap_err().to_string();
        assert!(err.contains("-32602") && err.contains(uri), "{uri}: {err}");
    }
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn prompts_are_listed_and_got_with_their_arguments() {
    let (handle, client) = http_client().await;
    let prompts = client.list_prompts().await.expect("list");
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].title.as_deref(), Some("Code review"));
    let arguments: Vec<(&str, bool)> = prompts[0]
        .arguments
        .iter()
        .map(|a| (a.name.as_str(), a.required))
        .collect();
    assert_eq!(arguments, [("code", true), ("language", false)]);

    let got = client
        .get_prompt(
            "review",
            args(json!({"code": "fn main() {}", "language": "rust"})),
        )
        .await
        .expect("get");
    assert_eq!(
        serde_json::to_value(&got).unwrap(),
        json!([
            {"role": "user", "content": {"type": "text", "text": "Review this rust:"}},
            {"role": "user", "content": {"type": "resource", "resource":
                {"uri": "mem://code", "mimeType": "text/plain", "text": "fn main() {}"}}}
        ])
    );
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn an_unknown_prompt_and_a_missing_argument_are_invalid_params() {
    let (handle, client) = http_client().await;
    let unknown = client
        .get_prompt("nope", Map::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        unknown.contains("-32602") && unknown.contains("Unknown prompt: nope"),
        "{unknown}"
    );
    let missing = client
        .get_prompt("review", args(json!({"language": "rust"})))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("-32602") && missing.contains("Missing required argument: code"),
        "{missing}"
    );
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn completion_answers_for_prompt_arguments_and_template_parameters() {
    let (handle, client) = http_client().await;
    let prompt = CompletionRef::Prompt("review".into());
    let alone = client
        .complete(prompt.clone(), "language", "r", Map::new())
        .await
        .expect("complete");
    assert_eq!(alone.values, ["rust?", "ruby?"]);
    assert_eq!((alone.total, alone.has_more), (Some(2), false));
    let with_code = client
        .complete(prompt.clone(), "language", "ru", args(json!({"code": "x"})))
        .await
        .expect("complete");
    assert_eq!(with_code.values, ["rust", "ruby"]);
    // An argument without a completer has no values; one that does not exist is an error.
    let none = client
        .complete(prompt.clone(), "code", "f", Map::new())
        .await
        .expect("complete");
    assert!(none.values.is_empty());
    let err = client
        .complete(prompt, "colour", "", Map::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("-32602") && err.contains("no argument `colour`"),
        "{err}"
    );

    let template = CompletionRef::ResourceTemplate("files://{dir}/{name}".into());
    let dirs = client
        .complete(template, "dir", "D", Map::new())
        .await
        .expect("complete");
    assert_eq!(dirs.values, ["docs", "data"]);
    let unknown = CompletionRef::ResourceTemplate("nope://{x}".into());
    let err = client
        .complete(unknown, "x", "", Map::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("no resource template `nope://{x}`"), "{err}");
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn a_completion_is_capped_at_a_hundred_values_with_its_total() {
    let many = ResourceTemplateDefinition::new("n://{n}", "n").expect("valid");
    let template = ResourceTemplateProxy::from_fn(many, |_| "x").with_completer(
        "n",
        Completer::from_fn(|_, _| (0..250).map(|n| n.to_string())),
    );
    let handle = McpServer::new(Vec::new())
        .with_resource_template(template)
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let client = McpClient::connect(McpTransport::http(format!(
        "http://{}/mcp",
        handle.local_addr()
    )))
    .await
    .expect("connect");
    let reference = CompletionRef::ResourceTemplate("n://{n}".into());
    let completion = client
        .complete(reference, "n", "", Map::new())
        .await
        .expect("complete");
    assert_eq!(completion.values.len(), 100);
    assert_eq!((completion.total, completion.has_more), (Some(250), true));
    handle.shutdown().await.expect("shutdown");
}

/// A session over an in-memory pipe, spoken in raw JSON-RPC lines.
struct Lines {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
}

impl Lines {
    async fn open(server: McpServer) -> Lines {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server_io);
        tokio::spawn(server.serve_io(read, write));
        let (read, write) = tokio::io::split(client_io);
        let mut lines = Lines {
            write,
            read: BufReader::new(read).lines(),
        };
        lines.send(INITIALIZE).await;
        assert_eq!(lines.next().await["id"], 1);
        lines.send(INITIALIZED).await;
        lines
    }

    async fn send(&mut self, line: &str) {
        self.write
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write");
    }

    /// The next message, within a second.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(1), self.read.next_line())
            .await
            .expect("a message within a second")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).expect("JSON")
    }

    /// Whether a message comes within `wait`.
    async fn quiet_for(&mut self, wait: Duration) -> bool {
        tokio::time::timeout(wait, self.read.next_line())
            .await
            .is_err()
    }

    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&line.to_string()).await;
        self.next().await
    }
}

#[tokio::test]
async fn a_subscribed_session_hears_of_updates_until_it_unsubscribes() {
    let server = server();
    let notifier = server.notifier();
    let mut session = Lines::open(server).await;

    let answer = session
        .request(
            2,
            "resources/subscribe",
            json!({"uri": "users://7/profile"}),
        )
        .await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    assert_eq!(notifier.resource_updated("docs://readme").await, 0);
    assert_eq!(notifier.resource_updated("users://7/profile").await, 1);
    assert_eq!(
        session.next().await,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "users://7/profile"}})
    );
    assert_eq!(notifier.prompts_changed().await, 1);
    assert_eq!(
        session.next().await["method"],
        "notifications/prompts/list_changed"
    );

    let answer = session
        .request(
            3,
            "resources/unsubscribe",
            json!({"uri": "users://7/profile"}),
        )
        .await;
    assert_eq!(answer["result"], json!({}));
    assert_eq!(notifier.resource_updated("users://7/profile").await, 0);
    assert!(session.quiet_for(Duration::from_millis(100)).await);
}

#[tokio::test]
async fn subscribing_to_an_unknown_uri_is_resource_not_found() {
    let mut session = Lines::open(server()).await;
    let answer = session
        .request(2, "resources/subscribe", json!({"uri": "nope://x"}))
        .await;
    assert_eq!(answer["error"]["code"], -32002);
    assert_eq!(answer["error"]["data"], json!({"uri": "nope://x"}));
}

#[tokio::test]
async fn the_capabilities_say_what_the_server_offers() {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    tokio::spawn(server().serve_io(read, write));
    let (read, mut write) = tokio::io::split(client_io);
    write
        .write_all(format!("{INITIALIZE}\n").as_bytes())
        .await
        .expect("write");
    let mut lines = BufReader::new(read).lines();
    let line = lines.next_line().await.expect("read").expect("a line");
    let answer: Value = serde_json::from_str(&line).expect("JSON");
    let capabilities = &answer["result"]["capabilities"];
    assert_eq!(
        capabilities["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
    assert_eq!(capabilities["completions"], json!({}));
}

#[tokio::test]
async fn subscribing_on_a_stateless_server_says_it_needs_a_session() {
    let handle = server()
        .spawn_http("127.0.0.1:0", HttpOptions::default().stateless(true))
        .await
        .expect("serve");
    let url = format!("http://{}/mcp", handle.local_addr());
    let http = reqwest::Client::new();
    let request = json!({"jsonrpc": "2.0", "id": 5, "method": "resources/subscribe",
                         "params": {"uri": "docs://readme"}});
    let body = http
        .post(&url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(request.to_string())
        .send()
        .await
        .expect("post")
        .text()
        .await
        .expect("body");
    let answer: Value = serde_json::from_str(&body).unwrap_or_else(|_| json!({"raw": body}));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("needs a session"), "{answer}");
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn the_client_lists_reads_and_completes_the_reference_server() {
    let Some(program) = everything_server() else {
        eprintln!(
            "skipped: node and npm are needed to run @modelcontextprotocol/server-everything"
        );
        return;
    };
    let client = McpClient::connect(
        McpTransport::stdio(program.to_string_lossy())
            .arg("stdio")
            .inherit_stderr(false),
    )
    .await
    .expect("connect");
    let resources = client.list_resources().await.expect("list resources");
    let architecture = "demo://resource/static/document/architecture.md";
    assert!(
        resources.iter().any(|r| r.uri == architecture),
        "{resources:?}"
    );
    let read = client.read_resource(architecture).await.expect("read");
    assert_eq!(read[0].mime_type.as_deref(), Some("text/markdown"));
    assert!(
        read[0]
            .text
            .as_deref()
            .unwrap_or_default()
            .starts_with("# Everything Server")
    );

    let templates = client
        .list_resource_templates()
        .await
        .expect("list templates");
    let text = &templates[0].uri_template;
    assert_eq!(text.as_str(), "demo://resource/dynamic/text/{resourceId}");
    let dynamic = client
        .read_resource("demo://resource/dynamic/text/3")
        .await
        .expect("read");
    assert_eq!(dynamic[0].uri, "demo://resource/dynamic/text/3");
    assert!(dynamic[0].text.is_some(), "{dynamic:?}");

    let prompts = client.list_prompts().await.expect("list prompts");
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert!(
        names.contains(&"args-prompt") && names.contains(&"completable-prompt"),
        "{names:?}"
    );
    let got = client
        .get_prompt("args-prompt", args(json!({"city": "Lyon"})))
        .await
        .expect("get");
    assert!(
        serde_json::to_string(&got).unwrap().contains("Lyon"),
        "{got:?}"
    );
    let missing = client
        .get_prompt("args-prompt", Map::new())
        .await
        .unwrap_err();
    assert!(missing.to_string().contains("prompts/get"), "{missing}");

    let reference = CompletionRef::Prompt("completable-prompt".into());
    let departments = client
        .complete(reference, "department", "E", Map::new())
        .await
        .expect("complete");
    assert_eq!(departments.values, ["Engineering"]);
}

#[tokio::test]
async fn a_failing_or_panicking_body_is_an_internal_error_and_the_server_goes_on() {
    let failing = ResourceDefinition::new("db://down", "down");
    let panicking = ResourceDefinition::new("db://boom", "boom");
    let prompt = PromptDefinition::new("boom");
    let handle = McpServer::new(Vec::new())
        .with_resource(ResourceProxy::from_fn(failing, || {
            Err::<String, _>("the database is down")
        }))
        .with_resource(ResourceProxy::from_fn(panicking, || -> String {
            panic!("a bug in the body")
        }))
        .with_prompt(PromptProxy::from_async_fn(prompt, |_| async {
            if true {
                panic!("a bug in the prompt");
            }
            "never"
        }))
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let url = format!("http://{}/mcp", handle.local_addr());
    let client = McpClient::connect(McpTransport::http(url))
        .await
        .expect("connect");
    let down = client
        .read_resource("db://down")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        down.contains("-32603") && down.contains("the database is down"),
        "{down}"
    );
    let boom = client
        .read_resource("db://boom")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        boom.contains("-32603") && boom.contains("panicked: a bug in the body"),
        "{boom}"
    );
    let prompt = client
        .get_prompt("boom", Map::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(prompt.contains("panicked: a bug in the prompt"), "{prompt}");
    assert_eq!(
        client.list_resources().await.expect("still serving").len(),
        2
    );
    handle.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn a_session_may_hold_at_most_1024_subscriptions() {
    let mut session = Lines::open(server()).await;
    for id in 0..1024u64 {
        let uri = format!("users://{id}/profile");
        let answer = session
            .request(10 + id, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert_eq!(answer["result"], json!({}), "{answer}");
    }
    let over = session
        .request(
            5000,
            "resources/subscribe",
            json!({"uri": "users://9999/profile"}),
        )
        .await;
    assert_eq!(over["error"]["code"], -32600);
    let message = over["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("subscribed to 1024 resources already"),
        "{over}"
    );
    // One it holds is still fine, and unsubscribing makes room.
    let again = session
        .request(
            5001,
            "resources/subscribe",
            json!({"uri": "users://7/profile"}),
        )
        .await;
    assert_eq!(again["result"], json!({}));
    session
        .request(
            5002,
            "resources/unsubscribe",
            json!({"uri": "users://7/profile"}),
        )
        .await;
    let room = session
        .request(
            5003,
            "resources/subscribe",
            json!({"uri": "users://9999/profile"}),
        )
        .await;
    assert_eq!(room["result"], json!({}));
}

/// `files://docs/<name>` padded to exactly `bytes` bytes.
fn file_uri(tag: usize, bytes: usize) -> String {
    let head = format!("files://docs/{tag}-");
    format!("{head}{}", "x".repeat(bytes - head.len()))
}

/// A template takes URIs up to the body limit; a subscription keeps its URI for the session's
/// life. So a URI over 8 KiB is refused, and a session's URIs hold at most 1 MiB together:
/// 128 of the longest, then a clear refusal until it unsubscribes from one.
#[tokio::test]
async fn subscription_uris_are_bounded_in_length_and_in_bytes_per_session() {
    let mut session = Lines::open(server()).await;
    let long = file_uri(0, 8 * 1024 + 1);
    let refused = session
        .request(2, "resources/subscribe", json!({"uri": long}))
        .await;
    assert_eq!(
        refused["error"],
        json!({"code": -32600, "message": "the URI is 8193 bytes long; a subscription's URI \
            may be at most 8192 bytes"}),
    );
    for tag in 0..128 {
        let uri = file_uri(tag, 8 * 1024);
        let answer = session
            .request(10 + tag as u64, "resources/subscribe", json!({"uri": uri}))
            .await;
        assert_eq!(answer["result"], json!({}), "{tag}: {answer}");
    }
    let over = session
        .request(
            500,
            "resources/subscribe",
            json!({"uri": file_uri(128, 100)}),
        )
        .await;
    assert_eq!(
        over["error"],
        json!({"code": -32600, "message": "this session's subscriptions hold 1048576 bytes of \
            URIs already, and may hold at most 1048576; unsubscribe from some first"}),
    );
    // One it holds is still fine, and unsubscribing makes room.
    let again = session
        .request(
            501,
            "resources/subscribe",
            json!({"uri": file_uri(7, 8 * 1024)}),
        )
        .await;
    assert_eq!(again["result"], json!({}), "{again}");
    let uri = file_uri(7, 8 * 1024);
    session
        .request(502, "resources/unsubscribe", json!({"uri": uri}))
        .await;
    let room = session
        .request(
            503,
            "resources/subscribe",
            json!({"uri": file_uri(128, 100)}),
        )
        .await;
    assert_eq!(room["result"], json!({}), "{room}");
}

/// The figure in the issue, after the bound (run alone, with `--ignored`): a session asking
/// for 200 subscriptions to 2 MiB URIs held 510 MB; each is now refused.
#[tokio::test]
#[ignore = "a memory figure: run alone with --ignored --nocapture"]
async fn resident_memory_after_200_subscriptions_to_2_mib_uris() {
    use crate::common::memory::resident_mb;
    let before = resident_mb();
    let mut session = Lines::open(server()).await;
    let mut refused = 0;
    for tag in 0..200 {
        let uri = file_uri(tag, 2 << 20);
        let answer = session
            .request(10 + tag as u64, "resources/subscribe", json!({"uri": uri}))
            .await;
        refused += usize::from(answer["error"]["code"] == -32600);
    }
    println!(
        "{refused} of 200 refused; resident {before:?} MB before, {:?} MB after",
        resident_mb()
    );
}
