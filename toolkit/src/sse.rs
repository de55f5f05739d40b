//! Server-sent events: one state machine fed arbitrary chunks of bytes, read by the model
//! clients' streamed replies and by the MCP client's HTTP+SSE transport.
//!
//! Bytes are kept until a whole line has arrived, so a chunk may end anywhere, inside a line,
//! inside a `\r\n` or inside a UTF-8 character; a line is decoded only once it is complete, and
//! what comes out never depends on how the stream was cut. As the specification says, a line
//! ends at `\n`, `\r` or `\r\n`, a leading byte-order mark is skipped, comments and fields other
//! than `data` and `event` are ignored, and a line `data` without a colon is an empty data line.
//! Two choices of ours: the first `event` field of an event names it (a second one is ignored),
//! and a line longer than the bound fails as soon as the byte past the bound arrives, so a
//! server cannot send one endless line.

/// One event: its `event:` name, if any, and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field.
    pub(crate) event: Option<String>,
    /// The `data:` lines.
    pub(crate) data: String,
}

/// Why a stream could not be read as events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SseError {
    /// A complete line was not UTF-8 (only when the parser is strict about it).
    NotUtf8(std::str::Utf8Error),
    /// A line, or the data of one event, grew past the parser's bound.
    TooLong {
        /// The bound, in bytes.
        limit: usize,
    },
}

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SseError::NotUtf8(e) => write!(f, "an event-stream line is not UTF-8: {e}"),
            SseError::TooLong { limit } => {
                write!(
                    f,
                    "an event-stream line or event is longer than {limit} bytes"
                )
            }
        }
    }
}

/// The parser: the bytes of the line in progress, the fields of the event in progress, and the
/// most bytes a line and an event's data may hold.
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    /// The last line ended in `\r`: a `\n` right after it ends no line.
    after_cr: bool,
    first_line: bool,
    event: Option<String>,
    data: Option<String>,
    max_line: usize,
    max_data: usize,
    lossy: bool,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::new(usize::MAX)
    }
}

impl SseParser {
    /// A parser that refuses a line, or an event's data, longer than `max_line` bytes, and a
    /// line that is not UTF-8.
    pub(crate) fn new(max_line: usize) -> Self {
        SseParser {
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            event: None,
            data: None,
            max_line,
            max_data: max_line,
            lossy: false,
        }
    }

    /// The same parser with the data of one event bounded to `max_data` bytes instead.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn max_data(mut self, max_data: usize) -> Self {
        self.max_data = max_data;
        self
    }

    /// The same parser decoding a line that is not UTF-8 lossily, as the specification says,
    /// instead of failing.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn lossy(mut self) -> Self {
        self.lossy = true;
        self
    }

    /// The bytes of the line in progress; after [`SseError::TooLong`] for a line, its start,
    /// up to the end of the chunk that passed the bound.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn line_in_progress(&self) -> &[u8] {
        &self.line
    }

    /// Takes the next chunk; returns the events it completed.
    #[cfg_attr(
        not(any(feature = "openai", feature = "anthropic", feature = "gemini")),
        allow(dead_code)
    )]
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut events = Vec::new();
        self.feed_into(chunk, &mut events)?;
        Ok(events)
    }

    /// Takes the next chunk and pushes the events it completed onto `events`, including, when
    /// a later line of the chunk fails, those completed before it: what a reader gets before
    /// an error then never depends on how the stream was cut.
    pub(crate) fn feed_into(
        &mut self,
        chunk: &[u8],
        events: &mut Vec<SseEvent>,
    ) -> Result<(), SseError> {
        let mut rest = chunk;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            rest = rest.strip_prefix(b"\n").unwrap_or(rest);
        }
        while !rest.is_empty() {
            let end = rest.iter().position(|&byte| matches!(byte, b'\n' | b'\r'));
            let part = &rest[..end.unwrap_or(rest.len())];
            let too_long = self.line.len() + part.len() > self.max_line;
            self.line.extend_from_slice(part);
            if too_long {
                // The line so far stays, so that a caller can read what it began with.
                return Err(SseError::TooLong {
                    limit: self.max_line,
                });
            }
            let Some(end) = end else { break };
            let terminator = rest[end];
            rest = &rest[end + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.take_line(&line)? {
                events.push(event);
            }
        }
        Ok(())
    }

    /// Applies one complete line, its terminator cut off; a blank line completes the event in
    /// progress.
    fn take_line(&mut self, line: &[u8]) -> Result<Option<SseEvent>, SseError> {
        let mut line = line;
        if std::mem::take(&mut self.first_line) {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        let line = if self.lossy {
            String::from_utf8_lossy(line)
        } else {
            std::borrow::Cow::Borrowed(std::str::from_utf8(line).map_err(SseError::NotUtf8)?)
        };
        if line.is_empty() {
            let data = self.data.take();
            let event = self.event.take();
            return Ok(match (event, data) {
                (None, None) => None,
                (event, data) => Some(SseEvent {
                    event,
                    data: data.unwrap_or_default(),
                }),
            });
        }
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = line.split_once(':').unwrap_or((&line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => {
                let held = self.data.as_ref().map_or(0, String::len);
                if held + 1 + value.len() > self.max_data {
                    return Err(SseError::TooLong {
                        limit: self.max_data,
                    });
                }
                // Every data line after the first adds a `\n`, an empty first one too.
                match &mut self.data {
                    Some(data) => {
                        data.push('\n');
                        data.push_str(value);
                    }
                    None => self.data = Some(value.to_owned()),
                }
            }
            "event" if self.event.is_none() => self.event = Some(value.to_owned()),
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: name.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    #[test]
    fn every_split_of_a_stream_gives_the_same_events() {
        let stream = "event: delta\r\ndata: {\"t\": \"h\u{e9}llo \u{1f980}\"}\r\n\r\n: ping\n\
                      data: a\ndata: b\n\nid: 7\ndata: [DONE]\n\n";
        let bytes = stream.as_bytes();
        let expected = vec![
            event(Some("delta"), "{\"t\": \"h\u{e9}llo \u{1f980}\"}"),
            event(None, "a\nb"),
            event(None, "[DONE]"),
        ];
        for split in 0..=bytes.len() {
            let mut parser = SseParser::default();
            let mut events = parser.feed(&bytes[..split]).unwrap();
            events.extend(parser.feed(&bytes[split..]).unwrap());
            assert_eq!(events, expected, "split at byte {split}");
        }
        let mut parser = SseParser::default();
        let one_by_one: Vec<SseEvent> = bytes
            .iter()
            .flat_map(|b| parser.feed(std::slice::from_ref(b)).unwrap())
            .collect();
        assert_eq!(one_by_one, expected);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_error() {
        let mut parser = SseParser::default();
        let err = parser.feed(b"data: \xff\n\n").unwrap_err().to_string();
        assert!(
            err.starts_with("an event-stream line is not UTF-8"),
            "{err}"
        );
    }

    #[test]
    fn a_line_past_the_bound_is_refused_at_the_byte_that_passes_it_whatever_the_chunking() {
        let limit = 16;
        let long = format!("data: {}\n\n", "x".repeat(limit));
        let bytes = long.as_bytes();
        for split in 0..=bytes.len() {
            let mut parser = SseParser::new(limit);
            let first = parser.feed(&bytes[..split]);
            let outcome = first.and_then(|_| parser.feed(&bytes[split..]));
            assert_eq!(
                outcome,
                Err(SseError::TooLong { limit }),
                "split at {split}"
            );
        }
        // Byte by byte, the error comes with the 17th byte of the line, not at its end.
        let mut parser = SseParser::new(limit);
        let refused_at = bytes
            .iter()
            .position(|byte| parser.feed(std::slice::from_ref(byte)).is_err());
        assert_eq!(refused_at, Some(limit));
        // A line of exactly the bound is accepted.
        let mut parser = SseParser::new(limit);
        let fits = format!("data: {}\n\n", "x".repeat(limit - 6));
        assert_eq!(parser.feed(fits.as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn data_lines_that_together_pass_the_bound_are_refused() {
        let mut parser = SseParser::new(16);
        let err = parser
            .feed(b"data: 0123456789\ndata: 0123456789\n")
            .unwrap_err();
        assert_eq!(err, SseError::TooLong { limit: 16 });
    }

    /// Every cut of `bytes` into two chunks, and a byte at a time, gives the same events.
    fn events_of_every_chunking(parser: impl Fn() -> SseParser, bytes: &[u8]) -> Vec<SseEvent> {
        let whole = parser().feed(bytes).unwrap();
        for split in 0..=bytes.len() {
            let mut p = parser();
            let mut events = p.feed(&bytes[..split]).unwrap();
            events.extend(p.feed(&[]).unwrap());
            events.extend(p.feed(&bytes[split..]).unwrap());
            assert_eq!(events, whole, "split at byte {split}");
        }
        let mut p = parser();
        let one_by_one: Vec<SseEvent> = bytes
            .iter()
            .flat_map(|b| p.feed(std::slice::from_ref(b)).unwrap())
            .collect();
        assert_eq!(one_by_one, whole);
        whole
    }

    #[test]
    fn a_line_ends_at_a_lone_cr_and_a_crlf_cut_in_two_ends_one_line() {
        let events = events_of_every_chunking(
            SseParser::default,
            b"event: a\rdata: 1\r\rdata: 2\r\n\r\ndata: 3\n\n",
        );
        assert_eq!(
            events,
            [event(Some("a"), "1"), event(None, "2"), event(None, "3")]
        );
    }

    #[test]
    fn lines_to_ignore_are_ignored_and_the_first_event_field_names_the_event() {
        let body = b"\xEF\xBB\xBFevent: endpoint\nevent: other\nretry: soon\nid: 1\nid: 2\n\
                     nonsense\nx-field: 1\n: comment\ndata\ndata: /m\n\n";
        let events = events_of_every_chunking(SseParser::default, body);
        assert_eq!(events, [event(Some("endpoint"), "\n/m")]);
    }

    #[test]
    fn a_lossy_parser_replaces_bytes_that_are_not_utf8() {
        let body = b"\xff: 2\ndata: a\xffb\n\n";
        let events = events_of_every_chunking(|| SseParser::default().lossy(), body);
        assert_eq!(events, [event(None, "a\u{fffd}b")]);
    }

    #[test]
    fn a_cr_at_the_bound_is_a_line_end_not_a_byte_of_the_line() {
        let mut parser = SseParser::new(8);
        let events = parser.feed(b"data: ab\r\n\r\n").unwrap();
        assert_eq!(events, [event(None, "ab")]);
    }

    #[test]
    fn a_line_past_the_bound_leaves_its_start_to_read() {
        let mut parser = SseParser::new(8).max_data(usize::MAX);
        assert_eq!(parser.feed(b"data: 12").unwrap(), []);
        assert_eq!(parser.feed(b"345\n"), Err(SseError::TooLong { limit: 8 }));
        assert_eq!(parser.line_in_progress(), b"data: 12345");
    }

    #[test]
    fn data_lines_are_bounded_apart_from_lines_when_asked() {
        let mut parser = SseParser::new(16).max_data(usize::MAX);
        let events = parser
            .feed(b"data: 0123456789\ndata: 0123456789\n\n")
            .unwrap();
        assert_eq!(events, [event(None, "0123456789\n0123456789")]);
    }
}
