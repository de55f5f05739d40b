//! The one rendering step: a call's typed outcome becomes what a model or a wire format reads.
//!
//! Upstream of here a call's outcome stays `Result<Value, ToolError>`, and the limits it ran
//! under say how it is rendered ([`Rendering`]). Only here does an error become `"Error: ..."`
//! text and a result get cut to `max_output_bytes`: the String a model reads from
//! [`ToolProxy::dynamic_call`](crate::ToolProxy::dynamic_call), a
//! [`ToolCallResult`](crate::ToolCallResult), the MCP server's results and every provider format
//! are made by the functions below, and nothing downstream strips a prefix again.
//!
//! A tool that returns content ([`ToolProxy::returns_content`](crate::ToolProxy::returns_content))
//! is rendered as content: its JSON is read as a [`ToolOutput`], and the output bound is kept
//! block by block so that base64 is never cut in half (see [`Rendering::output`]).
//!
//! A tool that forwards another server's results ([`ToolProxy::forwards`]) returns the value a
//! model reads and that server's own result beside it, so that a server serving the tool
//! answers with the result itself. An MCP client's remote tool is the one forwarder. Its model-facing value (one text block as
//! its string, say) drops what the remote result also held: each block as sent, its
//! `structuredContent` and `_meta`. A server serving that tool must answer with those (a tool's
//! `outputSchema` promises the `structuredContent`), so the tool returns both, as a
//! [`Forwarded`], and the rendering step, told by the tool's trait (as it is told that a tool
//! returns content), splits them: the model reads `value`, and the
//! [`ToolCallResult`](crate::ToolCallResult) keeps `result` beside it. A hook that rewrites
//! the result, or a bound that cuts it, leaves the forwarded result unused.

use serde::Serialize;
use serde_json::Value;

use super::limits::{Limits, serialized_len_exceeds, truncate};
use crate::ToolProxy;
use crate::content::{Content, Resource, ToolOutput};
use crate::error::ToolError;

/// What a model reads before an error's message.
const ERROR_PREFIX: &str = "Error: ";

/// How a call's outcome is rendered: the output bound of the limits the call ran under, and
/// whether the result is content blocks (the tool's return type says so, never the result's
/// shape).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Rendering {
    max_output_bytes: Option<usize>,
    content: bool,
    /// The tool forwards another server's results ([`Forwarded`]).
    forwards: bool,
}

impl Rendering {
    /// The rendering of a call made under `limits`, of a tool that returns JSON.
    #[inline]
    pub(crate) fn of(limits: &Limits) -> Self {
        Rendering {
            max_output_bytes: limits.max_output_bytes,
            content: false,
            forwards: false,
        }
    }

    /// The rendering of a call of `tool` made under `limits`: as content when the tool returns
    /// content.
    #[inline]
    pub(crate) fn of_tool(limits: &Limits, tool: &ToolProxy) -> Self {
        Rendering {
            max_output_bytes: limits.max_output_bytes,
            content: tool.returns_content(),
            forwards: tool.forwards(),
        }
    }

    /// The rendering of a result that is content, without an output bound.
    pub(crate) fn content() -> Self {
        Rendering {
            max_output_bytes: None,
            content: true,
            forwards: false,
        }
    }

    /// Whether the result is content blocks.
    #[inline]
    pub(crate) fn is_content(self) -> bool {
        self.content
    }

    /// A result cut to `max_output_bytes`, marking the cut: a string result is measured by its
    /// length, any other by its compact JSON, and is then returned as the cut JSON text.
    ///
    /// A content result of several blocks or a binary one over the bound is cut block by block
    /// instead (see [`bound_content`]), and comes back as a whole `{"content": [...]}`: base64
    /// is never cut.
    #[inline]
    pub(crate) fn output(self, value: Value) -> Value {
        let Some(max) = self.max_output_bytes else {
            return value;
        };
        // A content result that is one string is one text block: cut as text, so it stays a
        // string (a remote tool's text answer reads as it always did).
        if self.content && !value.is_string() {
            if !serialized_len_exceeds(&value, max) {
                return value;
            }
            return match bound_content(ToolOutput::from_value(value.clone()), max) {
                Some(bounded) => serde_json::to_value(&bounded).unwrap_or(Value::Null),
                // Its JSON is over the bound, its payload is not: returned as the tool gave it.
                None => value,
            };
        }
        match value {
            Value::String(text) if text.len() > max => Value::String(truncate(text, max)),
            Value::String(_) => value,
            other if !serialized_len_exceeds(&other, max) => other,
            other => Value::String(truncate(other.to_string(), max)),
        }
    }

    /// An error as a model reads it: `"Error: <message>"`, cut to the bound like a result (a
    /// model reads both).
    pub(crate) fn error_text(self, err: &ToolError) -> String {
        self.cut(format!("{ERROR_PREFIX}{err}"))
    }

    /// An error's message alone, cut to the bound, for a format that says "error" on its own
    /// (MCP's `isError`).
    pub(crate) fn error_message(self, err: &ToolError) -> String {
        self.cut(err.to_string())
    }

    fn cut(self, text: String) -> String {
        match self.max_output_bytes {
            Some(max) if text.len() > max => truncate(text, max),
            _ => text,
        }
    }

    /// The outcome as a model reads it: the bounded result, or the error text.
    pub(crate) fn model_value(self, outcome: Result<Value, ToolError>) -> Value {
        self.rendered(outcome).0
    }

    /// The outcome as a model reads it, with the error it rendered (kept for the formats that
    /// word an error their own way).
    #[inline]
    pub(crate) fn rendered(self, outcome: Result<Value, ToolError>) -> (Value, Option<ToolError>) {
        match outcome {
            Ok(value) => (self.output(self.forwarded(value).0), None),
            Err(err) => (Value::String(self.error_text(&err)), Some(err)),
        }
    }

    /// [`rendered`](Self::rendered), with what the value was rendered from kept behind it: the
    /// error, or a forwarding tool's remote result (unless the bound cut the value: the remote
    /// result then says more than it).
    pub(crate) fn rendered_keeping(
        self,
        outcome: Result<Value, ToolError>,
    ) -> (Value, Option<Box<Behind>>) {
        match outcome {
            Ok(value) if self.forwards => {
                let (value, result) = Forwarded::split(value);
                let shown = self.output(value.clone());
                let kept = result
                    .filter(|_| shown == value)
                    .map(|result| Behind::Forwarded {
                        result,
                        rendered: value,
                    });
                (shown, kept.map(Box::new))
            }
            outcome => {
                let (value, error) = self.rendered(outcome);
                (value, error.map(|error| Box::new(Behind::Error(error))))
            }
        }
    }

    /// The outcome for a Rust caller: the result bounded, an error kept typed.
    #[inline]
    pub(crate) fn bounded(self, outcome: Result<Value, ToolError>) -> Result<Value, ToolError> {
        outcome.map(|value| self.output(self.forwarded(value).0))
    }

    /// A forwarding tool's JSON split into the value a model reads and the remote result; any
    /// other tool's JSON as it is.
    #[inline]
    fn forwarded(self, value: Value) -> (Value, Option<Value>) {
        match self.forwards {
            true => Forwarded::split(value),
            false => (value, None),
        }
    }
}

/// A content result kept within `max` bytes of payload (the bytes of text, base64 data, a
/// resource's text or blob, a link's URI and name; the JSON around them is not counted), in
/// order: a block that fits whole is kept; a text block (or a text resource) that does not is
/// cut to what is left, with the usual marker; an image, audio or binary resource that does not
/// is replaced by a text block saying what was left out and why, so base64 is never cut in
/// half; structured content that does not fit is left out the same way. The notes themselves
/// are not counted. `None` when the whole payload fits.
fn bound_content(output: ToolOutput, max: usize) -> Option<ToolOutput> {
    let structured_len = output
        .structured_content
        .as_ref()
        .map_or(0, |s| s.to_string().len());
    let total: usize = output.content.iter().map(payload_len).sum::<usize>() + structured_len;
    if total <= max {
        return None;
    }
    let mut left = max;
    let mut bounded = ToolOutput::new();
    for block in output.content {
        let size = payload_len(&block);
        if size <= left {
            left -= size;
            bounded.content.push(block);
            continue;
        }
        // A cut text spends what is left; a block left out spends nothing, so a later block
        // may still fit.
        let kept = match block {
            Content::Text(mut text) if left > 0 => {
                text.text = truncate(std::mem::take(&mut text.text), left);
                left = 0;
                Content::Text(text)
            }
            Content::Resource(mut resource) if left > 0 && resource.resource.text.is_some() => {
                let text = resource.resource.text.take().unwrap_or_default();
                resource.resource.text = Some(truncate(text, left));
                left = 0;
                Content::Resource(resource)
            }
            other => Content::text(left_out(&kind_of(&other), size, max)),
        };
        bounded.content.push(kept);
    }
    if let Some(structured) = output.structured_content {
        if structured_len <= left {
            bounded.structured_content = Some(structured);
        } else {
            let note = left_out("structured content", structured_len, max);
            bounded.content.push(Content::text(note));
        }
    }
    Some(bounded)
}

/// The bytes of a block the output bound counts.
fn payload_len(block: &Content) -> usize {
    match block {
        Content::Text(text) => text.text.len(),
        Content::Image(image) => image.data.len(),
        Content::Audio(audio) => audio.data.len(),
        Content::Resource(resource) => {
            let contents = &resource.resource;
            let body = contents.text.as_ref().or(contents.blob.as_ref());
            contents.uri.len() + body.map_or(0, String::len)
        }
        Content::ResourceLink(link) => link.uri.len() + link.name.len(),
    }
}

/// What a block is, for a note: `image (image/png)`.
fn kind_of(block: &Content) -> String {
    match block {
        Content::Text(_) => "text".into(),
        Content::Image(image) => format!("image ({})", image.mime_type),
        Content::Audio(audio) => format!("audio ({})", audio.mime_type),
        Content::Resource(resource) => format!("resource {}", resource.resource.uri),
        Content::ResourceLink(link) => format!("resource link {}", link.uri),
    }
}

/// The note that replaces a block over the output bound.
fn left_out(kind: &str, size: usize, max: usize) -> String {
    format!("[{kind} of {size} bytes left out: over the output limit of {max} bytes]")
}

/// A content result as text, for a format that carries text only (a Chat Completions tool
/// message, [`ToolCallResult::text`](crate::ToolCallResult::text)).
impl Content {
    /// A line naming a block that is not text, for a format that carries text only: `[image
    /// (image/png), 5500 bytes]`, `[audio (audio/wav), 300 bytes]`, a text resource's URI line
    /// followed by its text, `[resource <uri> (application/pdf), 2048 bytes]`, `[resource
    /// link: <name> <uri> (text/csv): <description>]`. `None` for a text block.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// assert_eq!(Content::from(Image::png([1, 2, 3])).note().unwrap(), "[image (image/png), 3 bytes]");
    /// assert_eq!(Content::text("hi").note(), None);
    /// ```
    pub fn note(&self) -> Option<String> {
        Some(match self {
            Content::Text(_) => return None,
            Content::Image(image) => {
                format!(
                    "[image ({}), {} bytes]",
                    image.mime_type,
                    decoded_len(&image.data)
                )
            }
            Content::Audio(audio) => {
                format!(
                    "[audio ({}), {} bytes]",
                    audio.mime_type,
                    decoded_len(&audio.data)
                )
            }
            Content::Resource(Resource { resource }) => {
                let mime = resource.mime_type.as_deref().unwrap_or("unknown type");
                match (&resource.text, &resource.blob) {
                    (Some(text), _) => format!("[resource {} ({mime})]\n{text}", resource.uri),
                    (None, blob) => format!(
                        "[resource {} ({mime}), {} bytes]",
                        resource.uri,
                        blob.as_deref().map_or(0, decoded_len)
                    ),
                }
            }
            Content::ResourceLink(link) => {
                let mut note = format!("[resource link: {} {}", link.name, link.uri);
                if let Some(mime) = &link.mime_type {
                    note.push_str(&format!(" ({mime})"));
                }
                if let Some(description) = &link.description {
                    note.push_str(&format!(": {description}"));
                }
                note.push(']');
                note
            }
        })
    }
}

impl ToolOutput {
    /// The whole output as text, for a format that carries text only: each text block as it
    /// is and each other block as its [`note`](Content::note), joined by newlines.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let output = ToolOutput::new().with("a chart").with(Image::png([1, 2, 3]));
    /// assert_eq!(output.to_text(), "a chart\n[image (image/png), 3 bytes]");
    /// ```
    pub fn to_text(&self) -> String {
        let lines: Vec<String> = self
            .content
            .iter()
            .map(|block| match block.as_text() {
                Some(text) => text.to_owned(),
                None => block.note().unwrap_or_default(),
            })
            .collect();
        lines.join("\n")
    }
}

/// The number of bytes `data`, base64 with padding, decodes to (without decoding it).
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take(2).filter(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

// Here, not in `error`, so the prefix has one home and `error` imports nothing from `call`.
impl ToolError {
    /// The `"Error: ..."` string a model reads, as [`ToolProxy::dynamic_call`] returns it.
    ///
    /// ```
    /// use toolkit_runtime::ToolError;
    ///
    /// let err = ToolError::Failed { tool: "db_query".into(), message: "timeout".into() };
    /// assert_eq!(err.to_model_string(), "Error: timeout");
    /// ```
    ///
    /// [`ToolProxy::dynamic_call`]: crate::ToolProxy::dynamic_call
    pub fn to_model_string(&self) -> String {
        Rendering::default().error_text(self)
    }
}

/// What a forwarding tool returns ([`ToolProxy::forwarding`](crate::ToolProxy::forwarding)): the value a model reads, and the
/// remote server's own result, as JSON.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forwarded {
    /// What a model reads.
    pub value: Value,
    /// The remote server's result, as it sent it.
    pub result: Value,
}

/// What a rendered result keeps behind its value, in one box (most results keep nothing, and a
/// result is moved through every layer of a call).
#[derive(Debug, Clone)]
pub(crate) enum Behind {
    /// The error the value was rendered from.
    Error(ToolError),
    /// A forwarding tool's remote result, and the value it was rendered with, which tells
    /// whether a hook changed the result since.
    Forwarded { result: Value, rendered: Value },
}

impl Forwarded {
    /// Splits a forwarding tool's successful JSON into the value a model reads and the remote
    /// result. JSON of another shape (which a forwarding tool does not return) is the value.
    pub(crate) fn split(value: Value) -> (Value, Option<Value>) {
        match value {
            Value::Object(mut map)
                if map.len() == 2 && map.contains_key("value") && map.contains_key("result") =>
            {
                let result = map.remove("result");
                (map.remove("value").unwrap_or_default(), result)
            }
            other => (other, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_error_is_prefixed_before_it_is_cut() {
        let rendering = Rendering::of(&Limits::default().with_max_output_bytes(10));
        let err = ToolError::Failed {
            tool: "t".into(),
            message: "Error: ".repeat(2),
        };
        assert_eq!(rendering.error_text(&err), "Error: Err");
        assert_eq!(rendering.error_message(&err), "Error: Err");
        assert_eq!(rendering.model_value(Err(err)), json!("Error: Err"));
    }

    /// The output bound of a content result: text is cut with the usual marker, an image over
    /// what is left becomes a note (its base64 is never cut), and structured content that does
    /// not fit is left out with a note. Figure: 40 bytes of bound; a 10-byte text is kept, a
    /// 48-byte image is replaced by a note, a 100-byte text is cut to the 30 bytes left (too
    /// few for the marker), and the 7 bytes of structured content no longer fit.
    #[test]
    fn a_content_result_over_the_bound_is_cut_block_by_block() {
        let limits = Limits::default().with_max_output_bytes(40);
        let rendering = Rendering {
            content: true,
            ..Rendering::of(&limits)
        };
        let image = crate::Image::png([7u8; 36]);
        assert_eq!(image.data.len(), 48);
        let output = ToolOutput::new()
            .with("0123456789")
            .with(image)
            .with("x".repeat(100))
            .structured(json!({"n": 1}));
        let cut = rendering.output(serde_json::to_value(&output).unwrap());
        assert_eq!(
            cut,
            json!({"content": [
                {"type": "text", "text": "0123456789"},
                {"type": "text", "text": "[image (image/png) of 48 bytes left out: over the output limit of 40 bytes]"},
                {"type": "text", "text": "x".repeat(30)},
                {"type": "text", "text": "[structured content of 7 bytes left out: over the output limit of 40 bytes]"}
            ]})
        );
        // Within the bound, a content result is returned as the tool gave it.
        let small = json!({"type": "image", "data": "AAAA", "mimeType": "image/png"});
        assert_eq!(rendering.output(small.clone()), small);
    }

    /// A text block is cut to what is left after the blocks before it, with the marker.
    #[test]
    fn a_text_block_is_cut_to_what_is_left() {
        let limits = Limits::default().with_max_output_bytes(60);
        let rendering = Rendering {
            content: true,
            ..Rendering::of(&limits)
        };
        let output = ToolOutput::new().with("ab").with("y".repeat(200));
        let cut = rendering.output(serde_json::to_value(&output).unwrap());
        let second = cut["content"][1]["text"].as_str().unwrap();
        assert!(second.starts_with("yyy"), "{second}");
        assert!(second.ends_with("bytes]"), "{second}");
        assert!(second.len() <= 58, "{}", second.len());
        // The same JSON from a tool that does not return content is cut as JSON text.
        let plain = Rendering::of(&limits).output(serde_json::to_value(&output).unwrap());
        assert!(plain.is_string());
    }
}
