//! Where an MCP server is ([`McpTransport`]), and the settings each kind of transport is
//! opened with (`opening` opens them).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use rmcp::transport::common::client_side_sse::SseRetryPolicy;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::url_credentials::hide_userinfo;

use crate::mcp::McpError;

/// Where an MCP server is and how to reach it.
///
/// ```
/// use toolkit::mcp::McpTransport;
///
/// let local = McpTransport::stdio("python3").arg("server.py").env("LOG_LEVEL", "warning");
/// let remote = McpTransport::http("https://mcp.example.com/mcp")
///     .bearer_token("s3cret")
///     .header("x-team", "tools");
/// let legacy = McpTransport::sse("http://127.0.0.1:8000/sse");
/// assert_eq!(local.to_string(), "python3 server.py");
/// assert_eq!(remote.to_string(), "https://mcp.example.com/mcp");
/// assert_eq!(legacy.to_string(), "http://127.0.0.1:8000/sse");
/// assert!(!format!("{remote:?}").contains("s3cret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub enum McpTransport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to its environment.
        env: BTreeMap<String, String>,
        /// Whether the child's stderr goes to ours (default) or is discarded.
        inherit_stderr: bool,
    },
    /// A server speaking Streamable HTTP at `url`.
    StreamableHttp {
        /// The MCP endpoint.
        url: String,
        /// Sent as `Authorization: Bearer <token>`.
        bearer_token: Option<String>,
        /// Sent with every request.
        headers: BTreeMap<String, String>,
    },
    /// A server speaking the older HTTP+SSE transport; `url` is its event-stream endpoint.
    Sse {
        /// The event-stream endpoint (often `/sse`).
        url: String,
        /// Sent as `Authorization: Bearer <token>`.
        bearer_token: Option<String>,
        /// Sent with every request.
        headers: BTreeMap<String, String>,
    },
}

impl McpTransport {
    /// A server run as a child process.
    pub fn stdio(command: impl Into<String>) -> Self {
        McpTransport::Stdio {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            inherit_stderr: true,
        }
    }

    /// A Streamable HTTP server.
    pub fn http(url: impl Into<String>) -> Self {
        McpTransport::StreamableHttp {
            url: url.into(),
            bearer_token: None,
            headers: BTreeMap::new(),
        }
    }

    /// An HTTP+SSE server.
    pub fn sse(url: impl Into<String>) -> Self {
        McpTransport::Sse {
            url: url.into(),
            bearer_token: None,
            headers: BTreeMap::new(),
        }
    }

    /// Adds an argument to the child process's command line (stdio only; ignored otherwise).
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        if let McpTransport::Stdio { args, .. } = &mut self {
            args.push(arg.into());
        }
        self
    }

    /// Adds arguments to the child process's command line (stdio only).
    pub fn args(mut self, more: impl IntoIterator<Item = impl Into<String>>) -> Self {
        if let McpTransport::Stdio { args, .. } = &mut self {
            args.extend(more.into_iter().map(Into::into));
        }
        self
    }

    /// Sets an environment variable of the child process (stdio only).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Stdio { env, .. } = &mut self {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Whether the child's stderr is shown (default) or discarded (stdio only).
    pub fn inherit_stderr(mut self, inherit: bool) -> Self {
        if let McpTransport::Stdio { inherit_stderr, .. } = &mut self {
            *inherit_stderr = inherit;
        }
        self
    }

    /// Authenticates with a bearer token (HTTP transports only).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let McpTransport::StreamableHttp { bearer_token, .. }
        | McpTransport::Sse { bearer_token, .. } = &mut self
        {
            *bearer_token = Some(token.into());
        }
        self
    }

    /// Sends a header with every request (HTTP transports only).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::StreamableHttp { headers, .. } | McpTransport::Sse { headers, .. } =
            &mut self
        {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// The URL of an HTTP server, or the command of a child process, as configured.
    #[cfg(feature = "oauth")]
    pub(super) fn address(&self) -> &str {
        match self {
            McpTransport::Stdio { command, .. } => command,
            McpTransport::StreamableHttp { url, .. } | McpTransport::Sse { url, .. } => url,
        }
    }

    /// Whether a dropped connection can be opened again with the same settings: true over
    /// HTTP, where the server outlives the connection; false for a child process.
    pub(super) fn reconnects(&self) -> bool {
        !matches!(self, McpTransport::Stdio { .. })
    }
}

/// Shows tokens, header and environment values and a URL's `user:password@` as `***`: any of
/// them may be a secret, and a `Debug` print ends up in logs.
impl std::fmt::Debug for McpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Hidden<'a>(&'a BTreeMap<String, String>);
        impl std::fmt::Debug for Hidden<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_map()
                    .entries(self.0.keys().map(|key| (key, format_args!("***"))))
                    .finish()
            }
        }
        let token_shown = |token: &Option<String>| token.as_ref().map(|_| format_args!("***"));
        match self {
            McpTransport::Stdio {
                command,
                args,
                env,
                inherit_stderr,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &Hidden(env))
                .field("inherit_stderr", inherit_stderr)
                .finish(),
            McpTransport::StreamableHttp {
                url,
                bearer_token,
                headers,
            } => f
                .debug_struct("StreamableHttp")
                .field("url", &hide_userinfo(url))
                .field("bearer_token", &token_shown(bearer_token))
                .field("headers", &Hidden(headers))
                .finish(),
            McpTransport::Sse {
                url,
                bearer_token,
                headers,
            } => f
                .debug_struct("Sse")
                .field("url", &hide_userinfo(url))
                .field("bearer_token", &token_shown(bearer_token))
                .field("headers", &Hidden(headers))
                .finish(),
        }
    }
}

/// Hides a URL's `user:password@` as `Debug` does: the transport is named in error messages.
impl std::fmt::Display for McpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            McpTransport::Stdio { command, args, .. } => {
                f.write_str(command)?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
            McpTransport::StreamableHttp { url, .. } | McpTransport::Sse { url, .. } => {
                f.write_str(&hide_userinfo(url))
            }
        }
    }
}

/// The largest message read from an MCP server unless told otherwise
/// ([`McpClientBuilder::max_message_bytes`](super::McpClientBuilder::max_message_bytes)):
/// rmcp's own bound for every transport.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 << 20;

pub(super) fn http_config(
    url: &str,
    bearer_token: Option<&str>,
    headers: &BTreeMap<String, String>,
    max_message_bytes: usize,
) -> Result<StreamableHttpClientTransportConfig, McpError> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(header_pairs(headers)?.into_iter().collect());
    config.max_sse_event_size = max_message_bytes;
    config.max_json_response_size = max_message_bytes;
    config.retry_config = Arc::new(ResumeTwice);
    if let Some(token) = bearer_token {
        config = config.auth_header(token.to_owned());
    }
    Ok(config)
}

/// How a cut SSE stream is resumed (`GET` with `Last-Event-ID`): at once, then once more after
/// the server's `retry` interval (at least [`RESUME_DELAY`]); then the stream ends, and a call
/// waiting on it fails as a dropped connection, which the session may send again (idempotent
/// tools only).
///
/// rmcp's default retries forever, and a server that was restarted meanwhile answers every try
/// with 404 (its sessions are gone): a call in flight when the server died waited forever, or
/// for its timeout.
#[derive(Debug)]
struct ResumeTwice;

/// The shortest wait before the second try to resume a cut stream.
const RESUME_DELAY: Duration = Duration::from_millis(500);

impl SseRetryPolicy for ResumeTwice {
    fn retry(&self, tries: usize) -> Option<Duration> {
        // 0: the stream ended without an error; 1: the first try (made at once) failed.
        (tries <= 1).then_some(RESUME_DELAY)
    }
}

/// The configured headers plus `Authorization: Bearer <token>`, which the SSE transport sends
/// itself (rmcp's Streamable HTTP client takes the token separately).
pub(super) fn sse_headers(
    bearer_token: Option<&str>,
    headers: &BTreeMap<String, String>,
) -> Result<HeaderMap, McpError> {
    let mut headers: HeaderMap = header_pairs(headers)?.into_iter().collect();
    if let Some(token) = bearer_token {
        let value = HeaderValue::try_from(format!("Bearer {token}")).map_err(|err| {
            McpError::InvalidHeader {
                name: AUTHORIZATION.to_string(),
                message: err.to_string(),
            }
        })?;
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

fn header_pairs(
    headers: &BTreeMap<String, String>,
) -> Result<Vec<(HeaderName, HeaderValue)>, McpError> {
    headers
        .iter()
        .map(|(name, value)| {
            let invalid = |message: String| McpError::InvalidHeader {
                name: name.clone(),
                message,
            };
            Ok((
                HeaderName::try_from(name.as_str()).map_err(|err| invalid(err.to_string()))?,
                HeaderValue::try_from(value.as_str()).map_err(|err| invalid(err.to_string()))?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urls_credentials_show_as_stars_where_the_transport_is_named_in_errors() {
        let transport = McpTransport::http("http://alice:secret@127.0.0.1:9/mcp");
        assert_eq!(transport.to_string(), "http://***@127.0.0.1:9/mcp");
        let transport = McpTransport::sse("http://alice:secret@127.0.0.1:9/sse");
        assert_eq!(transport.to_string(), "http://***@127.0.0.1:9/sse");
    }
}
