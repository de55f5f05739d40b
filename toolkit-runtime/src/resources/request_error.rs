//! Why reading a resource, getting a prompt or completing an argument failed, and the one helper
//! that reads a typed value from the string arguments MCP sends.

use std::any::Any;
use std::fmt::Display;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Why reading a resource, getting a prompt or completing an argument failed: one variant per
/// cause, each with the JSON-RPC error code an MCP server answers with ([`code`](Self::code)).
///
/// A read or get body that returns `Err(RequestError)` keeps its variant; any other error type
/// becomes [`Failed`](Self::Failed) with its text.
///
/// ```
/// use toolkit::resources::RequestError;
///
/// let err = RequestError::ResourceNotFound { uri: "users://7".into() };
/// assert_eq!(err.code(), -32002);
/// assert_eq!(err.to_string(), "Resource not found: users://7");
/// assert_eq!(RequestError::MissingArgument { name: "city".into() }.code(), -32602);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// No resource and no template answers this URI.
    #[error("Resource not found: {uri}")]
    ResourceNotFound {
        /// The URI asked for.
        uri: String,
    },
    /// No prompt has this name.
    #[error("Unknown prompt: {name}")]
    UnknownPrompt {
        /// The name asked for.
        name: String,
    },
    /// A required prompt argument was not sent.
    #[error("Missing required argument: {name}")]
    MissingArgument {
        /// The argument's name.
        name: String,
    },
    /// An argument or template parameter has a value its type cannot hold, or a completion
    /// names an argument that does not exist.
    #[error("Invalid params: {message}")]
    InvalidParams {
        /// What is wrong, naming the argument.
        message: String,
    },
    /// The body failed: its own error's text.
    #[error("{message}")]
    Failed {
        /// The body's error text.
        message: String,
    },
}

impl RequestError {
    /// The JSON-RPC error code: -32002 for a resource not found (MCP's code), -32602 for
    /// invalid params (an unknown prompt, a missing or bad argument), -32603 for a failed body.
    pub fn code(&self) -> i32 {
        match self {
            RequestError::ResourceNotFound { .. } => -32002,
            RequestError::UnknownPrompt { .. }
            | RequestError::MissingArgument { .. }
            | RequestError::InvalidParams { .. } => -32602,
            RequestError::Failed { .. } => -32603,
        }
    }

    /// A body's error: kept as it is when it is a `RequestError`, else its text as
    /// [`Failed`](Self::Failed).
    pub fn from_error<E: Display + 'static>(error: E) -> Self {
        match (&error as &dyn Any).downcast_ref::<RequestError>() {
            Some(same) => same.clone(),
            None => RequestError::Failed {
                message: error.to_string(),
            },
        }
    }
}

/// Reads argument `name` from MCP's string arguments (prompt arguments, template parameters) as
/// a `T`: the string itself when `T` reads strings, else the string read as JSON (`"42"` for a
/// `u32`, `"true"` for a `bool`). Absent, it reads `null`, so an `Option<T>` is `None`.
///
/// ```
/// use toolkit::resources::arg;
/// use toolkit::prelude::*;
///
/// let args = json!({"id": "42", "name": "Ada"});
/// let args = args.as_object().unwrap();
/// assert_eq!(arg::<u32>(args, "id").unwrap(), 42);
/// assert_eq!(arg::<String>(args, "name").unwrap(), "Ada");
/// assert_eq!(arg::<Option<u8>>(args, "age").unwrap(), None);
/// assert!(arg::<u32>(args, "name").unwrap_err().to_string().contains("name"));
/// ```
pub fn arg<T: DeserializeOwned>(args: &Map<String, Value>, name: &str) -> Result<T, RequestError> {
    let value = args.get(name).cloned().unwrap_or(Value::Null);
    let first = match serde_json::from_value::<T>(value.clone()) {
        Ok(read) => return Ok(read),
        Err(err) => err,
    };
    let as_json = value
        .as_str()
        .and_then(|text| serde_json::from_str::<Value>(text).ok());
    if let Some(Ok(read)) = as_json.map(serde_json::from_value::<T>) {
        return Ok(read);
    }
    Err(RequestError::InvalidParams {
        message: format!("argument `{name}`: {first}"),
    })
}

/// A body's future, made and polled so that a panic in it becomes [`RequestError::Failed`]
/// instead of taking the server's task down (as a tool's panic becomes its error).
pub(crate) fn guarded<T: Send + 'static>(
    make: impl FnOnce() -> crate::BoxFuture<'static, Result<T, RequestError>>,
) -> crate::BoxFuture<'static, Result<T, RequestError>> {
    let panicked = |message: String| RequestError::Failed {
        message: format!("panicked: {message}"),
    };
    match crate::call::caught(make) {
        Ok(future) => Box::pin(async move {
            crate::call::CatchUnwind(future)
                .await
                .unwrap_or_else(|message| Err(panicked(message)))
        }),
        Err(failure) => {
            let message = match failure {
                crate::call::HandlerError::Panicked(message) => message,
                _ => String::new(),
            };
            Box::pin(std::future::ready(Err(panicked(message))))
        }
    }
}
