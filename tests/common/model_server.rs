//! A small HTTP server on 127.0.0.1 that answers each request with the next scripted reply
//! (status, headers, body in chunks, possibly cut short) and keeps every request it was sent.
//! The model-client tests and the agent example talk to it over real HTTP.
//!
//! In the tests, every request and every scripted 200 reply is also checked with the providers'
//! official SDK types (`provider_sdk`): a refused request is answered 400 with the SDK's message,
//! and the server panics when dropped if anything was refused, unless the test said it expects
//! refusals. The examples include this file alone and check nothing, so they run without Python.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One scripted response.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    chunks: Vec<Vec<u8>>,
    /// A `Content-Length` larger than the body, to cut it short.
    declared_length: Option<usize>,
    /// How long to wait before answering.
    delay: Duration,
    /// Whether the SDK types check this reply (off for one malformed on purpose).
    checked: bool,
}

impl Reply {
    /// A JSON body with `status`.
    pub fn json(status: u16, body: &str) -> Self {
        Reply::body(status, "application/json", body)
    }

    /// A body of any content type.
    pub fn body(status: u16, content_type: &str, body: &str) -> Self {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            chunks: vec![body.as_bytes().to_vec()],
            declared_length: None,
            delay: Duration::ZERO,
            checked: true,
        }
    }

    /// An event stream sent in `chunks`, each written and flushed on its own.
    pub fn event_stream(chunks: Vec<Vec<u8>>) -> Self {
        Reply {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks,
            declared_length: None,
            delay: Duration::ZERO,
            checked: true,
        }
    }

    /// The same reply with another header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The same reply, declaring `length` bytes but closing after the body it has.
    pub fn cut_short(mut self, length: usize) -> Self {
        self.declared_length = Some(length);
        self
    }

    /// The same reply, sent after `delay`.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The same reply, not checked with the providers' SDK types: for one a test makes
    /// malformed on purpose.
    pub fn unchecked(mut self) -> Self {
        self.checked = false;
        self
    }
}

/// `text` split into chunks at the given byte offsets (which may fall inside a character).
pub fn split_at(text: &str, offsets: &[usize]) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut chunks = Vec::new();
    let mut start = 0;
    for &offset in offsets {
        chunks.push(bytes[start..offset].to_vec());
        start = offset;
    }
    chunks.push(bytes[start..].to_vec());
    chunks
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request line and headers, as sent.
    pub head: String,
    /// The request's path (with its query), from the request line.
    pub path: String,
    /// The body, parsed as JSON (`Null` when it is not JSON).
    pub body: Value,
}

/// The server; it stops when dropped.
pub struct ModelServer {
    address: std::net::SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    refusals: Arc<Mutex<Vec<String>>>,
    expects_refusals: bool,
    task: JoinHandle<()>,
}

impl ModelServer {
    /// Starts a server that answers with `replies` in order, then with 500.
    pub async fn start(replies: Vec<Reply>) -> Self {
        Self::serving(Script::Queue(Mutex::new(replies.into_iter()))).await
    }

    /// Starts a server that answers each request with what `answer` makes of its JSON body: a
    /// model whose reply depends on the conversation it is sent, not on the order requests
    /// arrive in (many runs at once, a run replayed on another worker).
    pub async fn answering(answer: impl Fn(&Value) -> Reply + Send + Sync + 'static) -> Self {
        Self::serving(Script::Answer(Box::new(answer))).await
    }

    async fn serving(script: Script) -> Self {
        // The validator starts in seconds; before a client's timeout runs, not inside it.
        sdk::start();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let refusals = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let refused = Arc::clone(&refusals);
        let replies = Arc::new(script);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let log = Arc::clone(&log);
                let refused = Arc::clone(&refused);
                let replies = Arc::clone(&replies);
                tokio::spawn(async move {
                    let _ = serve(stream, &log, &refused, &replies).await;
                });
            }
        });
        ModelServer {
            address,
            received,
            refusals,
            expects_refusals: false,
            task,
        }
    }

    /// The same server, not failing the test when the SDK types refuse something: for a test
    /// of what a client does with a refusal, which reads them with [`refusals`](Self::refusals).
    pub fn expecting_refusals(mut self) -> Self {
        self.expects_refusals = true;
        self
    }

    /// What the providers' SDK types refused so far, each with the SDK's message.
    pub fn refusals(&self) -> Vec<String> {
        self.refusals.lock().unwrap().clone()
    }

    /// The base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.task.abort();
        let refusals = self.refusals();
        if !refusals.is_empty() && !self.expects_refusals && !std::thread::panicking() {
            panic!(
                "the providers' SDK types refused {} of what the model server saw:\n{}",
                refusals.len(),
                refusals.join("\n")
            );
        }
    }
}

/// What the server answers: the next reply of a list, or a reply made from the request.
enum Script {
    Queue(Mutex<std::vec::IntoIter<Reply>>),
    Answer(Box<dyn Fn(&Value) -> Reply + Send + Sync>),
}

impl Script {
    fn reply(&self, body: &Value) -> Option<Reply> {
        match self {
            Script::Queue(replies) => replies.lock().unwrap().next(),
            Script::Answer(answer) => Some(answer(body)),
        }
    }
}

async fn serve(
    mut stream: TcpStream,
    log: &Mutex<Vec<Received>>,
    refusals: &Mutex<Vec<String>>,
    replies: &Script,
) -> std::io::Result<()> {
    let request = read_request(&mut stream).await?;
    let path = request.path.clone();
    let refused = sdk::check_request(&path, &request.body);
    let body = request.body.clone();
    log.lock().unwrap().push(request);
    let reply = match refused {
        Err(message) => {
            let message = format!("request to {path} refused: {message}");
            refusals.lock().unwrap().push(message.clone());
            let body = serde_json::json!({"error": {"message": message, "type": "sdk_refused"}});
            Reply::json(400, &body.to_string())
        }
        Ok(()) => {
            let reply = replies.reply(&body);
            let reply =
                reply.unwrap_or_else(|| Reply::json(500, r#"{"error": "no scripted reply"}"#));
            if let Err(message) = check_reply(&path, &reply) {
                let message = format!("scripted reply to {path} refused: {message}");
                refusals.lock().unwrap().push(message);
            }
            reply
        }
    };
    tokio::time::sleep(reply.delay).await;
    let length: usize = reply.chunks.iter().map(Vec::len).sum();
    let mut head = format!(
        "HTTP/1.1 {} Scripted\r\nconnection: close\r\n",
        reply.status
    );
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let is_stream = reply.headers.iter().any(|(_, v)| v == "text/event-stream");
    if !is_stream {
        let declared = reply.declared_length.unwrap_or(length);
        head.push_str(&format!("content-length: {declared}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    for chunk in &reply.chunks {
        stream.write_all(chunk).await?;
        stream.flush().await?;
        if reply.chunks.len() > 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    stream.shutdown().await
}

/// Checks a scripted 200 reply with the SDK types of the request's wire format: its JSON body, or
/// each event's data when it is an event stream.
fn check_reply(path: &str, reply: &Reply) -> Result<(), String> {
    if !reply.checked || reply.status != 200 {
        return Ok(());
    }
    let bytes = reply.chunks.concat();
    let text = String::from_utf8_lossy(&bytes);
    let is_stream = reply.headers.iter().any(|(_, v)| v == "text/event-stream");
    if !is_stream {
        let body = serde_json::from_str(&text)
            .map_err(|err| format!("the body is not JSON ({err}): {text}"))?;
        return sdk::check_reply(path, &body);
    }
    let text = text.replace("\r\n", "\n");
    for event in text.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        if !data.is_empty() {
            sdk::check_event(path, &data.join("\n"))
                .map_err(|err| format!("{err} in {event:?}"))?;
        }
    }
    Ok(())
}

/// The SDK checks in the tests; the examples, which include this file alone, check nothing.
#[cfg(test)]
use super::provider_sdk as sdk;

#[cfg(not(test))]
mod sdk {
    use serde_json::Value;

    pub fn start() {}
    pub fn check_request(_: &str, _: &Value) -> Result<(), String> {
        Ok(())
    }
    pub fn check_reply(_: &str, _: &Value) -> Result<(), String> {
        Ok(())
    }
    pub fn check_event(_: &str, _: &str) -> Result<(), String> {
        Ok(())
    }
}

/// Reads a request's head and its `Content-Length` body (a body that is not JSON is `Null`).
pub async fn read_request(stream: &mut TcpStream) -> std::io::Result<Received> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        let read = stream.read(&mut buffer).await?;
        if read == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        bytes.extend_from_slice(&buffer[..read]);
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let length = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    while bytes.len() < head_end + length {
        let read = stream.read(&mut buffer).await?;
        if read == 0 {
            break;
        }
        bytes.extend_from_slice(&buffer[..read]);
    }
    let body = serde_json::from_slice(&bytes[head_end..]).unwrap_or(Value::Null);
    let path = head.split(' ').nth(1).unwrap_or_default().to_owned();
    Ok(Received { head, path, body })
}

/// A reply's calls with their argument text read into values, as the tool's pipeline reads it:
/// the clients hand a model's arguments on as its text.
pub fn read_arguments(calls: Vec<toolkit::ToolCall>) -> Vec<toolkit::ToolCall> {
    calls
        .into_iter()
        .map(|mut call| {
            if let Value::String(text) = &call.args {
                call.args = serde_json::from_str(text).unwrap_or(Value::Null);
            }
            call
        })
        .collect()
}
