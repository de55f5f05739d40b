//! MCP both ways, on rmcp: remote MCP tools as [`ToolProxy`](crate::ToolProxy)s
//! ([`McpClient`]), and any set of tools served as an MCP server ([`McpServer`]).
//!
//! Behind the `mcp` cargo feature (opt-in: `features = ["mcp"]`).
//!
//! ```no_run
//! use toolkit::mcp::{McpClient, McpServer, McpTransport};
//!
//! # async fn run() -> Result<(), toolkit::mcp::McpError> {
//! // Tools of a server run as a child process, named `py_<remote name>`.
//! let remote = McpClient::builder(McpTransport::stdio("python3").arg("server.py"))
//!     .prefix("py_")
//!     .connect()
//!     .await?;
//! // ...served again, to any MCP client, over this process's stdio: each call answered with
//! // the remote result itself (content blocks, `structuredContent`, `isError`, `_meta`).
//! McpServer::new(remote.tools()).serve_stdio().await
//! # }
//! ```
//!
//! The guide below is docs/mcp.md, whose examples are compiled as this module's doctests.
//!
#![doc = include_str!("../../docs/mcp.md")]

mod client;
mod convert;
mod server;

#[cfg(feature = "__test_hooks")]
#[doc(hidden)]
pub use client::{__EventStreamRead, __read_event_stream};
pub use client::{
    CompletionRef, DEFAULT_CALL_TIMEOUT, DEFAULT_MAX_LISTING_BYTES, DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MAX_SCHEMA_BYTES, DEFAULT_MAX_TOOLS, ElicitationHandler, McpClient, McpClientBuilder,
    McpTransport, SamplingHandler, ServerInfo, UrlElicitation, UrlElicitationHandler,
};
#[cfg(feature = "oauth")]
pub use client::{
    DEFAULT_MAX_STEP_UPS, InMemoryTokenStore, JwtSigningAlgorithm, LocalhostCallback,
    OAuthCallback, OAuthConfig, OAuthTokens, RedirectHandler, TokenStore,
};
#[cfg(feature = "oauth")]
pub use server::JwtVerifier;
pub use server::{
    DEFAULT_MAX_BODY_BYTES, HttpOptions, HttpServerHandle, McpServer, ServerNotifier,
    shutdown_signal,
};
pub use server::{KeyTooShort, RequestStateOptions};
pub use server::{ProtectedResource, StaticTokens, TokenRejection, TokenVerifier};
/// The boxed future [`TokenVerifier::verify`] returns.
pub use toolkit_runtime::BoxFuture;

/// rmcp, re-exported for callers that need its protocol types.
pub use rmcp;

/// The longest tool answer MCP hands on whole, both ways, unless told otherwise: 1 MiB, cut
/// with a marker saying so.
///
/// A client cuts a remote result at it ([`McpClientBuilder::max_output_bytes`]); a server cuts
/// each served tool's answer at it unless the tool or its toolbox sets its own
/// [`max_output_bytes`](crate::Limits::max_output_bytes). A megabyte of text is some 250,000
/// tokens, more than a model's context holds, so a longer answer helps no one; unbounded, each
/// answer waiting for a slow client was held whole in memory (64 clients that never read held
/// 528 MB). Set a toolbox limit
/// ([`Limits::with_max_output_bytes`](crate::Limits::with_max_output_bytes)) to serve longer
/// answers.
///
/// ```
/// assert_eq!(toolkit::mcp::DEFAULT_MAX_OUTPUT_BYTES, 1 << 20);
/// ```
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 1 << 20;

/// Why connecting to, or serving, MCP failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The server's process could not be started.
    #[error("could not start the MCP server `{command}`: {source}")]
    Spawn {
        /// The command line that was run.
        command: String,
        /// Why the operating system refused to start it.
        #[source]
        source: std::io::Error,
    },
    /// The connection or the `initialize` handshake failed.
    #[error("could not connect to the MCP server {server}: {message}")]
    Connect {
        /// The server, as configured (command line or URL).
        server: String,
        /// What went wrong, in words.
        message: String,
    },
    /// A request other than a tool call failed.
    #[error("the MCP server {server} failed {request}: {message}")]
    Request {
        /// The server, as configured (command line or URL).
        server: String,
        /// The request that failed (`tools/list`, ...).
        request: String,
        /// What went wrong, in words.
        message: String,
    },
    /// The connection dropped and cannot be reopened (a child process exited).
    #[error("the MCP server {server} has disconnected")]
    Disconnected {
        /// The server, as configured (command line or URL).
        server: String,
    },
    /// A configured HTTP header is not a valid header.
    #[error("invalid HTTP header {name}: {message}")]
    InvalidHeader {
        /// The header's name.
        name: String,
        /// What went wrong, in words.
        message: String,
    },
    /// Serving failed.
    #[error("the MCP server failed: {0}")]
    Serve(String),
    /// Binding or accepting failed.
    #[error(transparent)]
    Io(std::io::Error),
}
