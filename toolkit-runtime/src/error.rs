//! The one error type of a tool call, phrased for the model that will read it.

use std::fmt;

/// Why a tool call failed.
///
/// Every variant's `Display` is a sentence a language model can act on: it names the tool, the
/// argument and what to change, never a Rust type or a backtrace. [`ToolProxy::dynamic_call`]
/// prefixes it with `Error: `.
///
/// ```
/// use toolkit_runtime::{ArgumentProblem, ToolError};
///
/// let err = ToolError::InvalidArguments {
///     tool: "stats_word_count".into(),
///     problems: vec![ArgumentProblem::Missing { name: "text".into() }],
/// };
/// assert_eq!(err.to_string(), r#"missing required argument "text" for stats_word_count"#);
/// ```
///
/// [`ToolProxy::dynamic_call`]: crate::ToolProxy::dynamic_call
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments arrived as a string that is not JSON.
    #[error("arguments for {tool} were not valid JSON: {message}")]
    InvalidJson {
        /// The name of the tool that was called.
        tool: String,
        /// The JSON parser's message.
        message: String,
    },
    /// The arguments were JSON, but not an object of named arguments.
    #[error("arguments for {tool} must be a JSON object of named arguments, got {got}")]
    NotAnObject {
        /// The name of the tool that was called.
        tool: String,
        /// The JSON type that arrived instead (`array`, `string`, ...).
        got: String,
    },
    /// One or more arguments are missing, unknown or of the wrong shape.
    #[error("{}", DisplayProblems { tool, problems })]
    InvalidArguments {
        /// The name of the tool that was called.
        tool: String,
        /// Every problem found, in the order of the arguments.
        problems: Vec<ArgumentProblem>,
    },
    /// The tool ran and returned an error of its own; the message is the tool's, unchanged.
    #[error("{message}")]
    Failed {
        /// The name of the tool that was called.
        tool: String,
        /// The tool's own error message, unchanged.
        message: String,
    },
    /// The tool panicked; the host caught it and kept running.
    #[error("tool {tool} panicked: {message}")]
    Panicked {
        /// The name of the tool that was called.
        tool: String,
        /// The panic's message.
        message: String,
    },
    /// The model named a tool that does not exist.
    #[error("Unknown tool: {name}. Available: {}", available.join(", "))]
    UnknownTool {
        /// The tool name the model sent.
        name: String,
        /// The names that do exist, for the model to choose from.
        available: Vec<String>,
    },
    /// An async tool was called through the sync `call` without the explicit opt-in.
    #[error(
        "tool {tool} is async: call it with acall, or allow async-to-sync conversion \
         (toolkit::allow_async_to_sync)"
    )]
    AsyncToolCalledSync {
        /// The name of the tool that was called.
        tool: String,
    },
    /// Async-to-sync conversion was allowed but cannot work where the call was made.
    #[error("tool {tool} is async and cannot be run synchronously here: {reason}")]
    AsyncConversionUnavailable {
        /// The name of the tool that was called.
        tool: String,
        /// Why the conversion cannot work here.
        reason: String,
    },
    /// The tool's parameter schema could not be compiled into a validator.
    #[error("tool {tool} has an invalid parameter schema: {message}")]
    InvalidSchema {
        /// The name of the tool that was called.
        tool: String,
        /// What went wrong, in words.
        message: String,
    },
    /// The result could not be turned into JSON.
    #[error("the result of {tool} could not be converted to JSON: {message}")]
    UnserializableResult {
        /// The name of the tool that was called.
        tool: String,
        /// What went wrong, in words.
        message: String,
    },
    /// The tool's schema cannot be expressed in a provider's dialect (`target`, such as
    /// "OpenAI strict mode"); `path` is where (`items[].counts.additionalProperties`).
    #[error("tool {tool} cannot be sent to {target}: at {path}: {message}")]
    UnsupportedSchema {
        /// The name of the tool that was called.
        tool: String,
        /// The provider dialect, such as "OpenAI strict mode".
        target: String,
        /// Where in the schema or value (`items[2].name`).
        path: String,
        /// What went wrong, in words.
        message: String,
    },
    /// What the model sent is not a tool call in any shape toolkit reads.
    #[error("could not read a tool call: {message}")]
    InvalidCall {
        /// What is wrong with the call.
        message: String,
    },
    /// A tool built at run time has a name, description or schema that cannot work.
    #[error("tool {tool} cannot be built: {message}")]
    InvalidDefinition {
        /// The name of the tool that was called.
        tool: String,
        /// What went wrong, in words.
        message: String,
    },
    /// The arguments were larger than the tool accepts; nothing was parsed.
    #[error(
        "the arguments for {tool} are larger than its limit of {limit} bytes; \
         send less data, for example a shorter text or fewer items"
    )]
    InputTooLarge {
        /// The name of the tool that was called.
        tool: String,
        /// The tool's limit, in bytes.
        limit: usize,
    },
    /// The arguments nest arrays or objects more deeply than the tool accepts.
    #[error(
        "the arguments for {tool} nest arrays or objects more than {limit} levels deep; \
         send a flatter structure"
    )]
    TooDeeplyNested {
        /// The name of the tool that was called.
        tool: String,
        /// The deepest nesting the tool accepts.
        limit: usize,
    },
    /// The call ran past its deadline and its result was abandoned.
    #[error(
        "tool {tool} did not finish within its time limit of {} ms and the call was abandoned; \
         try a smaller request or a different approach",
        timeout.as_millis()
    )]
    TimedOut {
        /// The name of the tool that was called.
        tool: String,
        /// The deadline the call ran past.
        timeout: std::time::Duration,
    },
    /// The call's caller stopped it before it finished: an MCP client's
    /// `notifications/cancelled`, a cancelled [`ToolContext`](crate::ToolContext), or a remote
    /// call its caller gave up on.
    #[error("the call to {tool} was cancelled: {reason}")]
    Cancelled {
        /// The name of the tool that was called.
        tool: String,
        /// Who stopped it, in a few words.
        reason: String,
    },
    /// Every place the tool has on the blocking pool stayed taken while the call waited for one
    /// (`Limits::max_thread_wait`, or its deadline if sooner); the call was refused without
    /// running.
    #[error(
        "tool {tool} is busy: waited {} ms for one of its {limit} places while {running} calls \
         held them ({overdue} of them past their time limit); try again later",
        waited.as_millis()
    )]
    Busy {
        /// The name of the tool that was called.
        tool: String,
        /// How many calls of the tool may hold a thread at once.
        limit: usize,
        /// How many calls held one when the wait ended.
        running: usize,
        /// How many of those its callers had stopped waiting for.
        overdue: usize,
        /// How long the call waited.
        waited: std::time::Duration,
    },
    /// Every place the tool has on the blocking pool is held by a call its caller stopped
    /// waiting for (past its time limit, or cancelled) whose body still runs; the call was
    /// refused at once, without running.
    #[error(
        "tool {tool} is unavailable: all {limit} of its places are held by calls past their time \
         limit that are still running; try again later, or with a smaller request"
    )]
    Overdue {
        /// The name of the tool that was called.
        tool: String,
        /// How many calls of the tool may hold a thread at once.
        limit: usize,
    },
    /// The arguments would take too long to check against the schema: alternatives (untagged
    /// enum variants) nest too deeply in them.
    #[error(
        "the arguments for {tool} are too complex to check: alternatives nest too deeply in \
         them; send a flatter structure"
    )]
    TooComplex {
        /// The name of the tool that was called.
        tool: String,
    },
    /// The application's policy refused the call before it ran.
    #[error("the call to {tool} was refused: {reason}")]
    Rejected {
        /// The name of the tool that was called.
        tool: String,
        /// Why the policy refused it, in the policy's words.
        reason: String,
    },
    /// The model sent an argument for a parameter that is filled from state.
    #[error(
        "do not send \"{parameter}\" to {tool}: it is filled from the agent's state; call again without it"
    )]
    StateArgumentSent {
        /// The tool called.
        tool: String,
        /// The state-filled parameter the model sent.
        parameter: String,
    },
    /// A required parameter is filled from a state key that has no value yet.
    #[error("{tool} cannot run yet: state key \"{key}\" has no value")]
    StateValueMissing {
        /// The tool called.
        tool: String,
        /// The state key without a value.
        key: String,
    },
    /// State could not be read for the call or could not take its result.
    #[error("{tool}: {message}")]
    State {
        /// The tool called.
        tool: String,
        /// What went wrong, naming the state key.
        message: String,
    },
}

impl ToolError {
    /// The name of the tool the error is about (the unknown name, for [`ToolError::UnknownTool`];
    /// empty for [`ToolError::InvalidCall`], which is about no tool in particular).
    ///
    /// ```
    /// use toolkit_runtime::ToolError;
    ///
    /// let err = ToolError::Failed { tool: "db_query".into(), message: "timeout".into() };
    /// assert_eq!(err.tool(), "db_query");
    /// ```
    pub fn tool(&self) -> &str {
        match self {
            ToolError::InvalidJson { tool, .. }
            | ToolError::NotAnObject { tool, .. }
            | ToolError::InvalidArguments { tool, .. }
            | ToolError::Failed { tool, .. }
            | ToolError::Panicked { tool, .. }
            | ToolError::AsyncToolCalledSync { tool }
            | ToolError::AsyncConversionUnavailable { tool, .. }
            | ToolError::InvalidSchema { tool, .. }
            | ToolError::UnserializableResult { tool, .. }
            | ToolError::UnsupportedSchema { tool, .. }
            | ToolError::InvalidDefinition { tool, .. }
            | ToolError::InputTooLarge { tool, .. }
            | ToolError::TooDeeplyNested { tool, .. }
            | ToolError::TimedOut { tool, .. }
            | ToolError::Cancelled { tool, .. }
            | ToolError::Busy { tool, .. }
            | ToolError::Overdue { tool, .. }
            | ToolError::TooComplex { tool }
            | ToolError::Rejected { tool, .. }
            | ToolError::StateArgumentSent { tool, .. }
            | ToolError::StateValueMissing { tool, .. }
            | ToolError::State { tool, .. } => tool,
            ToolError::InvalidCall { .. } => "",
            ToolError::UnknownTool { name, .. } => name,
        }
    }
}

/// One thing wrong with the arguments of a call.
///
/// ```
/// use toolkit_runtime::ArgumentProblem;
///
/// let problem = ArgumentProblem::Unknown { name: "txt".into(), suggestion: Some("text".into()) };
/// assert_eq!(problem.to_string(), r#"unknown argument "txt" (did you mean "text"?)"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgumentProblem {
    /// A required argument was not sent.
    Missing {
        /// The argument's name.
        name: String,
    },
    /// An argument the tool does not take was sent.
    Unknown {
        /// The argument name that was sent.
        name: String,
        /// The closest argument the tool does take, if one is close.
        suggestion: Option<String>,
    },
    /// A value does not fit the schema; `path` is where (`items[2].name`).
    Invalid {
        /// Where in the schema or value (`items[2].name`).
        path: String,
        /// What went wrong, in words.
        message: String,
    },
}

impl fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentProblem::Missing { name } => write!(f, "missing required argument \"{name}\""),
            ArgumentProblem::Unknown {
                name,
                suggestion: Some(s),
            } => {
                write!(f, "unknown argument \"{name}\" (did you mean \"{s}\"?)")
            }
            ArgumentProblem::Unknown {
                name,
                suggestion: None,
            } => {
                write!(f, "unknown argument \"{name}\"")
            }
            ArgumentProblem::Invalid { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

struct DisplayProblems<'a> {
    tool: &'a str,
    problems: &'a [ArgumentProblem],
}

impl fmt::Display for DisplayProblems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tool = self.tool;
        match self.problems {
            [] => write!(f, "invalid arguments for {tool}"),
            [one @ (ArgumentProblem::Missing { .. } | ArgumentProblem::Unknown { .. })] => {
                // "missing required argument "text" for stats_word_count (did you mean ...)"
                match one {
                    ArgumentProblem::Unknown {
                        name,
                        suggestion: Some(s),
                    } => write!(
                        f,
                        "unknown argument \"{name}\" for {tool} (did you mean \"{s}\"?)"
                    ),
                    other => write!(f, "{other} for {tool}"),
                }
            }
            [one] => write!(f, "invalid arguments for {tool}: {one}"),
            many => {
                write!(f, "{} problems with the arguments for {tool}:", many.len())?;
                for problem in many {
                    write!(f, "\n- {problem}")?;
                }
                Ok(())
            }
        }
    }
}
