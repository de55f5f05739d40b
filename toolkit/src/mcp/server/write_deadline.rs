//! A connection's writes with a deadline: a client that stops reading its answers is cut off
//! once the server has waited `timeout` to write a byte more, as nginx's `send_timeout` does.
//!
//! hyper has no write timeout of its own. Without one, a client that never reads holds its
//! connection, the answer buffered for it and everything that answer keeps alive, for as long
//! as it stays connected. The deadline counts from the first write that could not proceed and
//! starts again after every write that did, so a slow reader keeps its connection and only one
//! that reads nothing for `timeout` loses it.

use std::future::Future;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// A TCP stream whose writes fail with [`io::ErrorKind::TimedOut`] once one has waited
/// `timeout` for the client to take more bytes.
pub(super) struct WriteDeadline {
    stream: TcpStream,
    timeout: Duration,
    /// Set while a write waits; cleared as soon as one goes through.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl WriteDeadline {
    pub(super) fn new(stream: TcpStream, timeout: Duration) -> Self {
        WriteDeadline {
            stream,
            timeout,
            stalled: None,
        }
    }

    /// What a write that returned `poll` means under the deadline: progress resets it, a wait
    /// starts or continues it, and a wait past it is an error, which ends the connection.
    fn within_deadline<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let timeout = self.timeout;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client took no bytes of its answer for {} ms",
                    timeout.as_millis()
                ),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteDeadline {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteDeadline {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.within_deadline(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.within_deadline(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_flush(cx);
        self.within_deadline(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.stream).poll_shutdown(cx);
        self.within_deadline(cx, poll)
    }
}
