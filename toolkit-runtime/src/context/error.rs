//! What can go wrong when a tool asks through its context.

/// Why [`ToolContext::sample`](super::ToolContext::sample) or
/// [`ToolContext::elicit`](super::ToolContext::elicit) got no answer.
///
/// ```
/// use toolkit::context::ContextError;
///
/// let err = ContextError::unavailable("sampling", "summarise");
/// assert!(err.to_string().contains("sampling"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// Nothing that can answer listens to this call (a plain `dynamic_call`, or a client that
    /// did not declare the capability).
    #[error("{what} is not available to tool `{tool}`: {why}")]
    Unavailable {
        /// What was asked for: "sampling" or "elicitation".
        what: &'static str,
        /// The tool that asked.
        tool: String,
        /// Why nothing answers.
        why: String,
    },
    /// The answer's type cannot be asked for: elicitation allows a flat object of strings,
    /// numbers, booleans and enums only.
    #[error("cannot ask the user for this type: {0}")]
    UnsupportedSchema(String),
    /// The answer did not read as the type asked for.
    #[error("the answer does not fit the type asked for: {0}")]
    InvalidAnswer(String),
    /// The call was cancelled while it waited.
    #[error("the call was cancelled")]
    Cancelled,
    /// The peer answered with an error.
    #[error("{0}")]
    Failed(String),
}

impl ContextError {
    /// The error for `what` asked by `tool` where nothing listens.
    pub fn unavailable(what: &'static str, tool: &str) -> Self {
        ContextError::Unavailable {
            what,
            tool: tool.to_owned(),
            why: "nothing listens to this call's context (called directly, not through an MCP \
                  server or an agent)"
                .to_owned(),
        }
    }
}
