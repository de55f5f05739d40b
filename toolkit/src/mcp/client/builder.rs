//! [`McpClientBuilder`]: how a client is configured (naming, filtering, bounds, reconnection,
//! the handlers for the server's requests, OAuth) and opened. Kept apart from the client it
//! opens (`mod.rs`) because the settings are most of the code and change on their own.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use super::session::Session;
#[cfg(feature = "oauth")]
use super::{Authorizer, OAuthConfig};
// The `DEFAULT_*` bounds are linked by path (`super::`) in the docs below: importing them
// for the links alone would leave unused imports.
use super::{
    Catalog, ElicitationHandler, McpClient, McpTransport, Options, SamplingHandler,
    UrlElicitationHandler,
};
use crate::mcp::McpError;

/// Configures and opens an [`McpClient`].
#[derive(Clone)]
#[must_use = "a builder does nothing until `connect` is awaited"]
pub struct McpClientBuilder {
    pub(super) transport: McpTransport,
    pub(super) options: Options,
}

/// Written by hand so that it stays safe whatever is added: the transport shows its secrets
/// as `***`, and the options hold none.
impl std::fmt::Debug for McpClientBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClientBuilder")
            .field("transport", &self.transport)
            .field("options", &self.options)
            .finish()
    }
}

impl McpClientBuilder {
    /// Names every remote tool `<prefix><remote name>` (e.g. `gh_` + `create_issue`).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.options.prefix = prefix.into();
        self
    }

    /// Keeps only these remote tools (named as the server names them, without the prefix).
    pub fn allow(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options.allow = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Fails a call that takes longer than `timeout`, reconnection included (default
    /// [`DEFAULT_CALL_TIMEOUT`](super::DEFAULT_CALL_TIMEOUT), 60 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.options.timeout = timeout;
        self
    }

    /// The largest message read from the server, an answer or a listing page (default
    /// [`DEFAULT_MAX_MESSAGE_BYTES`](super::DEFAULT_MAX_MESSAGE_BYTES), 16 MiB, rmcp's own bound). A call whose answer is
    /// longer fails at once with an error saying so.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.options.max_message_bytes = bytes;
        self
    }

    /// Each remote tool's [`max_output_bytes`](crate::Limits::max_output_bytes): a longer
    /// result is cut to fit, with a marker saying so (default
    /// [`DEFAULT_MAX_OUTPUT_BYTES`](crate::mcp::DEFAULT_MAX_OUTPUT_BYTES), 1 MiB).
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.options.max_output_bytes = bytes;
        self
    }

    /// Returns a result's `structuredContent`, when the server sends one, instead of its
    /// content items.
    pub fn structured(mut self, structured: bool) -> Self {
        self.options.structured = structured;
        self
    }

    /// After a dropped HTTP connection, tries `attempts` times to reconnect, waiting up to
    /// `delay` before the first try and up to twice as long before each next one, up to 10 s
    /// (default: 5 tries from 100 ms). Each wait is drawn between half and all of that (equal
    /// jitter), so the clients of a restarted server do not all come back at once.
    ///
    /// The call that met the failure is then sent once more only if it cannot have reached the
    /// server (the connection was refused or already closed) or if the tool is annotated
    /// `idempotentHint: true`; any other call fails with an error saying it may have run, so
    /// a retry never runs it twice. A call whose answer stream was cut is first resumed
    /// (`Last-Event-ID`: at once, then once more after the server's `retry` hint); when that
    /// fails too, as it does against a server that was restarted, it counts as a dropped
    /// connection.
    pub fn reconnect(mut self, attempts: u32, delay: Duration) -> Self {
        self.options.reconnect.backoff.max_retries = attempts;
        self.options.reconnect.backoff.initial_backoff = delay;
        self
    }

    /// The most tools one listing may hold (default [`DEFAULT_MAX_TOOLS`](super::DEFAULT_MAX_TOOLS), 10,000): a
    /// listing with more fails the connection (or, later, the refresh), with an error saying
    /// so. Counted as the pages arrive.
    pub fn max_tools(mut self, tools: usize) -> Self {
        self.options.listing.max_tools = tools;
        self
    }

    /// The most bytes the tools of one listing may take, as compact JSON (default
    /// [`DEFAULT_MAX_LISTING_BYTES`](super::DEFAULT_MAX_LISTING_BYTES), 16 MiB): a listing with more fails as
    /// [`max_tools`](Self::max_tools) does. Counted as the pages arrive.
    pub fn max_listing_bytes(mut self, bytes: usize) -> Self {
        self.options.listing.max_bytes = bytes;
        self
    }

    /// The largest input or output schema of one tool, as compact JSON (default
    /// [`DEFAULT_MAX_SCHEMA_BYTES`](super::DEFAULT_MAX_SCHEMA_BYTES), 1 MiB), measured before its `$ref`s are inlined: a tool
    /// with a larger one is left out, with a warning, and the others kept.
    pub fn max_schema_bytes(mut self, bytes: usize) -> Self {
        self.options.listing.max_schema_bytes = bytes;
        self
    }

    /// How long connecting and the `initialize` handshake may take, each time (default 10 s):
    /// also the longest wait for an SSE server's `endpoint` event.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.options.reconnect.connect_timeout = timeout;
        self
    }

    /// Answers the server's `sampling/createMessage` requests with `handler`, and declares the
    /// `sampling` capability (without a handler, it is not declared). See
    /// [`sampling_model`](Self::sampling_model) for a chat model.
    pub fn on_sampling(mut self, handler: impl SamplingHandler) -> Self {
        self.options.handlers.sampling = Some(Arc::new(handler));
        self
    }

    /// Answers the server's `sampling/createMessage` requests with `model`: the request's
    /// system prompt and messages as its conversation (text only: a request with an image,
    /// audio or a resource is answered with an error, not without it), its token bound and
    /// temperature, no tools; as an agent answers a tool's `ctx.sample`. Declares the
    /// `sampling` capability.
    ///
    /// ```
    /// use toolkit::mcp::{McpClient, McpTransport};
    /// use toolkit::models::{ModelReply, ScriptedModel};
    ///
    /// let model = ScriptedModel::new([ModelReply::text("A short summary.")]);
    /// let builder = McpClient::builder(McpTransport::stdio("server")).sampling_model(model);
    /// ```
    #[cfg(feature = "agent")]
    #[cfg_attr(docsrs, doc(cfg(feature = "agent")))]
    pub fn sampling_model(self, model: impl crate::models::ChatModel + 'static) -> Self {
        let model: Arc<dyn crate::models::ChatModel> = Arc::new(model);
        self.on_sampling(move |request| {
            let model = Arc::clone(&model);
            async move { crate::models::sampling::sample(&*model, request).await }
        })
    }

    /// Answers the server's `elicitation/create` requests (form mode) with `handler`, and
    /// declares the `elicitation` capability (without a handler, it is not declared).
    pub fn on_elicit(mut self, handler: impl ElicitationHandler) -> Self {
        self.options.handlers.elicitation = Some(Arc::new(handler));
        self
    }

    /// Answers the server's URL-mode `elicitation/create` (the user is asked to open a URL)
    /// with `handler`, and declares `elicitation.url` (without a handler, it is not declared).
    pub fn on_url_elicit(mut self, handler: impl UrlElicitationHandler) -> Self {
        self.options.handlers.url_elicitation = Some(Arc::new(handler));
        self
    }

    /// Declares the `roots` capability and answers the server's `roots/list` with these URIs
    /// (`file:///home/me/project`). Without it, `roots` is not declared: a server asking
    /// gets an error, and a proxy serving this client's tools does not offer the tools a
    /// server keeps for clients with roots.
    ///
    /// ```
    /// use toolkit::mcp::{McpClient, McpTransport};
    ///
    /// let builder = McpClient::builder(McpTransport::stdio("server")).roots(["file:///srv/app"]);
    /// ```
    pub fn roots(mut self, uris: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let uris: Vec<String> = uris.into_iter().map(Into::into).collect();
        self.options.handlers.roots = Some(uris.into());
        self
    }

    /// Asks the server for its log messages at `level` and above (`logging/setLevel`, sent
    /// when the server declares logging, again after each reconnection). Without it the
    /// server sends what it sends by default. Log messages that come while a call is in
    /// flight reach its tool's context ([`ToolContext::log`](crate::context::ToolContext::log)),
    /// the others `tracing`.
    pub fn log_level(mut self, level: crate::context::LogLevel) -> Self {
        self.options.handlers.log_level = Some(level);
        self
    }

    /// Authorizes requests to a Streamable HTTP server with OAuth 2.1, as `config` says (see
    /// [`OAuthConfig`]). The authorization, and the tokens, last as long as the client and its
    /// tools, across reconnections. An interactive login happens within the request that met
    /// the server's 401 (usually `initialize`): give [`connect_timeout`](Self::connect_timeout)
    /// (and [`timeout`](Self::timeout)) time for the user.
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth(mut self, config: OAuthConfig) -> Self {
        self.options.oauth = Some(config);
        self
    }

    /// Connects, initializes the session and lists the server's tools.
    pub async fn connect(self) -> Result<McpClient, McpError> {
        #[cfg(feature = "oauth")]
        let oauth = (self.options.oauth.clone())
            .map(|config| Authorizer::new(self.transport.address(), config));
        #[cfg(not(feature = "oauth"))]
        let oauth = None;
        let (session, changes) = Session::open(
            self.transport,
            self.options.reconnect,
            self.options.max_message_bytes,
            self.options.listing,
            self.options.handlers.clone(),
            oauth,
        )
        .await?;
        let catalog = Arc::new(Catalog {
            options: self.options,
            tools: RwLock::new(Vec::new()),
        });
        catalog.refresh(&session).await?;
        Catalog::follow(&catalog, &session, changes);
        Ok(McpClient { session, catalog })
    }
}
