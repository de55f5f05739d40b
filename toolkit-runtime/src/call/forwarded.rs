//! A result a tool forwards from another server: the value a model reads, and that server's own
//! result beside it, so that a server serving the tool answers with the result itself.
//!
//! An MCP client's remote tool is the one forwarder. Its model-facing value (one text block as
//! its string, say) drops what the remote result also held: each block as sent, its
//! `structuredContent` and `_meta`. A server serving that tool must answer with those (a tool's
//! `outputSchema` promises the `structuredContent`), so the tool returns both, as a
//! [`Forwarded`], and the rendering step, told by the tool's trait (as it is told that a tool
//! returns content), splits them: the model reads `value`, and the
//! [`ToolCallResult`](crate::ToolCallResult) keeps `result` beside it. A hook that rewrites
//! the result, or a bound that cuts it, leaves the forwarded result unused.

use serde::Serialize;
use serde_json::Value;

use super::closures::rebuilt;
use super::proxy::{ToolProxy, ToolTraits};

/// What a forwarding tool returns ([`ToolProxy::forwarding`]): the value a model reads, and the
/// remote server's own result, as JSON.
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forwarded {
    /// What a model reads.
    pub value: Value,
    /// The remote server's result, as it sent it.
    pub result: Value,
}

/// A forwarded result as a [`ToolCallResult`](crate::ToolCallResult) keeps it: the remote
/// result, and the value it was rendered with, which tells whether a hook changed it since.
#[derive(Debug, Clone)]
pub(crate) struct Kept {
    pub(crate) result: Value,
    pub(crate) rendered: Value,
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

impl ToolProxy {
    /// The same tool, its successful results read as [`Forwarded`]: the model reads their
    /// `value`, and a [`ToolCallResult`](crate::ToolCallResult) keeps their `result` for an MCP
    /// server serving the tool ([`ToolCallResult::forwarded`](crate::ToolCallResult::forwarded)).
    #[doc(hidden)]
    pub fn forwarding(self) -> ToolProxy {
        let traits = ToolTraits {
            forwards: true,
            ..self.inner.traits
        };
        rebuilt(self, traits)
    }

    /// Whether the tool forwards another server's results ([`forwarding`](Self::forwarding)).
    #[doc(hidden)]
    pub fn forwards(&self) -> bool {
        self.inner.traits.forwards
    }
}
