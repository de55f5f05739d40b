//! Why a model call failed.

use std::time::Duration;

/// Why a model gave no reply: a variant per cause a caller can act on.
///
/// API keys never appear in these messages: a client's key lives in an
/// `ApiKey` only, no error is built from a request's headers, and a
/// client removes its key and its base URL's `user:password@` from every error (a server may
/// echo the key in an error body) before it returns or logs one.
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
    /// The server answered with a redirect, which is never followed: the key and the
    /// conversation go to the configured address only.
    #[error(
        "the model API answered {status} redirecting to {location}; redirects are not \
         followed, so that the key and the conversation never go elsewhere: set the base URL \
         to the address that answers"
    )]
    Redirected {
        /// The HTTP status code (301, 302, 303, 307, 308).
        status: u16,
        /// The origin (`scheme://host:port`) of the `Location`, or `no Location`.
        location: String,
    },
    /// The response was larger than the client's `max_response_bytes`.
    #[error("the response is larger than {limit} bytes (the client's max_response_bytes)")]
    TooLarge {
        /// The bound, in bytes.
        limit: usize,
    },
    /// The server sent nothing for longer than the client's idle timeout in the middle of a
    /// body or a stream.
    #[error("the model sent nothing for {0:?} in the middle of its answer")]
    Stalled(Duration),
    /// The whole call, retries and waits included, took longer than the client's
    /// `total_timeout`.
    #[error("the model call took longer than its {budget:?} budget ({attempts} attempts)")]
    OutOfTime {
        /// The budget.
        budget: Duration,
        /// How many requests were started.
        attempts: u32,
    },
    /// The request could not be built as the API takes it, so nothing was sent: a tool strict
    /// mode cannot express, say.
    ///
    /// ```
    /// use toolkit_runtime::chat::ModelError;
    ///
    /// let error = ModelError::Request {
    ///     api: "OpenAI Chat Completions",
    ///     message: "the tools cannot be sent as strict definitions: ...".into(),
    /// };
    /// assert!(!error.is_retryable());
    /// assert!(error.to_string().starts_with("the OpenAI Chat Completions request cannot be built"));
    /// ```
    #[error("the {api} request cannot be built: {message}")]
    Request {
        /// Which API's format the request was for.
        api: &'static str,
        /// What could not be expressed, naming the tool and the place.
        message: String,
    },
    /// The body was complete but not what the API documents.
    #[error("the response body is not a valid {api} response: {message}")]
    Decode {
        /// Which API's format was expected.
        api: &'static str,
        /// What was wrong, naming the field.
        message: String,
    },
    /// A durable run's model call failed, and the failure was journaled: the run replayed on
    /// another worker fails the same way rather than asking the model again (`toolkit::durable`).
    /// The message is the first failure's.
    #[error("the model call failed (journaled): {message}")]
    Journaled {
        /// The first failure, as text.
        message: String,
    },
}

impl ModelError {
    /// Whether another attempt may succeed: 429, 5xx, a broken connection, a timeout or a
    /// stalled answer.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Status { status, .. } => *status == 429 || *status >= 500,
            ModelError::Connect { .. } | ModelError::Timeout(_) | ModelError::Stalled(_) => true,
            _ => false,
        }
    }

    /// The same error with `clean` applied to every text it carries: how a client removes its
    /// secrets (a key a server echoed, a URL's password) before it returns or logs an error.
    ///
    /// ```
    /// use toolkit_runtime::chat::ModelError;
    ///
    /// let error = ModelError::Status { status: 401, body: "bad key sk-123".into() };
    /// let clean = error.map_text(&|text| text.replace("sk-123", "***"));
    /// assert_eq!(clean.to_string(), "the model API answered 401: bad key ***");
    /// ```
    pub fn map_text(self, clean: &impl Fn(&str) -> String) -> Self {
        match self {
            ModelError::ReplayDiverged { index, message } => ModelError::ReplayDiverged {
                index,
                message: clean(&message),
            },
            ModelError::Recording { path, message } => ModelError::Recording {
                path: clean(&path),
                message: clean(&message),
            },
            ModelError::Connect { url, message } => ModelError::Connect {
                url: clean(&url),
                message: clean(&message),
            },
            ModelError::Status { status, body } => ModelError::Status {
                status,
                body: clean(&body),
            },
            ModelError::RetriesExhausted { attempts, last } => ModelError::RetriesExhausted {
                attempts,
                last: Box::new(last.map_text(clean)),
            },
            ModelError::ContentType { expected, got } => ModelError::ContentType {
                expected,
                got: clean(&got),
            },
            ModelError::Redirected { status, location } => ModelError::Redirected {
                status,
                location: clean(&location),
            },
            ModelError::Truncated(message) => ModelError::Truncated(clean(&message)),
            ModelError::Decode { api, message } => ModelError::Decode {
                api,
                message: clean(&message),
            },
            ModelError::Request { api, message } => ModelError::Request {
                api,
                message: clean(&message),
            },
            ModelError::Journaled { message } => ModelError::Journaled {
                message: clean(&message),
            },
            other @ (ModelError::ScriptExhausted { .. }
            | ModelError::Timeout(_)
            | ModelError::TooLarge { .. }
            | ModelError::Stalled(_)
            | ModelError::OutOfTime { .. }) => other,
        }
    }
}
