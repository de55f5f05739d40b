//! A small HTTP server on 127.0.0.1 that answers each request with the next scripted reply
//! (status, headers, body in chunks, possibly cut short) and keeps every request it was sent.
//! The model-client tests and the agent example talk to it over real HTTP.

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
    /// The body, parsed as JSON (`Null` when it is not JSON).
    pub body: Value,
}

/// The server; it stops when dropped.
pub struct ModelServer {
    address: std::net::SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    task: JoinHandle<()>,
}

impl ModelServer {
    /// Starts a server that answers with `replies` in order, then with 500.
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        let replies = Arc::new(Mutex::new(replies.into_iter()));
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let log = Arc::clone(&log);
                let replies = Arc::clone(&replies);
                tokio::spawn(async move {
                    let _ = serve(stream, &log, &replies).await;
                });
            }
        });
        ModelServer {
            address,
            received,
            task,
        }
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
    }
}

type Replies = Mutex<std::vec::IntoIter<Reply>>;

async fn serve(
    mut stream: TcpStream,
    log: &Mutex<Vec<Received>>,
    replies: &Replies,
) -> std::io::Result<()> {
    let request = read_request(&mut stream).await?;
    log.lock().unwrap().push(request);
    let reply = replies.lock().unwrap().next();
    let reply = reply.unwrap_or_else(|| Reply::json(500, r#"{"error": "no scripted reply"}"#));
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
    Ok(Received { head, body })
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
