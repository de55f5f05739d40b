//! Bounds on what a server's `tools/list` may cost: tools and bytes per listing, counted as the
//! pages arrive, and bytes and `$defs` per schema, measured before it is inlined.
//!
//! Each page is bounded by the message bound, and the pages by [`MAX_TOOL_PAGES`]; without
//! these, 100 pages of 10,000 tools held 1.74 GB, and one tool whose schema had 100,000 flat
//! `$defs` (7 MB) took 593 MB to inline.
//!
//! A page is also [`screen`]ed in its own text, before rmcp parses it (over stdio and SSE, where
//! toolkit reads the text): rmcp reads a message through serde's buffered untagged enums, at 20
//! to 35 times its size (a 5.5 MB page of 100,000 tools: 177 MB; a 6.3 MB schema: 138 MB), so a
//! page over a bound is refused, and a tool over a schema bound cut out of it, at about the cost
//! of reading its text (22 MB and 23 MB: `tests/mcp/client_hardening.rs`).

use serde::de::{self, DeserializeSeed, IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The most pages of `tools/list` read: a server that always answers with another cursor
/// would otherwise be listed forever.
pub(super) const MAX_TOOL_PAGES: usize = 100;

/// The most tools one listing may hold unless told otherwise.
pub const DEFAULT_MAX_TOOLS: usize = 10_000;

/// The most bytes (as compact JSON) the tools of one listing may take unless told otherwise:
/// as much as one message may hold. Parsed, tools take about 15 times their JSON (32 MiB of
/// tools held 480 MB), so this bounds a listing's memory near 290 MB.
pub const DEFAULT_MAX_LISTING_BYTES: usize = 16 << 20;

/// The largest input or output schema of one tool (as compact JSON) unless told otherwise.
pub const DEFAULT_MAX_SCHEMA_BYTES: usize = 1 << 20;

/// The most definitions (`$defs` or `definitions`) one tool's input or output schema may hold.
pub(super) const MAX_SCHEMA_DEFS: usize = 10_000;

/// What one listing may hold.
#[derive(Debug, Clone, Copy)]
pub(super) struct ListingLimits {
    pub(super) max_tools: usize,
    pub(super) max_bytes: usize,
    pub(super) max_schema_bytes: usize,
}

impl Default for ListingLimits {
    fn default() -> Self {
        ListingLimits {
            max_tools: DEFAULT_MAX_TOOLS,
            max_bytes: DEFAULT_MAX_LISTING_BYTES,
            max_schema_bytes: DEFAULT_MAX_SCHEMA_BYTES,
        }
    }
}

/// Why a listing was refused.
#[derive(Debug, thiserror::Error)]
pub(super) enum ListingError {
    #[error("the server listed more than {limit} tools (`max_tools`)")]
    TooManyTools { limit: usize },
    #[error("the server's tools take more than {limit} bytes (`max_listing_bytes`)")]
    TooManyBytes { limit: usize },
    #[error("the server was still paginating after {MAX_TOOL_PAGES} pages of tools")]
    Endless,
}

/// Why a remote tool's schema is refused (the tool is left out, the others kept).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum SchemaRefused {
    #[error("its {which} schema is larger than {limit} bytes (`max_schema_bytes`)")]
    TooLarge { which: &'static str, limit: usize },
    #[error("its {which} schema has more than {MAX_SCHEMA_DEFS} `$defs`")]
    TooManyDefs { which: &'static str },
}

/// A running count of one listing's tools and bytes.
#[derive(Debug, Default)]
pub(super) struct Tally {
    tools: usize,
    bytes: usize,
}

impl Tally {
    /// Adds a page's tools, failing once the listing is over `limits`.
    pub(super) fn add(
        &mut self,
        tools: &[rmcp::model::Tool],
        limits: &ListingLimits,
    ) -> Result<(), ListingError> {
        self.tools += tools.len();
        if self.tools > limits.max_tools {
            return Err(ListingError::TooManyTools {
                limit: limits.max_tools,
            });
        }
        let room = limits.max_bytes - self.bytes.min(limits.max_bytes);
        match json_len_within(tools, room) {
            Some(bytes) => {
                self.bytes += bytes;
                Ok(())
            }
            None => Err(ListingError::TooManyBytes {
                limit: limits.max_bytes,
            }),
        }
    }
}

/// The length of `value` as compact JSON if it is at most `max`; counted without building the
/// text, and abandoned as soon as it passes `max`.
pub(super) fn json_len_within<T: Serialize + ?Sized>(value: &T, max: usize) -> Option<usize> {
    struct Count {
        bytes: usize,
        max: usize,
    }
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.bytes += buf.len();
            if self.bytes > self.max {
                return Err(std::io::Error::other("over the bound"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count { bytes: 0, max };
    serde_json::to_writer(&mut count, value).ok()?;
    Some(count.bytes)
}

/// What [`screen`] makes of one message from the server.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Screened {
    /// Not a page of tools, or one within bounds: passed on as it is.
    Pass,
    /// A page with tools left out, their schemas over a bound: this text instead.
    Trimmed(Vec<u8>),
    /// A page over a bound: this JSON-RPC error, answering its request, instead.
    Refused(Vec<u8>),
}

/// The `data` of the error that [`screen`] answers a refused page with, so the listing can
/// say why in its own words.
const REFUSED_DATA: &str = "toolkit: tools/list refused";

/// Checks one message in its text, before rmcp parses it: a page of `tools/list` (an answer
/// whose `result` has `tools`) with more tools or bytes than `limits` allow one listing is
/// refused, and a tool whose schema is over [`ListingLimits::max_schema_bytes`] or
/// [`MAX_SCHEMA_DEFS`] is cut out of it, with a warning. Nothing is built but the list of the
/// page's first tools, as slices of its text; anything that does not read as such a page
/// passes, for rmcp to read or refuse.
pub(super) fn screen(message: &[u8], limits: &ListingLimits) -> Screened {
    let Ok(text) = std::str::from_utf8(message) else {
        return Screened::Pass;
    };
    let Some((id, tools)) = page_of(text) else {
        return Screened::Pass;
    };
    let refused = |error: ListingError| Screened::Refused(refusal(id, &error));
    if tools.get().len() > limits.max_bytes {
        return refused(ListingError::TooManyBytes {
            limit: limits.max_bytes,
        });
    }
    let mut reader = serde_json::Deserializer::from_str(tools.get());
    let Ok(listed) = FirstTools(limits.max_tools).deserialize(&mut reader) else {
        return Screened::Pass;
    };
    if listed.count > limits.max_tools {
        return refused(ListingError::TooManyTools {
            limit: limits.max_tools,
        });
    }
    let mut kept: Vec<&str> = Vec::with_capacity(listed.tools.len());
    let mut changed = false;
    for tool in &listed.tools {
        match schema_refused(tool, limits) {
            Some((name, why)) => {
                // One broken or hostile schema costs that tool, not the connection.
                tracing::warn!(tool = %name, error = %why, "remote tool left out");
                changed = true;
            }
            None => kept.push(tool.get()),
        }
    }
    if !changed {
        return Screened::Pass;
    }
    // The `tools` text is a slice of the message's: it is replaced by the tools kept.
    let start = (tools.get().as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    let (Some(before), Some(after)) = (
        text.get(..start),
        text.get(start.saturating_add(tools.get().len())..),
    ) else {
        return Screened::Pass;
    };
    let mut trimmed = Vec::with_capacity(text.len());
    trimmed.extend_from_slice(before.as_bytes());
    trimmed.push(b'[');
    trimmed.extend_from_slice(kept.join(",").as_bytes());
    trimmed.push(b']');
    trimmed.extend_from_slice(after.as_bytes());
    Screened::Trimmed(trimmed)
}

/// The `id` and the `tools` (a list) of a message that answers with a page of tools.
fn page_of(text: &str) -> Option<(&RawValue, &RawValue)> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
        #[serde(borrow)]
        result: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Page<'a> {
        #[serde(borrow)]
        tools: Option<&'a RawValue>,
    }
    let envelope: Envelope<'_> = serde_json::from_str(text).ok()?;
    let page: Page<'_> = serde_json::from_str(envelope.result?.get()).ok()?;
    let tools = page.tools.filter(|tools| tools.get().starts_with('['))?;
    Some((envelope.id?, tools))
}

/// A tool's name and why its schema is refused, if it is.
fn schema_refused(tool: &RawValue, limits: &ListingLimits) -> Option<(String, SchemaRefused)> {
    #[derive(Deserialize)]
    struct Tool<'a> {
        #[serde(default)]
        name: String,
        #[serde(borrow, rename = "inputSchema")]
        input: Option<&'a RawValue>,
        #[serde(borrow, rename = "outputSchema")]
        output: Option<&'a RawValue>,
    }
    #[derive(Deserialize, Default)]
    struct Definitions {
        #[serde(rename = "$defs", default)]
        defs: Count,
        #[serde(default)]
        definitions: Count,
    }
    // A tool that does not read so is for rmcp to refuse.
    let tool: Tool<'_> = serde_json::from_str(tool.get()).ok()?;
    let schemas = [("input", tool.input), ("output", tool.output)];
    let why = schemas.into_iter().find_map(|(which, schema)| {
        let schema = schema?.get();
        if schema.len() > limits.max_schema_bytes {
            return Some(SchemaRefused::TooLarge {
                which,
                limit: limits.max_schema_bytes,
            });
        }
        let found: Definitions = serde_json::from_str(schema).unwrap_or_default();
        (found.defs.0.saturating_add(found.definitions.0) > MAX_SCHEMA_DEFS)
            .then_some(SchemaRefused::TooManyDefs { which })
    })?;
    Some((tool.name, why))
}

/// How many members an object has, each skipped unread.
#[derive(Default)]
struct Count(usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> Visitor<'de> for Members {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Count, A::Error> {
                let mut count = 0;
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                    count += 1;
                }
                Ok(Count(count))
            }
        }
        // Anything but an object fails the count, which then counts nothing.
        deserializer.deserialize_map(Members)
    }
}

/// The first `max` tools of a page, as slices of its text, and how many it lists in all (the
/// others skipped unread).
struct FirstTools(usize);

struct Listed<'a> {
    tools: Vec<&'a RawValue>,
    count: usize,
}

impl<'de> DeserializeSeed<'de> for FirstTools {
    type Value = Listed<'de>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FirstTools {
    type Value = Listed<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a list of tools")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut tools = Vec::new();
        while tools.len() < self.0 {
            match seq.next_element::<&'de RawValue>()? {
                Some(tool) => tools.push(tool),
                None => {
                    let count = tools.len();
                    return Ok(Listed { tools, count });
                }
            }
        }
        let mut count = tools.len();
        while seq.next_element::<IgnoredAny>()?.is_some() {
            count += 1;
        }
        Ok(Listed { tools, count })
    }
}

/// The error answering the request of a refused page.
fn refusal(id: &RawValue, error: &ListingError) -> Vec<u8> {
    #[derive(Serialize)]
    struct Refusal<'a> {
        jsonrpc: &'static str,
        id: &'a RawValue,
        error: Error,
    }
    #[derive(Serialize)]
    struct Error {
        code: i32,
        message: String,
        data: &'static str,
    }
    let refusal = Refusal {
        jsonrpc: "2.0",
        id,
        error: Error {
            code: -32603,
            message: error.to_string(),
            data: REFUSED_DATA,
        },
    };
    serde_json::to_vec(&refusal).unwrap_or_default()
}

/// What a refused page's error says, when `err` is one that [`screen`] wrote.
pub(super) fn refused(err: &rmcp::service::ServiceError) -> Option<String> {
    let rmcp::service::ServiceError::McpError(error) = err else {
        return None;
    };
    let ours = error.data.as_ref().and_then(serde_json::Value::as_str) == Some(REFUSED_DATA);
    ours.then(|| error.message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limits(max_tools: usize, max_bytes: usize, max_schema_bytes: usize) -> ListingLimits {
        ListingLimits {
            max_tools,
            max_bytes,
            max_schema_bytes,
        }
    }

    fn page(tools: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":4,"result":{{"tools":{tools},"nextCursor":"c"}}}}"#)
    }

    fn text(screened: Screened) -> String {
        match screened {
            Screened::Pass => "pass".into(),
            Screened::Trimmed(text) => format!("trimmed {}", String::from_utf8(text).unwrap()),
            Screened::Refused(text) => format!("refused {}", String::from_utf8(text).unwrap()),
        }
    }

    #[test]
    fn a_page_with_more_tools_than_a_listing_may_hold_is_refused_in_its_text() {
        let tools = format!("[{}]", [r#"{"name":"t","inputSchema":{}}"#; 5].join(","));
        assert_eq!(
            text(screen(page(&tools).as_bytes(), &limits(5, 1000, 100))),
            "pass"
        );
        assert_eq!(
            text(screen(page(&tools).as_bytes(), &limits(4, 1000, 100))),
            r#"refused {"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"the server listed more than 4 tools (`max_tools`)","data":"toolkit: tools/list refused"}}"#
        );
        assert_eq!(
            text(screen(page(&tools).as_bytes(), &limits(10, 100, 100))),
            r#"refused {"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"the server's tools take more than 100 bytes (`max_listing_bytes`)","data":"toolkit: tools/list refused"}}"#
        );
    }

    #[test]
    fn a_tool_whose_schema_is_over_a_bound_is_cut_out_of_the_page_and_the_others_kept() {
        let defs: Vec<String> = (0..=MAX_SCHEMA_DEFS)
            .map(|i| format!(r#""d{i}":{{}}"#))
            .collect();
        let wide = format!(
            r#"{{"name":"wide","inputSchema":{{"$defs":{{{}}}}}}}"#,
            defs.join(",")
        );
        let tools = format!(
            r#"[{{"name":"a","inputSchema":{{"type":"object"}}}}, {{"name":"big","inputSchema":{{"description":"{}"}}}},{wide} ,{{"name":"b","outputSchema":{{}}}}]"#,
            "x".repeat(200)
        );
        let limits = limits(10, 1 << 20, 100);
        assert_eq!(
            text(screen(page(&tools).as_bytes(), &limits)),
            format!(
                "trimmed {}",
                page(
                    r#"[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","outputSchema":{}}]"#
                )
            )
        );
        let defs: Vec<String> = (0..MAX_SCHEMA_DEFS)
            .map(|i| format!(r#""d{i}":{{}}"#))
            .collect();
        let within = format!(
            r#"[{{"name":"w","inputSchema":{{"$defs":{{{}}}}}}}]"#,
            defs.join(",")
        );
        let roomy = ListingLimits::default();
        assert_eq!(text(screen(page(&within).as_bytes(), &roomy)), "pass");
    }

    #[test]
    fn anything_but_a_page_of_tools_passes_as_it_is() {
        let limits = limits(0, 0, 0);
        for message in [
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"tools"}]}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":"not a list"}}"#,
            r#"{"jsonrpc":"2.0","result":{"tools":[{"name":"no id"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"#,
        ] {
            assert_eq!(
                text(screen(message.as_bytes(), &limits)),
                "pass",
                "{message}"
            );
        }
        assert_eq!(text(screen(b"\xff\xfe", &limits)), "pass");
    }

    #[test]
    fn a_length_is_counted_up_to_the_bound_only() {
        let value = json!({"a": [1, 2, 3]});
        assert_eq!(json_len_within(&value, 100), Some(13));
        assert_eq!(json_len_within(&value, 13), Some(13));
        assert_eq!(json_len_within(&value, 12), None);
    }
}
