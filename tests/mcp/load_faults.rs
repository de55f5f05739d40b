//! Faults against a real example server on loopback: clients that vanish mid-call, clients
//! trickling their headers or body, abandoned sessions, oversized bodies and headers; and the client
//! against a scripted server that paginates forever or floods `tools/list_changed`.

use crate::common;

use common::raw_mcp::INITIALIZE;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::mcp::{
    Process, example_http_server_on, example_http_server_with, free_port, wait_for_port,
};
use toolkit::mcp::{HttpOptions, McpClient, McpServer, McpTransport};
use toolkit::prelude::*;

/// The port in a `http://127.0.0.1:PORT/mcp` URL.
fn port_of(url: &str) -> u16 {
    url.trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .expect("a loopback URL")
}

/// A `POST /mcp` with `body` and `extra` header lines, as raw HTTP/1.1.
fn request(port: u16, body: &str, extra: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Sends `raw` and returns the status code of the answer.
fn status_of(port: u16, raw: &[u8]) -> u16 {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("set a read timeout");
    // A server may answer (413, 431) and close before reading everything: keep what it said.
    let _ = stream.write_all(raw);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    text.split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"))
}

fn initialize_status(port: u16) -> u16 {
    status_of(port, request(port, INITIALIZE, "").as_bytes())
}

#[test]
fn clients_that_disconnect_mid_call_do_not_stop_the_server_serving_others() {
    let (_server, url) = example_http_server_with(None, &[]);
    let port = port_of(&url);
    let call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stats_word_count","arguments":{"text":"a b"}}}"#;
    for cut in [0, 40, 120] {
        for _ in 0..20 {
            let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            let raw = request(port, call, "");
            let _ = stream.write_all(&raw.as_bytes()[..raw.len() - cut]);
            drop(stream);
        }
    }
    let statuses: Vec<u16> = (0..5).map(|_| initialize_status(port)).collect();
    assert_eq!(statuses, [200; 5]);
}

/// Sends `fast` at once, then `slow` a byte every 50 ms until the server stops reading;
/// returns what the server answered and how long after the first slow byte its connection
/// ended.
fn trickle(port: u16, fast: &[u8], slow: &[u8]) -> (String, Duration) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("set a read timeout");
    stream.write_all(fast).expect("send the fast part");
    let mut writer = stream.try_clone().expect("clone the stream");
    let answered = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let done = Arc::clone(&answered);
    let slow = slow.to_vec();
    let began = Instant::now();
    let trickling = std::thread::spawn(move || {
        for byte in slow {
            if done.load(std::sync::atomic::Ordering::SeqCst) || writer.write_all(&[byte]).is_err()
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let ended = began.elapsed();
    answered.store(true, std::sync::atomic::Ordering::SeqCst);
    trickling.join().expect("the slow client ends");
    (String::from_utf8_lossy(&answer).into_owned(), ended)
}

/// Ten `initialize`s, each answered 200, all within 2 s.
fn others_are_served_at_once(port: u16) {
    let began = Instant::now();
    let statuses: Vec<u16> = (0..10).map(|_| initialize_status(port)).collect();
    assert_eq!(statuses, [200; 10]);
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "took {:?}",
        began.elapsed()
    );
}

/// Whether the connection was cut at the 600 ms read timeout, long before the trickle
/// (several seconds) would have ended.
fn assert_cut_at_the_read_timeout(ended: Duration) {
    assert!(
        ended >= Duration::from_millis(550) && ended < Duration::from_millis(2500),
        "ended after {ended:?}"
    );
}

#[test]
fn a_client_trickling_its_headers_is_cut_off_at_the_read_timeout_while_others_are_served() {
    let (_server, url) = example_http_server_with(None, &["--read-timeout-ms", "600"]);
    let port = port_of(&url);
    // 300 bytes at 50 ms each would take 15 s.
    let raw = request(port, INITIALIZE, "");
    let slow = std::thread::spawn(move || trickle(port, b"", raw.as_bytes()));
    std::thread::sleep(Duration::from_millis(200));
    others_are_served_at_once(port);
    let (answer, ended) = slow.join().expect("the slow client ends");
    // hyper closes a connection whose headers are late without an answer.
    assert_eq!(answer, "");
    assert_cut_at_the_read_timeout(ended);
}

#[test]
fn a_client_trickling_its_body_is_answered_408_at_the_read_timeout_while_others_are_served() {
    let (_server, url) = example_http_server_with(None, &["--read-timeout-ms", "600"]);
    let port = port_of(&url);
    let raw = request(port, INITIALIZE, "");
    let body_at = raw.find("\r\n\r\n").expect("a blank line") + 4;
    let slow = std::thread::spawn(move || {
        let (headers, body) = raw.as_bytes().split_at(body_at);
        trickle(port, headers, body)
    });
    std::thread::sleep(Duration::from_millis(200));
    others_are_served_at_once(port);
    let (answer, ended) = slow.join().expect("the slow client ends");
    assert_cut_at_the_read_timeout(ended);
    assert!(answer.starts_with("HTTP/1.1 408 "), "{answer:?}");
    assert!(
        answer.ends_with("the request body did not arrive within 600 ms"),
        "{answer:?}"
    );
}

#[test]
fn abandoned_sessions_are_capped_then_evicted_when_idle() {
    let (_server, url) =
        example_http_server_with(None, &["--max-sessions", "20", "--session-idle-ms", "1000"]);
    let port = port_of(&url);
    let opened: Vec<u16> = (0..20).map(|_| initialize_status(port)).collect();
    assert_eq!(opened, [200; 20]);
    // Sessions opened and abandoned: the 21st is refused, not kept.
    let over: Vec<u16> = (0..50).map(|_| initialize_status(port)).collect();
    assert_eq!(over, [503; 50]);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(initialize_status(port), 200, "idle sessions were evicted");
}

#[test]
fn oversized_bodies_and_huge_headers_are_refused_and_the_server_stays_up() {
    let (_server, url) = example_http_server_with(None, &[]);
    let port = port_of(&url);
    let padding = "x".repeat(5 * 1024 * 1024);
    let oversized =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"p":"{padding}"}}}}"#);
    assert_eq!(
        status_of(port, request(port, &oversized, "").as_bytes()),
        413
    );
    let huge_header = format!("X-Padding: {}\r\n", "y".repeat(1024 * 1024));
    assert_eq!(
        status_of(port, request(port, INITIALIZE, &huge_header).as_bytes()),
        431
    );
    let not_json = request(port, "{\"jsonrpc\":\"2.0\",", "");
    assert_eq!(status_of(port, not_json.as_bytes()), 400);
    assert_eq!(initialize_status(port), 200);
}

/// The scripted server of `tests/mcp/misbehaving_server.py` and the methods it was sent.
fn misbehaving_server(mode: &str) -> (Process, String, Arc<Mutex<Vec<String>>>) {
    misbehaving_server_with(mode, &[])
}

/// [`misbehaving_server`] with more arguments after the mode.
fn misbehaving_server_with(
    mode: &str,
    more: &[&str],
) -> (Process, String, Arc<Mutex<Vec<String>>>) {
    let port = free_port();
    let mut process = Process::spawn(
        Command::new("python3")
            .arg(common::mcp::script("misbehaving_server.py"))
            .args([&port.to_string(), mode])
            .args(more)
            .stdout(Stdio::piped()),
    );
    let stdout = process.0.stdout.take().expect("piped stdout");
    let methods = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&methods);
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            seen.lock().expect("not poisoned").push(line);
        }
    });
    wait_for_port(&mut process, port);
    (process, format!("http://127.0.0.1:{port}/mcp"), methods)
}

/// How many requests of `method` the scripted server printed, once its output has settled.
fn count(methods: &Mutex<Vec<String>>, method: &str) -> usize {
    std::thread::sleep(Duration::from_millis(200));
    let methods = methods.lock().expect("not poisoned");
    methods.iter().filter(|seen| *seen == method).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_paginates_forever_is_read_for_a_hundred_pages_then_refused() {
    let (_server, url, methods) = misbehaving_server("paginate");
    let err = McpClient::connect(McpTransport::http(url.as_str()))
        .await
        .expect_err("an endless listing fails the connection");
    assert!(
        err.to_string()
            .contains("the server was still paginating after 100 pages of tools"),
        "{err}"
    );
    assert_eq!(count(&methods, "tools/list"), 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_list_changed_notices_costs_a_few_refreshes_not_one_each() {
    let (_server, url, methods) = misbehaving_server("flood");
    let client = McpClient::connect(McpTransport::http(url.as_str()))
        .await
        .expect("connect");
    let echo = tool(&client, "echo");
    assert_eq!(
        echo.acall(serde_json::json!({})).await.expect("a result"),
        "done"
    );
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let lists = count(&methods, "tools/list");
    // One at connect, then at most one each half second for 10,000 notices.
    assert!((2..=4).contains(&lists), "{lists} listings");
}

fn tool(client: &McpClient, name: &str) -> toolkit::ToolProxy {
    let found = client.tools().into_iter().find(|tool| tool.name() == name);
    found.unwrap_or_else(|| panic!("no tool {name}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_cut_by_a_bad_gateway_is_sent_again_only_for_an_idempotent_tool() {
    let (_server, url, methods) = misbehaving_server("fail-first");
    let client = McpClient::builder(McpTransport::http(url.as_str()))
        .reconnect(2, Duration::from_millis(10))
        .connect()
        .await
        .expect("connect");
    let echo = tool(&client, "echo").acall(serde_json::json!({})).await;
    assert_eq!(echo.expect("resent once"), "done");
    assert_eq!(count(&methods, "tools/call"), 2);
    let file = tool(&client, "file").acall(serde_json::json!({})).await;
    let err = file.expect_err("not resent").to_string();
    assert!(
        err.contains("it was not sent again because the tool is not marked idempotent"),
        "{err}"
    );
    assert_eq!(count(&methods, "tools/call"), 3);
}

#[derive(Default)]
struct Sleepy;

#[toolset(name = "sleepy")]
impl Sleepy {
    /// Sleep, then say so.
    #[tool]
    async fn nap(&self, ms: u64) -> String {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        "woke".to_owned()
    }

    /// Hang far longer than its timeout.
    #[tool(timeout_ms = 300)]
    async fn hang(&self) -> String {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        "never".to_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_over_the_concurrency_limit_are_told_the_server_is_busy_not_queued() {
    let server = McpServer::new(Sleepy::to_tools())
        .spawn_http(
            "127.0.0.1:0",
            HttpOptions::default().max_concurrent_calls(2),
        )
        .await
        .expect("serve");
    let client = McpClient::connect(McpTransport::http(server.url()))
        .await
        .expect("connect");
    let nap = tool(&client, "sleepy_nap");
    let running: Vec<_> = (0..2)
        .map(|_| {
            let nap = nap.clone();
            tokio::spawn(async move { nap.acall(serde_json::json!({"ms": 1500})).await })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let began = Instant::now();
    let refused = nap.acall(serde_json::json!({"ms": 1})).await;
    assert_eq!(
        refused.expect_err("busy").to_string(),
        "the server is busy: 2 tool calls are running, its limit; try again shortly"
    );
    assert!(
        began.elapsed() < Duration::from_millis(500),
        "answered at once"
    );
    for call in running {
        assert_eq!(call.await.expect("joined").expect("answered"), "woke");
    }
    let after = nap.acall(serde_json::json!({"ms": 1})).await;
    assert_eq!(after.expect("a place is free again"), "woke");
    server.shutdown().await.expect("graceful shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_tool_is_ended_by_its_timeout_and_frees_its_place() {
    let server = McpServer::new(Sleepy::to_tools())
        .spawn_http(
            "127.0.0.1:0",
            HttpOptions::default().max_concurrent_calls(1),
        )
        .await
        .expect("serve");
    let client = McpClient::connect(McpTransport::http(server.url()))
        .await
        .expect("connect");
    let began = Instant::now();
    let hung = tool(&client, "sleepy_hang")
        .acall(serde_json::json!({}))
        .await;
    let err = hung.expect_err("timed out").to_string();
    assert!(err.contains("300"), "{err}");
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "{:?}",
        began.elapsed()
    );
    let nap = tool(&client, "sleepy_nap")
        .acall(serde_json::json!({"ms": 1}))
        .await;
    assert_eq!(nap.expect("the only place is free again"), "woke");
    server.shutdown().await.expect("graceful shutdown");
}

/// How one client's calls ended through a server restart.
#[derive(Debug, Default)]
struct Tally {
    /// Ids of the calls answered with their own result.
    answered: Vec<String>,
    /// How many of those were sent once the new server was up.
    answered_after_restart: usize,
    /// Calls answered with another call's result.
    wrong: Vec<String>,
    /// Failed calls: id and error.
    failed: Vec<(String, String)>,
}

/// The arguments of call `id` of `tool` and the result it must get.
fn restart_call(tool: &str, id: &str) -> (serde_json::Value, serde_json::Value) {
    match tool {
        "text_extract_lines" => (
            serde_json::json!({"text": id, "start_line": 1}),
            serde_json::json!(format!("{id}\n")),
        ),
        _ => (
            serde_json::json!({"task": {"title": id, "assignee": "r"}, "priority": "high"}),
            serde_json::json!(format!("{id} -> r [High]")),
        ),
    }
}

/// Calls the idempotent `text_extract_lines` and the non-idempotent `task_assign` in turn, each
/// call with an id of its own, until `stop`.
async fn call_until_stopped(
    client: McpClient,
    index: usize,
    stop: Arc<std::sync::atomic::AtomicBool>,
    restarted: Arc<std::sync::atomic::AtomicBool>,
) -> Tally {
    use std::sync::atomic::Ordering::SeqCst;
    let mut tally = Tally::default();
    let mut call = 0;
    while !stop.load(SeqCst) {
        let name = ["text_extract_lines", "task_assign"][call % 2];
        let id = format!("c{index}-{call}");
        call += 1;
        let (arguments, expected) = restart_call(name, &id);
        let after_restart = restarted.load(SeqCst);
        match tool(&client, name).acall(arguments).await {
            Ok(value) if value == expected => {
                tally.answered.push(id);
                tally.answered_after_restart += usize::from(after_restart);
            }
            Ok(other) => tally.wrong.push(format!("{id}: {other}")),
            Err(err) => tally.failed.push((id, err.to_string())),
        }
    }
    tally
}

/// How many times the server ran each call, by `tool id`, from its `--call-log`.
fn runs(log: &std::path::Path) -> std::collections::HashMap<String, usize> {
    let text = std::fs::read_to_string(log).expect("the call log");
    let mut runs = std::collections::HashMap::new();
    for line in text.lines() {
        let (tool, arguments) = line.split_once(' ').expect("`tool arguments`");
        let arguments: serde_json::Value = serde_json::from_str(arguments).expect("JSON");
        let id = match tool {
            "text_extract_lines" => &arguments["text"],
            _ => &arguments["task"]["title"],
        };
        let id = id.as_str().expect("an id");
        *runs.entry(format!("{tool} {id}")).or_insert(0) += 1;
    }
    runs
}

const RESTART_CLIENTS: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_server_killed_and_restarted_under_load_is_reconnected_to_and_runs_no_call_twice()
{
    use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
    let log = common::examples::target_dir().join(format!("restart-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let log_flag = log.to_string_lossy().into_owned();
    let flags = ["--call-log", log_flag.as_str()];
    let (mut first, url) = example_http_server_with(None, &flags);
    let port = port_of(&url);
    let (stop, restarted) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    let mut running = Vec::new();
    for index in 0..RESTART_CLIENTS {
        let client = McpClient::builder(McpTransport::http(url.as_str()))
            .reconnect(8, Duration::from_millis(50))
            .timeout(Duration::from_secs(8))
            .connect()
            .await
            .expect("connect");
        let calls = call_until_stopped(client, index, Arc::clone(&stop), Arc::clone(&restarted));
        running.push(tokio::spawn(calls));
    }
    tokio::time::sleep(Duration::from_millis(1000)).await;
    // SIGKILL: the sessions and every call in flight die with the process.
    first.stop();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let flags: Vec<String> = flags.iter().map(|flag| flag.to_string()).collect();
    let (_second, _) = tokio::task::spawn_blocking(move || {
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        example_http_server_on(port, None, &flags)
    })
    .await
    .expect("started again");
    restarted.store(true, SeqCst);
    // A call cut by the kill waits for its stream to be resumed: at once, then after the
    // server's `retry` hint (3 s); then it fails, or is sent again.
    tokio::time::sleep(Duration::from_millis(4500)).await;
    stop.store(true, SeqCst);
    let mut tallies = Vec::new();
    for calls in running {
        tallies.push(calls.await.expect("joined"));
    }
    let runs = runs(&log);
    let _ = std::fs::remove_file(&log);
    for tally in &tallies {
        assert_eq!(tally.wrong, Vec::<String>::new());
        // The new server knows none of the old sessions: answers from it mean a new session.
        assert!(tally.answered_after_restart > 0, "{tally:?}");
        for (id, err) in &tally.failed {
            // Only a call of the non-idempotent tool cut by the kill may fail, and clearly.
            assert!(
                err.contains(
                    "the connection to the MCP server failed during the call to task_assign"
                ) && err
                    .contains("it was not sent again because the tool is not marked idempotent"),
                "{id}: {err}"
            );
            assert!(runs.get(&format!("task_assign {id}")).copied().unwrap_or(0) <= 1);
        }
        assert!(tally.failed.len() <= 1, "{tally:?}");
        for id in &tally.answered {
            let idempotent = runs.get(&format!("text_extract_lines {id}")).copied();
            let other = runs.get(&format!("task_assign {id}")).copied();
            match (idempotent, other) {
                // Resent at most once, and only if the first one may have been cut by the kill.
                (Some(1 | 2), None) | (None, Some(1)) => {}
                counts => panic!("{id} ran {counts:?} times"),
            }
        }
    }
    let resent = runs.values().filter(|count| **count > 1).count();
    assert!(resent <= RESTART_CLIENTS, "{resent} calls ran twice");
    eprintln!(
        "answered {}, failed {}, run twice (idempotent) {resent}",
        tallies.iter().map(|t| t.answered.len()).sum::<usize>(),
        tallies.iter().map(|t| t.failed.len()).sum::<usize>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_over_the_bound_fails_its_call_at_once_and_is_not_sent_again() {
    let (_server, url, methods) = misbehaving_server_with("huge-json", &["200000"]);
    let client = McpClient::builder(McpTransport::http(url.as_str()))
        .max_message_bytes(64 << 10)
        .connect()
        .await
        .expect("connect");
    // `echo` is idempotent, so a dropped connection would have been retried.
    let err = tool(&client, "echo")
        .acall(serde_json::json!({}))
        .await
        .expect_err("over the bound");
    assert_eq!(
        err.to_string(),
        "the MCP server's answer is larger than the 65536 bytes this client accepts \
         (`max_message_bytes`); it was dropped"
    );
    assert_eq!(count(&methods, "tools/call"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listing_over_its_tool_or_byte_bound_fails_the_connection_as_pages_arrive() {
    let (_server, url, methods) = misbehaving_server("paginate");
    let err = McpClient::builder(McpTransport::http(url.as_str()))
        .max_tools(9)
        .connect()
        .await
        .expect_err("too many tools");
    assert_eq!(
        err.to_string(),
        format!(
            "the MCP server {url} failed tools/list: the server listed more than 9 tools (`max_tools`)"
        )
    );
    // Two tools a page: the fifth page passed the bound, and no sixth was asked for.
    assert_eq!(count(&methods, "tools/list"), 5);
    let err = McpClient::builder(McpTransport::http(url.as_str()))
        .max_listing_bytes(1000)
        .connect()
        .await
        .expect_err("too many bytes");
    assert_eq!(
        err.to_string(),
        format!(
            "the MCP server {url} failed tools/list: the server's tools take more than 1000 bytes (`max_listing_bytes`)"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_whose_schema_is_over_the_bound_is_left_out_and_the_others_kept() {
    let (_server, url, _) = misbehaving_server("wide-schema");
    let client = McpClient::builder(McpTransport::http(url.as_str()))
        .max_schema_bytes(10_000)
        .connect()
        .await
        .expect("connect");
    assert_eq!(client.tool_names(), ["echo"]);
    let client = McpClient::connect(McpTransport::http(url.as_str()))
        .await
        .expect("connect");
    assert_eq!(client.tool_names(), ["echo", "file"]);
}
