//! The stdio transport: each incoming line is screened before rmcp reads it.
//!
//! rmcp gets one end of an in-memory pipe. One task reads the client's lines, answers a frame
//! [`screen`] refuses and forwards every other one unchanged; one task forwards rmcp's answers;
//! one task owns the client's writer, so the two kinds of answer never interleave mid-line.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::rmcp_fixes::screen::{self, screen};

/// The longest line read, as rmcp's own default; a longer one is refused.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// The pipe buffer between the screen and rmcp.
const PIPE_BYTES: usize = 64 * 1024;
/// Answers waiting for the writer.
const QUEUED_ANSWERS: usize = 64;
/// Chunks of stdin read and not yet taken.
const QUEUED_CHUNKS: usize = 4;

/// This process's stdin, read on a thread of its own.
///
/// tokio's `stdin()` (what `rmcp::transport::stdio` gives) reads on the runtime's blocking pool,
/// where a read cannot be cancelled: the runtime's shutdown at the end of `main` waited for a
/// line that never came, so a server stopped by a signal with its stdin still open never
/// exited (and a proxy's stdio server, killed by the client's destructor, lived on with it).
/// A thread of its own is not waited for: it ends with the process.
pub(super) fn stdin() -> Box<dyn AsyncRead + Send + Unpin> {
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    let (chunks, queue) = mpsc::channel(QUEUED_CHUNKS);
    let reading = std::thread::Builder::new()
        .name("mcp-stdin".to_owned())
        .spawn(move || read_stdin(&chunks));
    if let Err(err) = reading {
        tracing::warn!(%err, "no thread for stdin: a signal cannot end the server while it reads");
        return Box::new(tokio::io::stdin());
    }
    tokio::spawn(forward_chunks(queue, ours));
    Box::new(theirs)
}

/// Reads stdin until it ends, fails, or nobody takes what is read.
fn read_stdin(chunks: &mpsc::Sender<Vec<u8>>) {
    use std::io::Read;
    let mut stdin = std::io::stdin().lock();
    let mut buffer = vec![0; PIPE_BYTES];
    loop {
        match stdin.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => {
                if chunks.blocking_send(buffer[..read].to_vec()).is_err() {
                    break;
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => {
                tracing::debug!(%err, "reading stdin failed: the client is gone");
                break;
            }
        }
    }
}

/// Writes what stdin's thread read to the pipe the server reads; closes it when stdin ends.
async fn forward_chunks<W: AsyncWrite + Unpin>(mut queue: mpsc::Receiver<Vec<u8>>, mut to: W) {
    while let Some(chunk) = queue.recv().await {
        if to.write_all(&chunk).await.is_err() {
            break;
        }
    }
}

/// The tasks between the client's streams and the pipe rmcp serves.
pub(super) struct Screened {
    inbound: JoinHandle<()>,
    writer: JoinHandle<()>,
}

impl Screened {
    /// Starts the tasks, and returns the pipe end rmcp reads requests from and answers on.
    pub(super) fn start<R, W>(read: R, write: W) -> (tokio::io::DuplexStream, Self)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (pipe, ours) = tokio::io::duplex(PIPE_BYTES);
        let (from_rmcp, to_rmcp) = tokio::io::split(ours);
        let (answers, queue) = mpsc::channel(QUEUED_ANSWERS);
        let inbound = tokio::spawn(inbound(read, to_rmcp, answers.clone()));
        tokio::spawn(outbound(from_rmcp, answers));
        let writer = tokio::spawn(writer(write, queue));
        (pipe, Self { inbound, writer })
    }

    /// Stops reading the client once rmcp is done, and waits for every answer to be written.
    pub(super) async fn finish(self) {
        self.inbound.abort();
        // The writer ends when both senders are gone; it cannot panic, so the result is `Ok`
        // or the abort of a runtime shutting down, and neither needs more handling.
        let _ = self.writer.await;
    }
}

/// Reads the client's lines: forwards each one rmcp may read, answers each one it may not.
async fn inbound<R, P>(read: R, mut to_rmcp: P, answers: mpsc::Sender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    P: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let Ok(complete) = read_line(&mut reader, &mut line).await else {
            break;
        };
        if line.is_empty() && complete.is_none() {
            break;
        }
        let frame = line.strip_suffix(b"\n").unwrap_or(&line);
        let frame = frame.strip_suffix(b"\r").unwrap_or(frame);
        let refusal = match complete {
            Some(false) => Some(screen::too_long(MAX_LINE_BYTES)),
            _ if frame.iter().all(u8::is_ascii_whitespace) => None,
            _ => screen(frame),
        };
        let sent = match refusal {
            Some(answer) => answers.send(answer_line(&answer)).await.is_ok(),
            None => forward(&mut to_rmcp, &line).await,
        };
        if !sent {
            break;
        }
    }
    // rmcp sees the end of input once this end of the pipe closes.
    let _ = to_rmcp.shutdown().await;
}

/// Writes one line to rmcp, ending it with a newline; `false` once rmcp has gone.
async fn forward<P: AsyncWrite + Unpin>(to_rmcp: &mut P, line: &[u8]) -> bool {
    let mut ok = to_rmcp.write_all(line).await.is_ok();
    if ok && !line.ends_with(b"\n") {
        ok = to_rmcp.write_all(b"\n").await.is_ok();
    }
    ok && to_rmcp.flush().await.is_ok()
}

/// Reads one line into `line`, keeping at most [`MAX_LINE_BYTES`] of it.
///
/// `Some(true)`: a line ended by a newline or the end of input; `Some(false)`: a line that was too
/// long (the rest was skipped); `None`: the end of input with nothing read.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    let limit = MAX_LINE_BYTES as u64 + 1;
    let read = (&mut *reader).take(limit).read_until(b'\n', line).await?;
    if read == 0 {
        return Ok(None);
    }
    if line.len() <= MAX_LINE_BYTES || line.ends_with(b"\n") {
        return Ok(Some(true));
    }
    line.clear();
    let mut skipped = Vec::new();
    loop {
        skipped.clear();
        let read = (&mut *reader)
            .take(PIPE_BYTES as u64)
            .read_until(b'\n', &mut skipped)
            .await?;
        if read == 0 || skipped.ends_with(b"\n") {
            return Ok(Some(false));
        }
    }
}

/// Forwards rmcp's answers, a line at a time, to the writer.
async fn outbound<P: AsyncRead + Unpin>(from_rmcp: P, answers: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if answers.send(line).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// Writes every answer to the client, in the order queued.
async fn writer<W: AsyncWrite + Unpin>(mut write: W, mut queue: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = queue.recv().await {
        if write.write_all(&line).await.is_err() || write.flush().await.is_err() {
            break;
        }
    }
    let _ = write.shutdown().await;
}

/// One JSON answer as a newline-ended line.
fn answer_line(answer: &serde_json::Value) -> Vec<u8> {
    let mut line = answer.to_string().into_bytes();
    line.push(b'\n');
    line
}
