//! Why a model call failed.

use std::time::Duration;

/// Why a model gave no reply: a variant per cause a caller can act on.
///
/// API keys never appear in these messages: a client's key lives in an
/// [`ApiKey`](crate::models::ApiKey) only, and no error is built from a request's headers.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// A scripted or replayed model has no reply left.
    #[error("the scripted model has no reply left after {given} replies")]
    ScriptExhausted {
        /// How many replies it gave.
        given: usize,
    },
    /// A replayed run asked something other than what was recorded.
    #[error("the replayed run diverged at exchange {index}: {message}")]
    ReplayDiverged {
        /// The position of the exchange (0-based).
        index: usize,
        /// What differed.
        message: String,
    },
    /// A recording could not be read or written.
    #[error("recording {path}: {message}")]
    Recording {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The connection could not be made or broke before a response.
    #[error("could not reach {url}: {message}")]
    Connect {
        /// Where the request went.
        url: String,
        /// The transport's reason.
        message: String,
    },
    /// The request took longer than the client's timeout.
    #[error("the model did not answer within {0:?}")]
    Timeout(Duration),
    /// The server answered with an error status.
    #[error("the model API answered {status}: {body}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The start of the response body.
        body: String,
    },
    /// Retries ran out; `last` is the final attempt's error.
    #[error("gave up after {attempts} attempts; last error: {last}")]
    RetriesExhausted {
        /// How many requests were made.
        attempts: u32,
        /// The last attempt's error.
        last: Box<ModelError>,
    },
    /// The response was not of the content type expected.
    #[error("expected a {expected} response, got content type \"{got}\"")]
    ContentType {
        /// What was expected (`application/json`, `text/event-stream`).
        expected: &'static str,
        /// The content type the server sent.
        got: String,
    },
    /// The body ended before it was complete.
    #[error("the response body was cut off: {0}")]
    Truncated(String),
    /// The body was complete but not what the API documents.
    #[error("the response body is not a valid {api} response: {message}")]
    Decode {
        /// Which API's format was expected.
        api: &'static str,
        /// What was wrong, naming the field.
        message: String,
    },
}

impl ModelError {
    /// Whether another attempt may succeed: 429, 5xx, a broken connection or a timeout.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Status { status, .. } => *status == 429 || *status >= 500,
            ModelError::Connect { .. } | ModelError::Timeout(_) => true,
            _ => false,
        }
    }
}
