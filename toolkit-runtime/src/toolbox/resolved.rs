//! A door for a caller that resolves the tool itself: the MCP server looks a `tools/call`'s
//! tool up once, checks its caller's scopes and the tool's task setting against it, and runs
//! the call on that tool, through the same core as [`Toolbox::acall`], without a second lookup.

use std::borrow::Cow;

use super::Toolbox;
use crate::call::{Limits, ToolProxy};
use crate::error::ToolError;
use crate::{ToolCall, ToolCallResult};

/// A tool of a toolbox, found by name once, with the limits it runs under there.
#[doc(hidden)]
#[derive(Clone, Debug)]
pub struct ToolRef<'a> {
    tool: Cow<'a, ToolProxy>,
    limits: Limits,
}

impl ToolRef<'_> {
    /// The tool.
    pub fn tool(&self) -> &ToolProxy {
        &self.tool
    }

    /// The same tool, owned: for a call that outlives the borrow (an MCP task), at the cost of
    /// one reference count.
    pub fn into_owned(self) -> ToolRef<'static> {
        ToolRef {
            tool: Cow::Owned(self.tool.into_owned()),
            limits: self.limits,
        }
    }
}

impl Toolbox {
    /// The tool called `name`, with its limits, for [`acall_tool`](Self::acall_tool).
    ///
    /// ```
    /// use toolkit::prelude::*;
    /// use toolkit::ToolDefinition;
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let echo = ToolProxy::from_fn(ToolDefinition::new("echo", "Echo", json!({})), |args| {
    ///     Ok::<_, String>(args)
    /// });
    /// let toolbox = Toolbox::builder().tool(echo).build().unwrap();
    /// let tool = toolbox.lookup("echo").expect("held");
    /// let result = toolbox.acall_tool(&tool, &ToolCall::new("echo", json!({"a": 1}))).await;
    /// assert_eq!(result.value, json!({"a": 1}));
    /// assert!(toolbox.lookup("other").is_none());
    /// # });
    /// ```
    #[doc(hidden)]
    pub fn lookup(&self, name: &str) -> Option<ToolRef<'_>> {
        let tool = self.get(name)?;
        Some(ToolRef {
            limits: tool.options().limits.over(self.limits),
            tool: Cow::Borrowed(tool),
        })
    }

    /// Runs `call` on `tool`, found by [`lookup`](Self::lookup) in this toolbox, as
    /// [`acall`](Self::acall) runs it: hooks, limits, pipeline, span, rendering and report.
    #[doc(hidden)]
    pub async fn acall_tool(&self, tool: &ToolRef<'_>, call: &ToolCall) -> ToolCallResult {
        let found = Ok((&*tool.tool, tool.limits));
        self.adispatch(call, None, None, found).await
    }

    /// The answer to a call of `tool` its caller cancelled before it ended (an MCP client's
    /// `notifications/cancelled`): [`ToolError::Cancelled`](crate::ToolError::Cancelled), in a
    /// span and through the after-call hooks as every answer, so that a call stopped halfway is
    /// reported, not lost.
    #[doc(hidden)]
    pub fn cancelled(&self, tool: &ToolRef<'_>, call: &ToolCall, reason: &str) -> ToolCallResult {
        let cancelled = ToolError::Cancelled {
            tool: call.name.clone(),
            reason: reason.to_owned(),
        };
        self.refuse(call, cancelled, &tool.limits)
    }
}
