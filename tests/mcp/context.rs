//! A served tool's context against a real MCP client (rmcp's, in this process, on loopback):
//! cancellation by `notifications/cancelled`, progress with the request's token, logs at the
//! level the client set, sampling and elicitation answered by the client's handlers, and the
//! caller and headers of an HTTP request.
//!
//! The client's notification handlers run as tasks spawned in the order the messages arrive;
//! on a current-thread runtime they run in that order too, so what they record is the wire's
//! order. Where the order is the claim, the stdio tests also read the bytes themselves.

#![allow(deprecated)] // rmcp 3.11 marks sampling and logging deprecated for a future revision.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientInfo, ClientRequest,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, Role, SamplingMessage, SamplingMessageContentBlock,
    SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolkit::context::{Caller, Data, LogLevel};
use toolkit::mcp::{HttpOptions, McpServer, rmcp};
use toolkit::prelude::*;

use crate::common::memory::resident_kb;

/// A client that records what the server sends it and answers sampling and elicitation.
#[derive(Clone, Default)]
struct Recorder {
    seen: Arc<Mutex<Vec<String>>>,
    /// Declare the `sampling` and `elicitation` capabilities.
    capable: bool,
}

impl Recorder {
    fn capable() -> Self {
        Recorder {
            capable: true,
            ..Self::default()
        }
    }

    fn record(&self, line: String) {
        self.seen.lock().unwrap().push(line);
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientInfo {
        let declared = match self.capable {
            true => json!({"sampling": {}, "elicitation": {}}),
            false => json!({}),
        };
        let capabilities: ClientCapabilities = serde_json::from_value(declared).unwrap();
        ClientInfo::new(capabilities, Implementation::new("recorder", "1"))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let asked = serde_json::to_value(&params.messages).unwrap();
        let prompt = asked[0]["content"]["text"]
            .as_str()
            .unwrap_or("?")
            .to_owned();
        self.record(format!("sampling: {prompt} (max {})", params.max_tokens));
        let reply = SamplingMessage::new(
            Role::Assistant,
            SamplingMessageContentBlock::text(format!("summary of {prompt}")),
        );
        Ok(CreateMessageResult::new(reply, "client-model".to_owned()))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let asked = serde_json::to_value(&request).unwrap();
        self.record(format!(
            "elicitation: {}",
            asked["message"].as_str().unwrap_or("?")
        ));
        Ok(ElicitResult::new(ElicitationAction::Decline))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.record(format!("progress {}/{:?}", params.progress, params.total));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.record(format!("log {:?}: {}", params.level, params.data));
    }
}

/// When the slow tool started, and when its future was dropped.
#[derive(Default)]
struct Stops {
    started: tokio::sync::Notify,
    dropped: Mutex<Option<Instant>>,
}

/// Records the moment the future holding it is dropped.
struct DropClock(Arc<Stops>);

impl Drop for DropClock {
    fn drop(&mut self) {
        *self.0.dropped.lock().unwrap() = Some(Instant::now());
    }
}

fn tools(stops: Arc<Stops>) -> Vec<ToolProxy> {
    let slow = ToolBuilder::new("slow")
        .description("Waits a minute unless cancelled")
        .build_async_with_context(move |_args, _ctx| {
            let stops = Arc::clone(&stops);
            async move {
                let _clock = DropClock(Arc::clone(&stops));
                stops.started.notify_one();
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok::<_, String>("finished")
            }
        })
        .unwrap();
    let steps = ToolBuilder::new("steps")
        .description("Reports progress `count` times")
        .parameters(json!({"type": "object", "properties": {"count": {"type": "integer"}}}))
        .build_async_with_context(|args, ctx| async move {
            let count = args["count"].as_u64().unwrap_or(0) as f64;
            for done in 1..=count as u64 {
                ctx.progress(done as f64, Some(count), format!("step {done}"));
            }
            ctx.log(LogLevel::Debug, "debug detail");
            ctx.warning("steps done");
            Ok::<_, String>(format!("{count} steps"))
        })
        .unwrap();
    let summarise = ToolBuilder::new("summarise")
        .description("Asks the client's model")
        .build_async_with_context(|_args, ctx| async move {
            match ctx.sample("the page").await {
                Ok(reply) => Ok(format!("{} by {}", reply.text().unwrap_or(""), reply.model)),
                Err(err) => Err(err.to_string()),
            }
        })
        .unwrap();
    let confirm = ToolBuilder::new("confirm")
        .description("Asks the user to confirm")
        .build_async_with_context(|_args, ctx| async move {
            let answer = ctx.elicit::<Confirm>("Delete everything?").await;
            Ok::<_, String>(format!("{answer:?}"))
        })
        .unwrap();
    let whoami = ToolBuilder::new("whoami")
        .description("Who is calling")
        .build_with_context(|_args, ctx| {
            Ok::<_, String>(json!({
                "caller": ctx.caller().map(|caller| caller.principal.clone()),
                "agent": ctx.headers().and_then(|h| h.get("x-agent")).and_then(|v| v.to_str().ok()),
                "session": ctx.session_id().is_some(),
                "region": ctx.data::<Region>().map(|region| region.0),
            }))
        })
        .unwrap();
    vec![slow, steps, summarise, confirm, whoami]
}

#[derive(serde::Deserialize, toolkit::schemars::JsonSchema, Debug)]
#[allow(dead_code)]
struct Confirm {
    sure: bool,
}

struct Region(&'static str);

fn server(stops: Arc<Stops>) -> McpServer {
    McpServer::new(tools(stops)).with_data(Data::new().with(Region("eu")))
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().cloned().unwrap_or_default())
}

async fn text_of(client: &RunningService<RoleClient, Recorder>, name: &str, args: Value) -> String {
    let result = client.call_tool(call(name, args)).await.expect("the call");
    let content = serde_json::to_value(&result.content).unwrap();
    content[0]["text"].as_str().unwrap_or_default().to_owned()
}

async fn http_client(url: String, recorder: Recorder) -> RunningService<RoleClient, Recorder> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url).auth_header("s3cret");
    config.custom_headers.insert(
        reqwest::header::HeaderName::from_static("x-agent"),
        reqwest::header::HeaderValue::from_static("ada"),
    );
    let transport = StreamableHttpClientTransport::from_config(config);
    recorder.serve(transport).await.expect("initialize")
}

/// A server over in-memory pipes, its output also written to `wire` line by line, and a
/// client on the other end.
async fn stdio_pair(
    server: McpServer,
    recorder: Recorder,
) -> (
    RunningService<RoleClient, Recorder>,
    Arc<Mutex<Vec<String>>>,
) {
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, tee_in) = tokio::io::duplex(1 << 16);
    let (mut tee_out, client_in) = tokio::io::duplex(1 << 16);
    let wire = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&wire);
    tokio::spawn(async move {
        let mut lines = BufReader::new(tee_in).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            seen.lock().unwrap().push(line.clone());
            let _ = tee_out.write_all(format!("{line}\n").as_bytes()).await;
        }
    });
    let (read, _unused) = tokio::io::split(server_in);
    let (_unused, write) = tokio::io::split(server_out);
    tokio::spawn(server.serve_io(read, write));
    let (client_read, _unused) = tokio::io::split(client_in);
    let (_unused, client_write) = tokio::io::split(client_out);
    let client = recorder
        .serve((client_read, client_write))
        .await
        .expect("initialize");
    (client, wire)
}

/// Starts `slow`, cancels it once it runs, and gives the time from the cancellation to the
/// tool's future being dropped, and the request's id.
async fn cancel_slow(
    client: &RunningService<RoleClient, Recorder>,
    stops: &Stops,
) -> (Duration, Value) {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call("slow", json!({}))));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("sent");
    let id = serde_json::to_value(&handle.id).unwrap();
    stops.started.notified().await;
    let cancelled = Instant::now();
    handle
        .cancel(Some("the user pressed stop".into()))
        .await
        .expect("cancel sent");
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        if let Some(dropped) = *stops.dropped.lock().unwrap() {
            return (dropped.saturating_duration_since(cancelled), id);
        }
        assert!(
            Instant::now() < deadline,
            "the cancelled tool still runs after 2 s"
        );
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

#[tokio::test]
async fn an_async_tool_cancelled_by_the_client_stops_within_50_ms_and_gets_no_result_over_stdio() {
    let stops = Arc::new(Stops::default());
    let (client, wire) = stdio_pair(server(Arc::clone(&stops)), Recorder::default()).await;
    let (stopped_in, id) = cancel_slow(&client, &stops).await;
    println!(
        "stdio: the cancelled tool's future was dropped {stopped_in:?} after the client's notifications/cancelled"
    );
    assert!(stopped_in < Duration::from_millis(50), "{stopped_in:?}");
    // The server still answers, and what it wrote never answered the cancelled request.
    assert_eq!(
        text_of(&client, "steps", json!({"count": 1})).await,
        "1 steps"
    );
    let answered = |line: &&String| {
        let message: Value = serde_json::from_str(line).unwrap_or_default();
        message["id"] == id && (message.get("result").is_some() || message.get("error").is_some())
    };
    let wire = wire.lock().unwrap().clone();
    assert_eq!(wire.iter().filter(answered).count(), 0, "{wire:#?}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_call_the_client_cancels_ends_as_cancelled_through_the_after_call_hooks() {
    let stops = Arc::new(Stops::default());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let hook_seen = Arc::clone(&seen);
    let toolbox = Toolbox::builder()
        .tools("test", tools(Arc::clone(&stops)))
        .after_call(move |_, result| {
            let kind = result.error().map(|err| err.kind().as_str());
            hook_seen
                .lock()
                .unwrap()
                .push((result.name.clone(), kind, result.value.clone()));
        })
        .build()
        .expect("toolbox");
    let (client, _wire) = stdio_pair(McpServer::from_toolbox(toolbox), Recorder::default()).await;
    cancel_slow(&client, &stops).await;
    let deadline = Instant::now() + Duration::from_secs(2);
    while seen.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "no hook saw the cancelled call");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(
        seen.lock().unwrap().clone(),
        [(
            "slow".to_owned(),
            Some("cancelled"),
            json!("Error: the call to slow was cancelled: the client sent notifications/cancelled")
        )]
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn an_async_tool_cancelled_by_the_client_stops_within_50_ms_over_http() {
    let stops = Arc::new(Stops::default());
    let options = HttpOptions::default().bearer_token("s3cret");
    let handle = server(Arc::clone(&stops))
        .spawn_http("127.0.0.1:0", options)
        .await
        .unwrap();
    let client = http_client(handle.url(), Recorder::default()).await;
    let (stopped_in, _) = cancel_slow(&client, &stops).await;
    println!(
        "http: the cancelled tool's future was dropped {stopped_in:?} after the client's notifications/cancelled"
    );
    assert!(stopped_in < Duration::from_millis(50), "{stopped_in:?}");
    assert_eq!(
        text_of(&client, "steps", json!({"count": 1})).await,
        "1 steps"
    );
    client.cancel().await.expect("close");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_latest_progress_arrives_before_the_result_over_stdio() {
    let (client, wire) = stdio_pair(server(Arc::default()), Recorder::default()).await;
    let result = text_of(&client, "steps", json!({"count": 50})).await;
    assert_eq!(result, "50 steps");
    let wire = wire.lock().unwrap().clone();
    let methods: Vec<String> = wire
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| {
            message["method"] == "notifications/progress" || message["result"]["content"].is_array()
        })
        .map(|message| match message["params"]["progress"].as_f64() {
            Some(progress) => format!("progress {progress}"),
            None => "result".to_owned(),
        })
        .collect();
    // The tool reports all fifty in one go, before the queue's sender runs: a newer progress
    // replaces the one still waiting, so the client hears where the call is, once.
    println!(
        "stdio: {} progress notifications on the wire, in order, then the result",
        methods.len() - 1
    );
    assert_eq!(methods, ["progress 50", "result"]);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn the_latest_progress_and_the_logs_reach_an_http_client_before_the_result() {
    let options = HttpOptions::default().bearer_token("s3cret");
    let handle = server(Arc::default())
        .spawn_http("127.0.0.1:0", options)
        .await
        .unwrap();
    let recorder = Recorder::default();
    let client = http_client(handle.url(), recorder.clone()).await;
    client
        .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .unwrap();
    let result = text_of(&client, "steps", json!({"count": 20})).await;
    let seen_at_result = recorder.seen();
    assert_eq!(result, "20 steps");
    let progress: Vec<String> = seen_at_result
        .iter()
        .filter(|line| line.starts_with("progress"))
        .cloned()
        .collect();
    println!(
        "http: {} of 20 progress notifications handled when the result came",
        progress.len()
    );
    // Reported in one go, the twenty are coalesced to the latest.
    assert_eq!(progress, ["progress 20/Some(20.0)"]);
    // Logs go on the session's stream: give it a moment. The debug line is under the level.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let logs: Vec<String> = recorder
        .seen()
        .into_iter()
        .filter(|line| line.starts_with("log"))
        .collect();
    assert_eq!(logs, [r#"log Warning: "steps done""#]);
    client.cancel().await.expect("close");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_tools_sampling_request_reaches_the_client_and_its_answer_comes_back() {
    let (client, _wire) = stdio_pair(server(Arc::default()), Recorder::capable()).await;
    let result = text_of(&client, "summarise", json!({})).await;
    println!("sampling: the tool got {result:?}");
    assert_eq!(result, "summary of the page by client-model");
    assert_eq!(client.service().seen(), ["sampling: the page (max 1024)"]);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_declined_elicitation_reaches_the_tool_as_declined() {
    let (client, _wire) = stdio_pair(server(Arc::default()), Recorder::capable()).await;
    let result = text_of(&client, "confirm", json!({})).await;
    println!("elicitation: the tool got {result}");
    assert_eq!(result, "Ok(Declined)");
    assert_eq!(client.service().seen(), ["elicitation: Delete everything?"]);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn sampling_and_elicitation_without_the_client_capability_are_clear_errors() {
    let (client, _wire) = stdio_pair(server(Arc::default()), Recorder::default()).await;
    let result = client
        .call_tool(call("summarise", json!({})))
        .await
        .unwrap();
    let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
    println!("sampling without the capability: {text}");
    assert_eq!(result.is_error, Some(true));
    assert!(
        text.as_str().unwrap().contains(
            "sampling is not available to tool `summarise`: the MCP client did not declare the `sampling` capability"
        ),
        "{text}"
    );
    let elicited = text_of(&client, "confirm", json!({})).await;
    assert!(
        elicited.contains("did not declare the `elicitation` capability"),
        "{elicited}"
    );
    assert!(client.service().seen().is_empty());
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_tool_reads_the_caller_the_headers_the_session_and_the_servers_data_over_http() {
    let options = HttpOptions::default()
        .bearer_token("s3cret")
        .bearer_caller(Caller::new("ci-bot"));
    let handle = server(Arc::default())
        .spawn_http("127.0.0.1:0", options)
        .await
        .unwrap();
    let client = http_client(handle.url(), Recorder::default()).await;
    let result = client.call_tool(call("whoami", json!({}))).await.unwrap();
    let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
    let seen: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
    assert_eq!(
        seen,
        json!({"caller": "ci-bot", "agent": "ada", "session": true, "region": "eu"})
    );
    client.cancel().await.expect("close");
    handle.shutdown().await.unwrap();
}

/// A tool that reports progress a million times and logs 100,000 lines in one go: the client
/// hears the latest progress once, the first 1,024 log lines, and one warning counting the
/// 98,976 dropped, then the result; nothing of it waits unbounded in the server.
#[tokio::test]
async fn a_flood_of_progress_and_logs_is_coalesced_and_bounded_before_the_result() {
    let flood = ToolBuilder::new("flood")
        .description("Reports a million times")
        .build_async_with_context(|_args, ctx| async move {
            for done in 1..=1_000_000u32 {
                ctx.progress(f64::from(done), Some(1e6), "");
                if done % 10 == 0 {
                    ctx.info(format!("line {done}"));
                }
            }
            Ok::<_, String>("flooded")
        })
        .unwrap();
    let before = resident_kb();
    let (client, wire) = stdio_pair(McpServer::new(vec![flood]), Recorder::default()).await;
    assert_eq!(text_of(&client, "flood", json!({})).await, "flooded");
    let after = resident_kb();
    println!("resident memory: {before:?} kB before, {after:?} kB after the flood");
    let wire = wire.lock().unwrap().clone();
    let messages: Vec<Value> = wire
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["method"] != Value::Null || message["result"] != Value::Null)
        .collect();
    let progress: Vec<&Value> = messages
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .map(|message| &message["params"]["progress"])
        .collect();
    assert_eq!(progress, [&json!(1_000_000.0)]);
    let logs: Vec<&Value> = messages
        .iter()
        .filter(|message| message["method"] == "notifications/message")
        .map(|message| &message["params"])
        .collect();
    assert_eq!(logs.len(), 1025);
    assert_eq!(logs[0]["data"], "line 10");
    assert_eq!(logs[1023]["data"], "line 10240");
    assert_eq!(
        logs[1024],
        &json!({"level": "warning", "logger": "flood", "data": "98976 log messages of this \
            call were dropped: more than 1024 (or 1048576 bytes) were waiting to be sent"})
    );
    let last = messages.last().expect("messages");
    assert_eq!(last["result"]["content"][0]["text"], "flooded", "{last}");
    client.cancel().await.expect("close");
}
