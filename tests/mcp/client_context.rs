//! toolkit's MCP client against a real rmcp server on loopback (Streamable HTTP): a remote
//! server's progress and logs reach the calling tool's context, a dropped, timed-out or
//! cancelled call is cancelled on the server, the client answers the server's sampling and
//! elicitation requests (declaring each capability only when it can), and every content kind
//! of a remote result comes back as the runtime's content types, bytes intact.

pub(crate) mod remote;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolkit::context::{
    CallScope, Cancellation, ElicitationAnswer, ElicitationRequest, LogLevel, Progress, ToolHost,
};
use toolkit::mcp::{HttpOptions, McpClient, McpClientBuilder, McpServer, McpTransport};
use toolkit::models::{Message, ModelReply, ScriptedModel};
use toolkit::prelude::*;
use toolkit::{ToolErrorKind, ToolProxy};

use remote::Remote;

fn tool(client: &McpClient, name: &str) -> ToolProxy {
    client
        .tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn builder(remote: &Remote) -> McpClientBuilder {
    McpClient::builder(McpTransport::http(remote.url()))
}

/// What a calling tool's context was told, in order.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl ToolHost for Recorder {
    fn progress(&self, ctx: &ToolContext, progress: Progress) {
        let line = format!(
            "{} progress {}/{} {}",
            ctx.tool_name(),
            progress.done,
            progress.total.unwrap_or(f64::NAN),
            progress.message.unwrap_or_default()
        );
        self.0.lock().unwrap().push(line);
    }

    fn log(&self, ctx: &ToolContext, level: LogLevel, message: &str) {
        let line = format!("{} log {} {message}", ctx.tool_name(), level.as_str());
        self.0.lock().unwrap().push(line);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_progress_and_logs_reach_the_calling_context_in_order_before_the_result() {
    let remote = Remote::start().await;
    let client = builder(&remote).connect().await.expect("connect");
    let count = tool(&client, "count");
    assert!(count.takes_context());
    assert!(count.returns_content());
    // Many runs of many notifications: rmcp handles each notification in a task of its own,
    // so order (and arrival before the result) holds only because the client reads them off
    // the transport itself.
    let (runs, steps) = (20, 100);
    for _ in 0..runs {
        let recorder = Arc::new(Recorder::default());
        let scope = CallScope::new().host(recorder.clone());
        let result = scope.run(count.acall(json!({"n": steps}))).await;
        assert_eq!(result.unwrap(), json!(format!("counted to {steps}")));
        let (logs, progress): (Vec<String>, Vec<String>) = recorder
            .events()
            .into_iter()
            .partition(|event| event.contains(" log "));
        let expected: Vec<String> = (1..=steps)
            .map(|i| format!("count progress {i}/{steps} step {i}"))
            .collect();
        assert_eq!(progress, expected);
        // rmcp's Streamable HTTP server sends log messages on its standalone stream, not the
        // call's, so where a log falls among the progress is not the protocol's to say; the
        // server sends it first, and it is in the context before the result.
        assert_eq!(
            logs,
            [format!("count log info [count] counting to {steps}")]
        );
    }
    eprintln!(
        "figure: {runs} calls x {steps} remote progress notifications, each call's progress in \
         order and its log message in its context before its result"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_asks_for_logs_at_its_level_only_when_told() {
    let remote = Remote::start().await;
    let _plain = builder(&remote).connect().await.expect("connect");
    assert_eq!(remote.level(), None);
    let _asking = builder(&remote)
        .log_level(LogLevel::Warning)
        .connect()
        .await
        .expect("connect");
    assert_eq!(remote.level().as_deref(), Some("warning"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_call_is_cancelled_on_the_server() {
    let remote = Remote::start().await;
    let client = builder(&remote).connect().await.expect("connect");
    let wait = tool(&client, "wait");
    let call = tokio::spawn(async move { wait.acall(json!({})).await });
    remote.started().await;
    let dropped = Instant::now();
    call.abort();
    let seen = remote.cancelled().await;
    let took = seen.duration_since(dropped);
    eprintln!(
        "figure: the server saw notifications/cancelled {} us after the call was dropped",
        took.as_micros()
    );
    assert!(took < Duration::from_millis(500), "took {took:?}");
    // The session is still usable.
    let count = tool(&client, "count");
    assert_eq!(
        count.acall(json!({"n": 1})).await.unwrap(),
        json!("counted to 1")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_remote_call_ends_as_timed_out_and_is_cancelled_on_the_server() {
    let remote = Remote::start().await;
    let client = builder(&remote)
        .timeout(Duration::from_millis(300))
        .connect()
        .await
        .expect("connect");
    let began = Instant::now();
    let wait = tool(&client, "wait");
    let toolbox = Toolbox::builder().tool(wait).build().expect("toolbox");
    let result = toolbox.acall(&ToolCall::new("wait", json!({}))).await;
    assert_eq!(
        result.error().map(ToolError::kind),
        Some(ToolErrorKind::TimedOut)
    );
    assert_eq!(
        result.value,
        json!(
            "Error: tool wait did not finish within its time limit of 300 ms and the call was \
             abandoned; try a smaller request or a different approach"
        )
    );
    let seen = remote.cancelled().await;
    let after = seen.duration_since(began);
    eprintln!(
        "figure: with a 300 ms timeout the server saw notifications/cancelled {} ms after the call began",
        after.as_millis()
    );
    assert!(after >= Duration::from_millis(300) && after < Duration::from_millis(800));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_call_cancelled_by_its_caller_ends_as_cancelled_and_is_cancelled_on_the_server() {
    let remote = Remote::start().await;
    let client = builder(&remote).connect().await.expect("connect");
    let token = Cancellation::new();
    let scope = CallScope::new().cancellation(token.clone());
    let toolbox = Toolbox::builder()
        .tool(tool(&client, "wait"))
        .build()
        .expect("toolbox");
    let call = tokio::spawn(
        scope.run(async move { toolbox.acall(&ToolCall::new("wait", json!({}))).await }),
    );
    remote.started().await;
    let cancelled = Instant::now();
    token.cancel();
    let seen = remote.cancelled().await;
    let result = call.await.expect("the call's task");
    assert_eq!(
        result.error().map(ToolError::kind),
        Some(ToolErrorKind::Cancelled)
    );
    assert_eq!(
        result.value,
        json!(
            "Error: the call to wait was cancelled: its caller stopped it, and the MCP server \
             was told to stop too"
        )
    );
    eprintln!(
        "figure: the server saw notifications/cancelled {} us after the context was cancelled",
        seen.duration_since(cancelled).as_micros()
    );
    assert!(seen.duration_since(cancelled) < Duration::from_millis(500));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clients_model_answers_the_servers_sampling_request() {
    let remote = Remote::start().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let heard = Arc::clone(&seen);
    let model = ScriptedModel::from_fn(move |request| {
        heard
            .lock()
            .unwrap()
            .extend(request.messages.iter().cloned());
        Ok(ModelReply::text("The sky is blue."))
    });
    let client = builder(&remote)
        .sampling_model(model)
        .connect()
        .await
        .expect("connect");
    let answer = tool(&client, "ask_model").acall(json!({})).await.unwrap();
    assert_eq!(answer, json!("model scripted said: The sky is blue."));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            Message::system("Be brief."),
            Message::user("Summarise: the sky is blue today.")
        ]
    );
    eprintln!("figure: sampling/createMessage answered by the client's ChatModel: {answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clients_elicitation_handler_answers() {
    let remote = Remote::start().await;
    let asked = Arc::new(Mutex::new(Vec::<ElicitationRequest>::new()));
    let heard = Arc::clone(&asked);
    let client = builder(&remote)
        .on_elicit(move |request: ElicitationRequest| {
            let decline = request.message.contains("delete");
            heard.lock().unwrap().push(request);
            async move {
                if decline {
                    ElicitationAnswer::Decline
                } else {
                    ElicitationAnswer::Accept(json!({"name": "Ada", "confirm": true}))
                }
            }
        })
        .connect()
        .await
        .expect("connect");
    let ask = tool(&client, "ask_user");
    let accepted = ask.acall(json!({"message": "Who are you?"})).await.unwrap();
    assert_eq!(accepted, json!(r#"accept {"name":"Ada","confirm":true}"#));
    let declined = ask
        .acall(json!({"message": "May I delete it?"}))
        .await
        .unwrap();
    assert_eq!(declined, json!("decline"));
    let asked = asked.lock().unwrap();
    assert_eq!(asked[0].message, "Who are you?");
    assert_eq!(
        asked[0].requested_schema["properties"]["name"]["type"],
        json!("string")
    );
    assert_eq!(asked[0].requested_schema["required"], json!(["name"]));
    eprintln!("figure: elicitation/create answered {accepted} and {declined}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_are_declared_only_with_a_handler() {
    let remote = Remote::start().await;
    let plain = builder(&remote).connect().await.expect("connect");
    let declared = tool(&plain, "capabilities").acall(json!({})).await.unwrap();
    let declared: Value = serde_json::from_str(declared.as_str().unwrap()).unwrap();
    assert!(declared.get("sampling").is_none(), "{declared}");
    assert!(declared.get("elicitation").is_none(), "{declared}");
    // A server that asks anyway is refused.
    let refused = tool(&plain, "ask_model").dynamic_acall(json!({})).await;
    assert!(
        refused
            .as_str()
            .unwrap()
            .contains("does not answer sampling"),
        "{refused}"
    );

    let both = builder(&remote)
        .sampling_model(ScriptedModel::new([]))
        .on_elicit(|_: ElicitationRequest| async { ElicitationAnswer::Cancel })
        .connect()
        .await
        .expect("connect");
    let declared = tool(&both, "capabilities").acall(json!({})).await.unwrap();
    let declared: Value = serde_json::from_str(declared.as_str().unwrap()).unwrap();
    assert_eq!(declared["sampling"], json!({}));
    assert_eq!(declared["elicitation"], json!({"form": {}}));
    eprintln!("figure: capabilities declared without handlers: none; with both: {declared}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_result_round_trips_byte_exact() {
    let remote = Remote::start().await;
    let client = builder(&remote).connect().await.expect("connect");
    let value = tool(&client, "image").acall(json!({})).await.unwrap();
    let output = ToolOutput::from_value(value);
    let [Content::Image(image)] = output.content.as_slice() else {
        panic!("not one image: {output:?}");
    };
    assert_eq!(image.mime_type, "image/png");
    let bytes = image.bytes().expect("base64");
    assert_eq!(bytes, remote::image_bytes());
    eprintln!(
        "figure: {} image bytes -> base64 -> server -> client -> ToolOutput -> {} bytes, equal",
        remote::image_bytes().len(),
        bytes.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_content_kind_maps_to_the_runtime_types() {
    let remote = Remote::start().await;
    let client = builder(&remote).connect().await.expect("connect");
    let value = tool(&client, "everything").acall(json!({})).await.unwrap();
    let output = ToolOutput::from_value(value);
    let expected = ToolOutput::new()
        .with(Content::text("all of it"))
        .with(Image::png(remote::image_bytes()))
        .with(Audio::wav([1, 2, 3]))
        .with(Resource::text("file:///a.md", "text/markdown", "# A"))
        .with(Resource::bytes(
            "file:///b.bin",
            "application/octet-stream",
            [0, 255],
        ))
        .with(ResourceLink::new("file:///c.csv", "c.csv").mime_type("text/csv"))
        .structured(json!({"kinds": 6}));
    assert_eq!(output, expected);

    let failed = tool(&client, "fail").dynamic_acall(json!({})).await;
    assert_eq!(failed, json!("Error: it broke"));
    eprintln!(
        "figure: text, image, audio, 2 resources, resource_link and structuredContent: {} blocks equal",
        output.content.len()
    );
}

/// An rmcp client of `server`'s Streamable HTTP endpoint calls `name`; its answer as JSON.
async fn call_through(server: McpServer, name: &str) -> Value {
    use toolkit::mcp::rmcp::ServiceExt;
    use toolkit::mcp::rmcp::model::CallToolRequestParams;
    use toolkit::mcp::rmcp::transport::StreamableHttpClientTransport;
    let served = server
        .spawn_http("127.0.0.1:0", HttpOptions::default())
        .await
        .expect("serve");
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(served.url()))
            .await
            .expect("initialize");
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_owned()))
        .await
        .expect("a result");
    client.cancel().await.expect("close");
    served.shutdown().await.expect("graceful shutdown");
    serde_json::to_value(result).expect("JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_served_remote_tools_structured_content_and_meta_reach_the_client_unchanged() {
    let remote = Remote::start().await;
    let client = builder(&remote).connect().await.expect("connect");
    let structured = tool(&client, "structured");
    // The model reads the text; the remote result rides beside it.
    assert_eq!(
        structured.acall(json!({})).await.unwrap(),
        json!("{\"n\":1}")
    );
    let answer = call_through(McpServer::new(client.tools()), "structured").await;
    assert_eq!(answer, remote::structured());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_changes_a_remote_result_is_what_the_client_gets() {
    let remote = Remote::start().await;
    let client = builder(&remote).connect().await.expect("connect");
    let toolbox = Toolbox::builder()
        .tools("remote", client.tools())
        .after_call(|_, result| result.value = json!("rewritten"))
        .build()
        .expect("toolbox");
    let answer = call_through(McpServer::from_toolbox(toolbox), "structured").await;
    assert_eq!(
        answer,
        json!({"content": [{"type": "text", "text": "rewritten"}], "isError": false})
    );
}
