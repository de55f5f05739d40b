//! Caps on what one reply may carry: its text and each call's arguments. A stream is capped as
//! it is assembled, so nothing past a cap is kept; a whole reply is capped once it is read.
//!
//! Arguments over their cap are never kept: the call is refused, and goes back to the server
//! without them, as the history is sent again with every later request.

use serde_json::Value;

use super::{ChatOptions, ModelReply, RefusedCall};

/// The caps of one reply, from its request's [`ChatOptions`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReplyCaps {
    /// The most bytes of text kept.
    pub(crate) text: usize,
    /// The most bytes of one call's arguments.
    pub(crate) arguments: usize,
}

impl Default for ReplyCaps {
    fn default() -> Self {
        ReplyCaps::of(&ChatOptions::default())
    }
}

impl ReplyCaps {
    pub(crate) fn of(options: &ChatOptions) -> Self {
        ReplyCaps {
            text: options.max_text_bytes,
            arguments: options.max_argument_bytes,
        }
    }

    /// A whole reply under these caps: its text cut with a note, and calls with arguments over
    /// the cap moved to its refused calls.
    pub(crate) fn bound(self, mut reply: ModelReply) -> ModelReply {
        if let Some(text) = reply.text.take() {
            let mut capped = CappedText::default();
            capped.push(&text, self.text);
            reply.text = Some(capped.into_text(self.text));
        }
        if reply
            .tool_calls
            .iter()
            .all(|call| argument_bytes(&call.args) <= self.arguments)
        {
            return reply;
        }
        let mut kept = Vec::with_capacity(reply.tool_calls.len());
        for call in std::mem::take(&mut reply.tool_calls) {
            match argument_bytes(&call.args) {
                size if size > self.arguments => reply
                    .refused_calls
                    .push(RefusedCall::new(call, self.too_large(size))),
                _ => kept.push(call),
            }
        }
        reply.tool_calls = kept;
        reply
    }

    /// Why a call with `size` bytes of arguments is refused.
    pub(crate) fn too_large(self, size: usize) -> String {
        format!(
            "the arguments are {size} bytes, over the limit of {}; send smaller arguments",
            self.arguments
        )
    }
}

/// The size of a call's arguments as sent: a string's length, or compact JSON's.
fn argument_bytes(args: &Value) -> usize {
    match args {
        Value::String(text) => text.len(),
        other => {
            let mut count = ByteCount(0);
            // Writing to a counter cannot fail, and a `Value` always serializes.
            let _ = serde_json::to_writer(&mut count, other);
            count.0
        }
    }
}

/// Counts bytes written, so a value's size is known without building its text.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 = self.0.saturating_add(bytes.len());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Text accumulated up to a cap: what comes past it is counted, not kept.
#[derive(Debug, Default)]
pub(crate) struct CappedText {
    kept: String,
    total: usize,
}

impl CappedText {
    /// Appends `piece`, keeping at most `cap` bytes in all (cut at a character boundary).
    pub(crate) fn push(&mut self, piece: &str, cap: usize) {
        self.total = self.total.saturating_add(piece.len());
        let room = cap.saturating_sub(self.kept.len());
        let mut end = room.min(piece.len());
        while !piece.is_char_boundary(end) {
            end -= 1;
        }
        self.kept.push_str(&piece[..end]);
    }

    /// Appends text capped on its own, counting what it did not keep.
    pub(crate) fn extend(&mut self, other: CappedText, cap: usize) {
        let dropped = other.total - other.kept.len();
        self.push(&other.kept, cap);
        self.total = self.total.saturating_add(dropped);
    }

    /// The text, ending with a note when it was cut; the two together fit in `cap`, so a text
    /// capped once is left alone by the same cap again.
    pub(crate) fn into_text(mut self, cap: usize) -> String {
        if self.total <= cap {
            return self.kept;
        }
        let note = format!(
            "\n[cut: the reply's text is {} bytes, over the limit of {cap}]",
            self.total
        );
        let mut end = cap.saturating_sub(note.len()).min(self.kept.len());
        while !self.kept.is_char_boundary(end) {
            end -= 1;
        }
        self.kept.truncate(end);
        self.kept.push_str(&note);
        self.kept
    }

    /// The whole text, or its size when it went over `cap`.
    pub(crate) fn within(self, cap: usize) -> Result<String, usize> {
        match self.total <= cap {
            true => Ok(self.kept),
            false => Err(self.total),
        }
    }
}

/// The name a refused call without a readable one goes back to the server under: providers refuse
/// a tool call with an empty name in the history.
pub(crate) const UNNAMED: &str = "unnamed_call";

/// A call that could not be read, refused with what could be read of it and the reason.
pub(crate) fn malformed(
    id: Option<&str>,
    name: Option<&str>,
    error: super::ModelError,
) -> RefusedCall {
    let name = name.filter(|name| !name.is_empty()).unwrap_or(UNNAMED);
    let mut call = crate::ToolCall::new(name, Value::Null);
    call.id = id.map(str::to_owned);
    let reason = match error {
        super::ModelError::Decode { message, .. } => message,
        other => other.to_string(),
    };
    RefusedCall::new(call, reason)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ToolCall;

    #[test]
    fn text_past_its_cap_is_cut_at_a_character_boundary_with_a_note() {
        let note = "\n[cut: the reply's text is 66 bytes, over the limit of 62]";
        let mut text = CappedText::default();
        text.push("ab", 62);
        text.push(&"\u{e9}".repeat(32), 62);
        let cut = text.into_text(62);
        // 62 bytes less the note's 58 leave 4: "ab" and one whole "\u{e9}".
        assert_eq!(cut, format!("ab\u{e9}{note}"));
        let mut again = CappedText::default();
        again.push(&cut, 62);
        assert_eq!(again.into_text(62), cut);
    }

    #[test]
    fn a_whole_reply_keeps_calls_within_the_cap_and_refuses_the_others() {
        let caps = ReplyCaps {
            text: 100,
            arguments: 10,
        };
        let reply = caps.bound(ModelReply::calls([
            ToolCall::new("a", json!({"x": 1})).with_id("small"),
            ToolCall::new("b", json!({"x": "0123456789"})).with_id("large"),
        ]));
        assert_eq!(
            reply.tool_calls,
            vec![ToolCall::new("a", json!({"x": 1})).with_id("small")]
        );
        assert_eq!(
            reply.refused_calls,
            vec![RefusedCall::new(
                ToolCall::new("b", json!({})).with_id("large"),
                "the arguments are 18 bytes, over the limit of 10; send smaller arguments"
            )]
        );
    }
}
