//! The remote server of `tests/mcp/client_context.rs`: written with rmcp alone, so what the
//! client is tested against is the protocol, not toolkit's own server; a 2025-11-25 one. Its tools report
//! progress and logs, wait to be cancelled, ask the client's model and user, and return every
//! kind of content.

// Sampling and logging are deprecated in rmcp (SEP-2577); the test exercises them on purpose.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, ElicitRequest,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ServerCapabilities, ServerConfig, ServerRequest, SetLevelRequestParams, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use tokio::sync::{Mutex, mpsc};

/// The PNG-typed bytes the `image` tool returns: every byte value, several times over.
pub fn image_bytes() -> Vec<u8> {
    (0..=255u8).cycle().take(10_000).collect()
}

/// Base64, as toolkit's content types write it (no base64 crate of the suite's own).
fn base64(bytes: &[u8]) -> String {
    toolkit::Image::new(bytes, "application/octet-stream").data
}

/// Serves `handler` over Streamable HTTP at `http://127.0.0.1:PORT/mcp`, a free port: its URL,
/// and the task serving it (abort it to stop).
pub async fn serve_on_loopback<H: ServerHandler + Clone>(
    handler: H,
) -> (String, tokio::task::JoinHandle<()>) {
    let service: StreamableHttpService<H, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::default(),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("an address");
    let router = axum::Router::new().nest_service("/mcp", service);
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (format!("http://{addr}/mcp"), task)
}

/// A running server, stopped when dropped, and what it saw.
pub struct Remote {
    url: String,
    seen: Arc<Seen>,
    started: Mutex<mpsc::UnboundedReceiver<()>>,
    cancelled: Mutex<mpsc::UnboundedReceiver<Instant>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Remote {
    pub async fn start() -> Remote {
        let (started_tx, started) = mpsc::unbounded_channel();
        let (cancelled_tx, cancelled) = mpsc::unbounded_channel();
        let seen = Arc::new(Seen {
            started: started_tx,
            cancelled: cancelled_tx,
            level: std::sync::Mutex::default(),
        });
        let handler = Handler {
            seen: Arc::clone(&seen),
        };
        let (url, task) = serve_on_loopback(handler).await;
        Remote {
            url,
            seen,
            started: Mutex::new(started),
            cancelled: Mutex::new(cancelled),
            task,
        }
    }

    /// The log level the client asked for, if it asked.
    pub fn level(&self) -> Option<String> {
        self.seen.level.lock().unwrap().clone()
    }

    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Waits until a `wait` call has started on the server.
    pub async fn started(&self) {
        let mut started = self.started.lock().await;
        tokio::time::timeout(std::time::Duration::from_secs(10), started.recv())
            .await
            .expect("the call started within 10 s")
            .expect("the server is running");
    }

    /// Waits until the server saw a `wait` call cancelled, and says when it did.
    pub async fn cancelled(&self) -> Instant {
        let mut cancelled = self.cancelled.lock().await;
        tokio::time::timeout(std::time::Duration::from_secs(10), cancelled.recv())
            .await
            .expect("the server saw the cancellation within 10 s")
            .expect("the server is running")
    }
}

struct Seen {
    started: mpsc::UnboundedSender<()>,
    cancelled: mpsc::UnboundedSender<Instant>,
    /// The level of the last `logging/setLevel`.
    level: std::sync::Mutex<Option<String>>,
}

#[derive(Clone)]
struct Handler {
    seen: Arc<Seen>,
}

fn tools() -> Vec<Tool> {
    let schema = |properties: Value| {
        let Value::Object(map) = json!({"type": "object", "properties": properties}) else {
            unreachable!()
        };
        Arc::new(map)
    };
    vec![
        Tool::new(
            "count",
            "Counts to n, reporting progress",
            schema(json!({"n": {"type": "integer"}})),
        ),
        Tool::new("wait", "Waits until cancelled", schema(json!({}))),
        Tool::new("ask_model", "Asks the client's model", schema(json!({}))),
        Tool::new(
            "ask_user",
            "Asks the client's user",
            schema(json!({"message": {"type": "string"}})),
        ),
        Tool::new(
            "capabilities",
            "The client's capabilities",
            schema(json!({})),
        ),
        Tool::new("image", "An image", schema(json!({}))),
        Tool::new("everything", "Every kind of content", schema(json!({}))),
        Tool::new("fail", "Fails", schema(json!({}))),
        Tool::new("structured", "Structured, with _meta", schema(json!({}))),
    ]
}

/// The `structured` tool's result: a text block with annotations, `structuredContent` and
/// `_meta`, none of which the value a model reads keeps.
pub fn structured() -> Value {
    json!({
        "content": [{"type": "text", "text": "{\"n\":1}", "annotations": {"priority": 0.5}}],
        "structuredContent": {"n": 1},
        "isError": false,
        "_meta": {"trace": "abc"}
    })
}

fn text(text: impl Into<String>) -> CallToolResult {
    result(json!({"content": [{"type": "text", "text": text.into()}]}))
}

fn result(value: Value) -> CallToolResult {
    serde_json::from_value(value).expect("a CallToolResult")
}

fn failed(err: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(err.to_string(), None)
}

impl Handler {
    async fn count(
        &self,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let n = arguments.get("n").and_then(Value::as_u64).unwrap_or(3);
        let log = json!({"level": "info", "logger": "count", "data": format!("counting to {n}")});
        let log = serde_json::from_value(log).map_err(failed)?;
        context
            .peer
            .notify_logging_message(log)
            .await
            .map_err(failed)?;
        let token = context
            .meta
            .get_progress_token()
            .ok_or_else(|| failed("no progress token"))?;
        for i in 1..=n {
            let progress: ProgressNotificationParam = serde_json::from_value(json!({
                "progressToken": token, "progress": i, "total": n, "message": format!("step {i}")
            }))
            .map_err(failed)?;
            context
                .peer
                .notify_progress(progress)
                .await
                .map_err(failed)?;
        }
        Ok(text(format!("counted to {n}")))
    }

    async fn wait(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let _ = self.seen.started.send(());
        tokio::select! {
            () = context.ct.cancelled() => {
                let _ = self.seen.cancelled.send(Instant::now());
                Ok(text("cancelled"))
            }
            () = tokio::time::sleep(std::time::Duration::from_secs(30)) => Ok(text("waited")),
        }
    }

    async fn ask_model(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let params = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Summarise: the sky is blue today."}}],
            "systemPrompt": "Be brief.",
            "maxTokens": 50
        }))
        .map_err(failed)?;
        match context.peer.create_message(params).await {
            Ok(reply) => {
                let reply = serde_json::to_value(&reply).map_err(failed)?;
                Ok(text(format!(
                    "model {} said: {}",
                    reply["model"].as_str().unwrap_or_default(),
                    reply["content"]["text"].as_str().unwrap_or_default()
                )))
            }
            Err(err) => Ok(result(
                json!({"isError": true, "content": [{"type": "text", "text": err.to_string()}]}),
            )),
        }
    }

    async fn ask_user(
        &self,
        arguments: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let message = arguments
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("?");
        let params = serde_json::from_value(json!({
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
                "required": ["name"]
            }
        }))
        .map_err(failed)?;
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        match context.peer.send_request(request).await.map_err(failed)? {
            ClientResult::ElicitResult(answer) => {
                let answer = serde_json::to_value(&answer).map_err(failed)?;
                let action = answer["action"].as_str().unwrap_or_default();
                Ok(text(match answer.get("content") {
                    Some(content) => format!("{action} {content}"),
                    None => action.to_owned(),
                }))
            }
            other => Err(failed(format!("unexpected answer {other:?}"))),
        }
    }
}

fn everything() -> CallToolResult {
    result(json!({
        "content": [
            {"type": "text", "text": "all of it"},
            {"type": "image", "data": base64(&image_bytes()), "mimeType": "image/png"},
            {"type": "audio", "data": base64(&[1, 2, 3]), "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.md", "mimeType": "text/markdown", "text": "# A"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "mimeType": "application/octet-stream", "blob": base64(&[0, 255])}},
            {"type": "resource_link", "uri": "file:///c.csv", "name": "c.csv", "mimeType": "text/csv"}
        ],
        "structuredContent": {"kinds": 6}
    }))
}

impl ServerHandler for Handler {
    /// 2025-11-25 at the newest: its tools ask the client's model and user with requests of
    /// their own, which 2026-07-28 replaces with `input_required` (`tests/mcp/client_era.rs`).
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build(),
        )
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = serde_json::to_value(request.level).map_err(failed)?;
        *self.seen.level.lock().unwrap() = level.as_str().map(str::to_owned);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "count" => self.count(&arguments, &context).await?,
            "wait" => self.wait(&context).await?,
            "ask_model" => self.ask_model(&context).await?,
            "ask_user" => self.ask_user(&arguments, &context).await?,
            "capabilities" => {
                let info = context
                    .peer
                    .peer_info()
                    .ok_or_else(|| failed("no client info"))?;
                text(serde_json::to_string(&info.capabilities).map_err(failed)?)
            }
            "image" => result(json!({"content": [
                {"type": "image", "data": base64(&image_bytes()), "mimeType": "image/png"}
            ]})),
            "everything" => everything(),
            "fail" => {
                result(json!({"isError": true, "content": [{"type": "text", "text": "it broke"}]}))
            }
            "structured" => result(structured()),
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(CallToolResponse::from(result))
    }
}
