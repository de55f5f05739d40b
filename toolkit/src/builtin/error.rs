//! The one error type of the built-in toolsets, phrased for the model that reads it.

use std::time::Duration;

/// Why a built-in tool refused or failed a call.
///
/// Each `Display` is a sentence a model can act on; through
/// [`ToolProxy::dynamic_call`](crate::ToolProxy::dynamic_call) it arrives as `"Error: ..."`.
///
/// ```
/// use toolkit::builtin::BuiltinError;
///
/// let err = BuiltinError::InvalidPattern { pattern: "(".into(), reason: "unclosed group".into() };
/// assert_eq!(err.to_string(), "invalid pattern '(': unclosed group");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuiltinError {
    /// A regular expression did not compile, or compiled past the size limit.
    #[error("invalid pattern '{pattern}': {reason}")]
    InvalidPattern {
        /// The pattern as sent.
        pattern: String,
        /// Why, in words.
        reason: String,
    },
    /// An argument is larger than the tool accepts.
    #[error(
        "{argument} is {actual} bytes, more than the {limit}-byte limit of {tool}; \
         send a smaller piece"
    )]
    TooLarge {
        /// The tool's name.
        tool: &'static str,
        /// The argument's name.
        argument: String,
        /// The argument's size, in bytes.
        actual: usize,
        /// The limit, in bytes.
        limit: usize,
    },
    /// `text_extract_lines` was asked for a line after the last one.
    #[error("start_line {start} is past the end of the text ({lines} lines)")]
    StartPastEnd {
        /// The first line asked for (1-based).
        start: i64,
        /// How many lines the text has.
        lines: usize,
    },
    /// `text_extract_lines` got a range that ends before it starts.
    #[error("end_line {end} is before start_line {start}")]
    EndBeforeStart {
        /// The first line asked for (1-based).
        start: i64,
        /// The last line asked for.
        end: i64,
    },
    /// An argument has a value the tool does not accept.
    #[error("invalid {argument}: {reason}")]
    InvalidArgument {
        /// The argument's name.
        argument: String,
        /// Why, in words.
        reason: String,
    },
    /// A repository or host names a host the toolset is not allowed to contact.
    #[error("{argument} names the host '{host}', which is not allowed; allowed hosts: {allowed}")]
    HostNotAllowed {
        /// The argument's name.
        argument: String,
        /// The host that was named.
        host: String,
        /// The allowed hosts, comma-separated, or `none`.
        allowed: String,
    },
    /// The `gh` program could not be started.
    #[error("could not run {program}: {reason}; is the GitHub CLI installed and on PATH?")]
    Spawn {
        /// The program that was run.
        program: String,
        /// Why, in words.
        reason: String,
    },
    /// `gh` ran past the deadline and was stopped.
    #[error("{command} did not finish within {timeout:?} and was stopped")]
    Timeout {
        /// The command line that was run.
        command: String,
        /// The deadline it ran past.
        timeout: Duration,
    },
    /// `gh` exited with an error; its stderr is the reason.
    #[error("{command} failed ({status}): {stderr}")]
    CommandFailed {
        /// The command line that was run.
        command: String,
        /// How it exited (exit code or signal).
        status: String,
        /// What it printed on stderr.
        stderr: String,
    },
    /// `gh` printed more than the toolset accepts.
    #[error("{command} printed more than {limit} bytes; ask for less (a smaller limit or page)")]
    OutputTooLarge {
        /// The command line that was run.
        command: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// `gh` printed something that is not the JSON the tool asked for.
    #[error("{command} printed output that is not the expected JSON: {reason}")]
    UnexpectedOutput {
        /// The command line that was run.
        command: String,
        /// Why, in words.
        reason: String,
    },
}
