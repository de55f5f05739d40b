//! Server-sent events: a state machine fed arbitrary chunks of bytes.
//!
//! Bytes are kept until a whole line has arrived, so a chunk may end anywhere, inside a line or
//! inside a UTF-8 character; a line is decoded only once it is complete.

/// One event: its `event:` name, if any, and its `data:` lines joined by `\n`.
#[doc(hidden)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field.
    pub event: Option<String>,
    /// The `data:` lines.
    pub data: String,
}

/// Why a stream could not be read as events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SseError {
    /// A complete line was not UTF-8.
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
/// most bytes either may hold.
#[derive(Debug)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
    max_line: usize,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::new(usize::MAX)
    }
}

impl SseParser {
    /// A parser that refuses a line, or an event's data, longer than `max_line` bytes, as soon
    /// as the byte past the bound arrives (a server could otherwise send one endless line).
    pub(crate) fn new(max_line: usize) -> Self {
        SseParser {
            line: Vec::new(),
            event: None,
            data: None,
            max_line,
        }
    }

    /// Takes the next chunk; returns the events it completed.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut events = Vec::new();
        let mut rest = chunk;
        while !rest.is_empty() {
            let end = rest.iter().position(|&byte| byte == b'\n');
            let part = &rest[..end.unwrap_or(rest.len())];
            if self.line.len() + part.len() > self.max_line {
                return Err(SseError::TooLong {
                    limit: self.max_line,
                });
            }
            self.line.extend_from_slice(part);
            let Some(end) = end else { break };
            rest = &rest[end + 1..];
            if self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
            let line = std::mem::take(&mut self.line);
            let line = std::str::from_utf8(&line).map_err(SseError::NotUtf8)?;
            if let Some(event) = self.take_line(line)? {
                events.push(event);
            }
        }
        Ok(events)
    }

    /// Applies one complete line; a blank line completes the event in progress.
    fn take_line(&mut self, line: &str) -> Result<Option<SseEvent>, SseError> {
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
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => {
                let data = self.data.get_or_insert_with(String::new);
                if data.len() + 1 + value.len() > self.max_line {
                    return Err(SseError::TooLong {
                        limit: self.max_line,
                    });
                }
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
        Ok(None)
    }
}

/// Feeds `stream` to a fresh parser and assembler split at every byte offset (inside lines and
/// inside UTF-8 characters) and checks that every split assembles the same reply, which it
/// returns.
#[cfg(test)]
pub(crate) fn assemble_every_split<S: super::StreamAssembler>(stream: &str) -> super::ModelReply {
    let bytes = stream.as_bytes();
    let assemble = |split: usize| {
        let mut parser = SseParser::default();
        let mut assembler = S::new(&super::ChatOptions::default());
        for part in [&bytes[..split], &bytes[split..]] {
            for event in parser.feed(part).unwrap() {
                assembler.event(event).unwrap();
            }
        }
        assembler.finish().unwrap()
    };
    let whole = assemble(0);
    for split in 1..=bytes.len() {
        assert_eq!(assemble(split), whole, "split at byte {split}");
    }
    whole
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
}
