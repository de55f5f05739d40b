//! The event stream's bytes, re-cut into one chunk per line before `sse-stream` parses them.
//!
//! Two things this fixes, both found by fuzzing (`fuzz/src/targets/sse.rs`):
//! - `sse-stream` fails the whole stream on lines the SSE specification says to ignore (an
//!   unknown field, a line without a colon, a second `event`/`id`/`retry` field, a `retry` that
//!   is not a number, bytes that are not UTF-8), and an error ends the MCP session;
//! - when one chunk held several lines and a later one failed, the events completed before it in
//!   that chunk were lost with the error, so what the client saw depended on how the network cut
//!   the stream.
//!
//! Here each line is its own chunk, so the outcome never depends on the chunking; only `data`
//! and `event` lines reach the parser, others become empty comments (the client uses nothing
//! else; a line `data` without a colon is an empty data line, as the specification says), the first `event` of an event wins,
//! and text that is not UTF-8 is decoded lossily. A line longer than the bound ends the stream
//! with an error as soon as it passes the bound, wherever the chunks end.

use axum::body::Bytes;

use super::oversize::PREFIX_BYTES;

/// A line of the event stream longer than the bound, and its first bytes: enough to answer the
/// request it carried an answer to.
#[derive(Debug, thiserror::Error)]
#[error("an event stream line is longer than {max} bytes")]
pub(super) struct LineTooLong {
    pub(super) max: usize,
    pub(super) prefix: Vec<u8>,
}

/// Cuts chunks into lines and screens each line; see the module documentation.
pub(super) struct LineCutter {
    max: usize,
    partial: Vec<u8>,
    first_line: bool,
    event_seen: bool,
    /// The last line ended in `\r`.
    after_cr: bool,
    failed: bool,
}

impl LineCutter {
    /// A cutter that fails once a line grows past `max` bytes.
    pub(super) fn new(max: usize) -> Self {
        LineCutter {
            max,
            partial: Vec::new(),
            first_line: true,
            event_seen: false,
            after_cr: false,
            failed: false,
        }
    }

    /// The lines `chunk` completes, each a chunk of its own, then an error if the unfinished
    /// line has grown past the bound (after which nothing more is returned).
    pub(super) fn cut(&mut self, mut chunk: &[u8]) -> Vec<std::io::Result<Bytes>> {
        let mut lines = Vec::new();
        while !self.failed && !chunk.is_empty() {
            let end = chunk.iter().position(|b| matches!(b, b'\n' | b'\r'));
            let (line, rest) = chunk.split_at(end.map_or(chunk.len(), |end| end + 1));
            chunk = rest;
            self.partial.extend_from_slice(line);
            if self.partial.len() - usize::from(end.is_some()) > self.max {
                self.failed = true;
                let mut prefix = std::mem::take(&mut self.partial);
                prefix.truncate(PREFIX_BYTES);
                lines.push(Err(std::io::Error::other(LineTooLong {
                    max: self.max,
                    prefix,
                })));
                break;
            }
            if end.is_none() {
                break;
            }
            let line = std::mem::take(&mut self.partial);
            lines.push(Ok(Bytes::from(self.screen(line))));
        }
        lines
    }

    /// The line as the parser should see it, terminator included. A line to skip becomes an
    /// empty comment (`:`), so the parser sees the stream's line ends as they were sent.
    fn screen(&mut self, line: Vec<u8>) -> Vec<u8> {
        // The `\n` of a `\r\n` cut in two ends no line: the parser skips it, and so do we.
        if std::mem::replace(&mut self.after_cr, line.ends_with(b"\r")) && line == b"\n" {
            return line;
        }
        let terminator = [line[line.len() - 1]];
        self.screen_line(line)
            .unwrap_or_else(|| [b":".as_slice(), &terminator].concat())
    }

    /// One whole line (terminator included) as the parser should see it, or `None` to skip it.
    fn screen_line(&mut self, line: Vec<u8>) -> Option<Vec<u8>> {
        let split = line.len() - 1;
        let (content, terminator) = line.split_at(split);
        let mut content = content;
        if std::mem::take(&mut self.first_line) {
            content = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
        }
        if content.is_empty() {
            self.event_seen = false;
            return Some(line);
        }
        let name = match content.iter().position(|b| *b == b':') {
            Some(0) => return None, // a comment
            Some(colon) => &content[..colon],
            None if content == b"data" => return Some([b"data:", terminator].concat()),
            None => return None,
        };
        match name {
            b"data" => {}
            b"event" if !std::mem::replace(&mut self.event_seen, true) => {}
            _ => return None,
        }
        match String::from_utf8_lossy(content) {
            std::borrow::Cow::Borrowed(_) => Some([content, terminator].concat()),
            std::borrow::Cow::Owned(text) => Some([text.as_bytes(), terminator].concat()),
        }
    }
}
