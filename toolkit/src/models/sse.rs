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

/// The parser: the bytes of the line in progress and the fields of the event in progress.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    /// Takes the next chunk; returns the events it completed.
    pub(crate) fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, String> {
        let mut events = Vec::new();
        for &byte in chunk {
            if byte != b'\n' {
                self.line.push(byte);
                continue;
            }
            if self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
            let line = std::mem::take(&mut self.line);
            let line = String::from_utf8(line)
                .map_err(|e| format!("an event-stream line is not UTF-8: {e}"))?;
            if let Some(event) = self.take_line(&line) {
                events.push(event);
            }
        }
        Ok(events)
    }

    /// Applies one complete line; a blank line completes the event in progress.
    fn take_line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            let data = self.data.take();
            let event = self.event.take();
            return match (event, data) {
                (None, None) => None,
                (event, data) => Some(SseEvent {
                    event,
                    data: data.unwrap_or_default(),
                }),
            };
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => {
                let data = self.data.get_or_insert_with(String::new);
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
        None
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
        let err = parser.feed(b"data: \xff\n\n").unwrap_err();
        assert!(
            err.starts_with("an event-stream line is not UTF-8"),
            "{err}"
        );
    }
}
