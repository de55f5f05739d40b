//! What kind of error a [`ToolError`] is, without its details.

use crate::error::ToolError;

/// What kind of error a [`ToolError`] is, without its details: one variant per variant of
/// `ToolError`, for dashboards, filters and code that branches on the cause.
///
/// ```
/// use toolkit_runtime::{ToolError, ToolErrorKind};
///
/// let err = ToolError::Failed { tool: "db_query".into(), message: "timeout".into() };
/// assert_eq!(err.kind(), ToolErrorKind::Failed);
/// assert_eq!(err.kind().as_str(), "failed");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// The arguments were text that is not JSON.
    InvalidJson,
    /// The arguments were JSON, but not an object.
    NotAnObject,
    /// Arguments missing, unknown or of the wrong shape.
    InvalidArguments,
    /// The tool returned an error of its own.
    Failed,
    /// The tool (or a hook) panicked.
    Panicked,
    /// The model named a tool that does not exist.
    UnknownTool,
    /// An async tool was called from sync code without the opt-in.
    AsyncToolCalledSync,
    /// An async tool could not be run synchronously where it was called.
    AsyncConversionUnavailable,
    /// The tool's parameter schema does not compile.
    InvalidSchema,
    /// The result could not be turned into JSON.
    UnserializableResult,
    /// The schema cannot be expressed in a provider's dialect.
    UnsupportedSchema,
    /// What the model sent is not a tool call.
    InvalidCall,
    /// A tool built at run time cannot work.
    InvalidDefinition,
    /// The arguments were larger than the tool accepts.
    InputTooLarge,
    /// The arguments nest too deeply.
    TooDeeplyNested,
    /// The call ran past its deadline.
    TimedOut,
    /// The call's caller cancelled it before it finished.
    Cancelled,
    /// Every place the tool has on the blocking pool stayed taken.
    Busy,
    /// Every place the tool has is held by a call past its deadline.
    Overdue,
    /// The arguments are too complex to check.
    TooComplex,
    /// The application's policy refused the call.
    Rejected,
    /// The model sent a parameter that is filled from state.
    StateArgumentSent,
    /// A state key a required parameter reads has no value.
    StateValueMissing,
    /// State could not be read for the call or could not take its result.
    State,
}

impl ToolErrorKind {
    /// A short, stable name for the kind (`timed_out`), as a call's span records it in
    /// `outcome`.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolErrorKind::InvalidJson => "invalid_json",
            ToolErrorKind::NotAnObject => "not_an_object",
            ToolErrorKind::InvalidArguments => "invalid_arguments",
            ToolErrorKind::Failed => "failed",
            ToolErrorKind::Panicked => "panicked",
            ToolErrorKind::UnknownTool => "unknown_tool",
            ToolErrorKind::AsyncToolCalledSync => "async_tool_called_sync",
            ToolErrorKind::AsyncConversionUnavailable => "async_conversion_unavailable",
            ToolErrorKind::InvalidSchema => "invalid_schema",
            ToolErrorKind::UnserializableResult => "unserializable_result",
            ToolErrorKind::UnsupportedSchema => "unsupported_schema",
            ToolErrorKind::InvalidCall => "invalid_call",
            ToolErrorKind::InvalidDefinition => "invalid_definition",
            ToolErrorKind::InputTooLarge => "input_too_large",
            ToolErrorKind::TooDeeplyNested => "too_deeply_nested",
            ToolErrorKind::TimedOut => "timed_out",
            ToolErrorKind::Cancelled => "cancelled",
            ToolErrorKind::Busy => "busy",
            ToolErrorKind::Overdue => "overdue",
            ToolErrorKind::TooComplex => "too_complex",
            ToolErrorKind::Rejected => "rejected",
            ToolErrorKind::StateArgumentSent => "state_argument_sent",
            ToolErrorKind::StateValueMissing => "state_value_missing",
            ToolErrorKind::State => "state",
        }
    }
}

impl ToolError {
    /// What kind of error this is; see [`ToolErrorKind`].
    pub fn kind(&self) -> ToolErrorKind {
        match self {
            ToolError::InvalidJson { .. } => ToolErrorKind::InvalidJson,
            ToolError::NotAnObject { .. } => ToolErrorKind::NotAnObject,
            ToolError::InvalidArguments { .. } => ToolErrorKind::InvalidArguments,
            ToolError::Failed { .. } => ToolErrorKind::Failed,
            ToolError::Panicked { .. } => ToolErrorKind::Panicked,
            ToolError::UnknownTool { .. } => ToolErrorKind::UnknownTool,
            ToolError::AsyncToolCalledSync { .. } => ToolErrorKind::AsyncToolCalledSync,
            ToolError::AsyncConversionUnavailable { .. } => {
                ToolErrorKind::AsyncConversionUnavailable
            }
            ToolError::InvalidSchema { .. } => ToolErrorKind::InvalidSchema,
            ToolError::UnserializableResult { .. } => ToolErrorKind::UnserializableResult,
            ToolError::UnsupportedSchema { .. } => ToolErrorKind::UnsupportedSchema,
            ToolError::InvalidCall { .. } => ToolErrorKind::InvalidCall,
            ToolError::InvalidDefinition { .. } => ToolErrorKind::InvalidDefinition,
            ToolError::InputTooLarge { .. } => ToolErrorKind::InputTooLarge,
            ToolError::TooDeeplyNested { .. } => ToolErrorKind::TooDeeplyNested,
            ToolError::TimedOut { .. } => ToolErrorKind::TimedOut,
            ToolError::Cancelled { .. } => ToolErrorKind::Cancelled,
            ToolError::Busy { .. } => ToolErrorKind::Busy,
            ToolError::Overdue { .. } => ToolErrorKind::Overdue,
            ToolError::TooComplex { .. } => ToolErrorKind::TooComplex,
            ToolError::Rejected { .. } => ToolErrorKind::Rejected,
            ToolError::StateArgumentSent { .. } => ToolErrorKind::StateArgumentSent,
            ToolError::StateValueMissing { .. } => ToolErrorKind::StateValueMissing,
            ToolError::State { .. } => ToolErrorKind::State,
        }
    }
}
