//! How the Streamable HTTP server is configured: [`HttpOptions`] and its defaults.

use std::sync::Arc;
use std::time::Duration;

use super::auth::{ProtectedResource, StaticTokens, TokenVerifier};
use super::connections::default_max_connections;
use crate::context::Caller;

mod debug;

/// The largest request body [`HttpOptions`] accepts unless told otherwise: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How the Streamable HTTP server guards its endpoint and bounds its sessions.
///
/// | option | default |
/// |---|---|
/// | [`path`](Self::path) | `/mcp` |
/// | [`bearer_token`](Self::bearer_token) | none: no authentication |
/// | [`bearer_caller`](Self::bearer_caller) | `Caller::new("bearer")` when a token is set |
/// | [`token_verifier`](Self::token_verifier) | none: no authentication |
/// | [`protected_resource`](Self::protected_resource) | derived from the request and the verifier |
/// | [`max_body_bytes`](Self::max_body_bytes) | 4 MiB ([`DEFAULT_MAX_BODY_BYTES`]) |
/// | [`allowed_hosts`](Self::allowed_hosts) | `localhost`, `127.0.0.1`, `::1` |
/// | [`allowed_origins`](Self::allowed_origins) | `http(s)://localhost`, `127.0.0.1`, `[::1]`, any port ([`HttpOptions::LOOPBACK_ORIGINS`]) |
/// | [`max_sessions`](Self::max_sessions) | 1,000 ([`HttpOptions::DEFAULT_MAX_SESSIONS`]) |
/// | [`max_sessions_per_client`](Self::max_sessions_per_client) | 500 ([`HttpOptions::DEFAULT_MAX_SESSIONS_PER_CLIENT`]) |
/// | [`session_idle_timeout`](Self::session_idle_timeout) | 5 minutes ([`HttpOptions::DEFAULT_SESSION_IDLE_TIMEOUT`]) |
/// | [`unused_session_timeout`](Self::unused_session_timeout) | 10 s ([`HttpOptions::DEFAULT_UNUSED_SESSION_TIMEOUT`]) |
/// | [`stateless`](Self::stateless) | `false`: one session per client |
/// | [`max_concurrent_calls`](Self::max_concurrent_calls) | 1,024 ([`HttpOptions::DEFAULT_MAX_CONCURRENT_CALLS`]) |
/// | [`read_timeout`](Self::read_timeout) | 30 s ([`HttpOptions::DEFAULT_READ_TIMEOUT`]) |
/// | [`write_timeout`](Self::write_timeout) | 30 s ([`HttpOptions::DEFAULT_WRITE_TIMEOUT`]) |
/// | [`max_connections`](Self::max_connections) | three quarters of the open-file limit (768 of 1,024) |
/// | [`max_connections_per_client`](Self::max_connections_per_client) | a quarter of `max_connections`, at least 256, at most half (256 of 768) |
///
/// ```
/// use std::time::Duration;
/// use toolkit::mcp::HttpOptions;
///
/// let options = HttpOptions::default()
///     .bearer_token("s3cret")
///     .max_sessions(100)
///     .session_idle_timeout(Duration::from_secs(60));
/// assert_eq!(options.max_sessions, 100);
/// assert_eq!(HttpOptions::default().max_sessions, HttpOptions::DEFAULT_MAX_SESSIONS);
/// assert!(!format!("{options:?}").contains("s3cret"));
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The path MCP is served at (default `/mcp`).
    pub path: String,
    /// When set, every request must carry `Authorization: Bearer <token>`; others get 401 and
    /// reach no tool. The shorthand for a [`StaticTokens`] [`token_verifier`](Self::token_verifier).
    pub bearer_token: Option<String>,
    /// Who a request with the bearer token is, as its tools read it (`ctx.caller()`); see
    /// [`HttpOptions::bearer_caller`]. Without it, [`Caller::new`]`("bearer")`.
    pub bearer_caller: Option<Caller>,
    /// What checks every request's bearer token; see [`HttpOptions::token_verifier`].
    pub token_verifier: Option<Arc<dyn TokenVerifier>>,
    /// What the server publishes as an OAuth protected resource; see
    /// [`HttpOptions::protected_resource`].
    pub protected_resource: ProtectedResource,
    /// The largest request body accepted, whatever its size; larger ones get 413 (default
    /// [`DEFAULT_MAX_BODY_BYTES`]). A body is read whole into memory before it is parsed.
    pub max_body_bytes: usize,
    /// The `Host` names accepted, against DNS rebinding (default: rmcp's `localhost`,
    /// `127.0.0.1`, `::1`); set it to serve under a public name. An empty list accepts any host.
    pub allowed_hosts: Option<Vec<String>>,
    /// The `Origin`s accepted, against web pages calling a local server from the browser
    /// (default [`HttpOptions::LOOPBACK_ORIGINS`]); see [`HttpOptions::allowed_origins`].
    pub allowed_origins: Option<Vec<String>>,
    /// How many sessions may be open at once (default [`HttpOptions::DEFAULT_MAX_SESSIONS`]);
    /// over it, an `initialize` gets HTTP 503 until a session closes or idles out.
    pub max_sessions: usize,
    /// How many sessions one client (one IP address) may hold at once (default
    /// [`HttpOptions::DEFAULT_MAX_SESSIONS_PER_CLIENT`]); see
    /// [`HttpOptions::max_sessions_per_client`].
    pub max_sessions_per_client: usize,
    /// How long a session may stay without a request after its `initialize` (default
    /// [`HttpOptions::DEFAULT_UNUSED_SESSION_TIMEOUT`]); see
    /// [`HttpOptions::unused_session_timeout`].
    pub unused_session_timeout: Duration,
    /// How long a session may go without a request before the server closes it (default
    /// [`HttpOptions::DEFAULT_SESSION_IDLE_TIMEOUT`]).
    pub session_idle_timeout: Duration,
    /// Serve without sessions (default `false`); see [`HttpOptions::stateless`].
    pub stateless: bool,
    /// How many `tools/call` requests may run at once (default
    /// [`HttpOptions::DEFAULT_MAX_CONCURRENT_CALLS`]); see
    /// [`HttpOptions::max_concurrent_calls`].
    pub max_concurrent_calls: usize,
    /// How long a client has to send a request's headers, and then its body (default
    /// [`HttpOptions::DEFAULT_READ_TIMEOUT`]); see [`HttpOptions::read_timeout`].
    pub read_timeout: Duration,
    /// How long the server waits for a client to take more of its answer (default
    /// [`HttpOptions::DEFAULT_WRITE_TIMEOUT`]); see [`HttpOptions::write_timeout`].
    pub write_timeout: Duration,
    /// How many connections may be open at once (default: three quarters of the process's
    /// open-file limit); see [`HttpOptions::max_connections`].
    pub max_connections: usize,
    /// How many connections one client (one IP address) may hold at once (default `None`: a
    /// quarter of [`max_connections`](Self::max_connections), at least 256 but at most half of
    /// it); see
    /// [`HttpOptions::max_connections_per_client`].
    pub max_connections_per_client: Option<usize>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".to_owned(),
            bearer_token: None,
            bearer_caller: None,
            token_verifier: None,
            protected_resource: ProtectedResource::default(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            allowed_hosts: None,
            allowed_origins: None,
            max_sessions: HttpOptions::DEFAULT_MAX_SESSIONS,
            max_sessions_per_client: HttpOptions::DEFAULT_MAX_SESSIONS_PER_CLIENT,
            session_idle_timeout: HttpOptions::DEFAULT_SESSION_IDLE_TIMEOUT,
            unused_session_timeout: HttpOptions::DEFAULT_UNUSED_SESSION_TIMEOUT,
            stateless: false,
            max_concurrent_calls: HttpOptions::DEFAULT_MAX_CONCURRENT_CALLS,
            read_timeout: HttpOptions::DEFAULT_READ_TIMEOUT,
            write_timeout: HttpOptions::DEFAULT_WRITE_TIMEOUT,
            max_connections: default_max_connections(),
            max_connections_per_client: None,
        }
    }
}

impl HttpOptions {
    /// 1,000 sessions: an open session costs about 200 KB, so a few hundred MB at most.
    pub const DEFAULT_MAX_SESSIONS: usize = 1_000;
    /// 1,024 calls at once: one for each of [`DEFAULT_MAX_SESSIONS`](Self::DEFAULT_MAX_SESSIONS)
    /// clients, and some room. A tool's own `max_threads` bounds its blocking threads; this
    /// bounds the calls of all tools together, async ones included.
    pub const DEFAULT_MAX_CONCURRENT_CALLS: usize = 1_024;
    /// 5 minutes, rmcp's own default.
    pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
    /// 500, half of [`DEFAULT_MAX_SESSIONS`](Self::DEFAULT_MAX_SESSIONS): one client cannot
    /// lock the others out, and a busy one (a load test, an agent fleet) has room.
    pub const DEFAULT_MAX_SESSIONS_PER_CLIENT: usize = 500;
    /// 10 s: every MCP client sends `notifications/initialized` right after `initialize`.
    pub const DEFAULT_UNUSED_SESSION_TIMEOUT: Duration = Duration::from_secs(10);
    /// 30 s, hyper's own default for headers.
    pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// 30 s, as [`DEFAULT_READ_TIMEOUT`](Self::DEFAULT_READ_TIMEOUT): a client that takes
    /// nothing for that long has stopped reading.
    pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);
    /// Pages served from this machine, on any port, over `http` or `https`: what a browser
    /// sends as `Origin` for a local web app, and the only pages that may call a server bound to
    /// loopback.
    pub const LOOPBACK_ORIGINS: [&str; 6] = [
        "http://localhost:*",
        "http://127.0.0.1:*",
        "http://[::1]:*",
        "https://localhost:*",
        "https://127.0.0.1:*",
        "https://[::1]:*",
    ];

    /// The principal of a request that carried the [bearer token](Self::bearer_token), when no
    /// [`bearer_caller`](Self::bearer_caller) was set.
    pub const DEFAULT_BEARER_PRINCIPAL: &str = "bearer";

    /// Requires `Authorization: Bearer <token>` on every request: a [`StaticTokens`] of this one
    /// token, naming the [`bearer_caller`](Self::bearer_caller). For several tokens, or JWTs,
    /// set a [`token_verifier`](Self::token_verifier) instead (not both).
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Who a request with the [bearer token](Self::bearer_token) is: the caller its tools read
    /// with `ctx.caller()` (principal, scopes, claims). A static token names one caller.
    ///
    /// ```
    /// use toolkit::context::Caller;
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default()
    ///     .bearer_token("s3cret")
    ///     .bearer_caller(Caller::new("ci-bot").scopes(["repo:read"]));
    /// assert_eq!(options.bearer_caller.unwrap().principal, "ci-bot");
    /// ```
    pub fn bearer_caller(mut self, caller: Caller) -> Self {
        self.bearer_caller = Some(caller);
        self
    }

    /// Checks every request's `Authorization: Bearer <token>` with `verifier`: a request
    /// without a token, or with one it refuses, gets 401 with a `WWW-Authenticate` challenge
    /// naming the server's [protected resource metadata](Self::protected_resource), and reaches
    /// no tool; a verified one reaches its tools as `ctx.caller()`, and a tool whose
    /// [scopes](crate::ToolOptions::scopes) the caller lacks is left out of its `tools/list` and
    /// refused with 403 `insufficient_scope` on `tools/call`. Replaces
    /// [`bearer_token`](Self::bearer_token), which is a [`StaticTokens`] of one token.
    ///
    /// ```
    /// use toolkit::context::Caller;
    /// use toolkit::mcp::{HttpOptions, StaticTokens};
    ///
    /// let options = HttpOptions::default()
    ///     .token_verifier(StaticTokens::new().token("s3cret", Caller::new("ci-bot")));
    /// assert!(options.token_verifier.is_some());
    /// ```
    pub fn token_verifier(mut self, verifier: impl TokenVerifier) -> Self {
        self.token_verifier = Some(Arc::new(verifier));
        self
    }

    /// What the server publishes at `/.well-known/oauth-protected-resource` (RFC 9728) when it
    /// checks tokens: set its canonical URL and, beside the verifier's, authorization servers.
    /// See [`ProtectedResource`].
    pub fn protected_resource(mut self, resource: ProtectedResource) -> Self {
        self.protected_resource = resource;
        self
    }

    /// The verifier requests are checked with: [`token_verifier`](Self::token_verifier), or the
    /// [`bearer_token`](Self::bearer_token) as [`StaticTokens`]. Both set is a mistake.
    pub(super) fn verifier(&self) -> Result<Option<Arc<dyn TokenVerifier>>, String> {
        match (&self.token_verifier, &self.bearer_token) {
            (Some(_), Some(_)) => Err(
                "HttpOptions has both a bearer_token and a token_verifier; give the token to the verifier (StaticTokens)".to_owned(),
            ),
            (Some(verifier), None) => Ok(Some(Arc::clone(verifier))),
            (None, Some(token)) => {
                let caller = self
                    .bearer_caller
                    .clone()
                    .unwrap_or_else(|| Caller::new(HttpOptions::DEFAULT_BEARER_PRINCIPAL));
                Ok(Some(Arc::new(StaticTokens::new().token(token.clone(), caller))))
            }
            (None, None) => Ok(None),
        }
    }

    /// Sets the largest request body accepted, in bytes.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Accepts requests whose `Host` is one of `hosts` (e.g. `["mcp.example.com"]`); an empty
    /// list accepts any host.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Accepts requests whose `Origin` header is one of `origins`; others get 403 with a
    /// JSON-RPC error (`-32000`) and reach no tool. The MCP specification asks servers to check
    /// `Origin`, so that a web page the user happens to visit cannot call a server on their
    /// machine. A request without `Origin` (every client that is not a browser) is not
    /// affected. Each entry is `scheme://host:port`, with `:*` for any port, or `null`; an
    /// empty list accepts any origin.
    ///
    /// ```
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().allowed_origins(["https://app.example.com:443"]);
    /// assert_eq!(options.allowed_origins, Some(vec!["https://app.example.com:443".to_owned()]));
    /// ```
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// Serves MCP at `path` instead of `/mcp`.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Sets how many sessions may be open at once. A client that opens one more (its
    /// `initialize`) gets HTTP 503 with a JSON-RPC error saying so; sessions free up when a
    /// client ends its session (`DELETE`) or when one idles out
    /// ([`session_idle_timeout`](Self::session_idle_timeout)).
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// Sets how long a session may go without a request before the server closes it; the
    /// client's next request then gets 404 and it must initialize again. Keep it above the
    /// longest a client stays quiet between calls.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Serves without sessions when `true`: no `Mcp-Session-Id`, nothing kept between requests,
    /// each `POST` answered with one JSON body. Any replica can then answer any request, so
    /// several servers can stand behind a load balancer without sticky sessions. The price:
    /// no server-to-client messages outside a request's answer (`GET` and `DELETE` get 405),
    /// and [`max_sessions`](Self::max_sessions) and
    /// [`session_idle_timeout`](Self::session_idle_timeout) do not apply.
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Sets how many `tools/call` requests may run at once. One more is not queued: it is
    /// answered at once with a JSON-RPC error (`-32000`, "the server is busy") that the
    /// client's caller sees as the call's error, and may retry. A call's place is held until
    /// its tool returns, so a hanging tool holds one until its timeout ends it; a client slow
    /// to read the answer holds none (the [write timeout](Self::write_timeout) bounds it). A
    /// call that becomes a task holds a place too, until its tool returns; over the cap it is
    /// refused the same way, not queued.
    pub fn max_concurrent_calls(mut self, calls: usize) -> Self {
        self.max_concurrent_calls = calls;
        self
    }

    /// Sets how long a client has to send a request's headers, and then, once they are in, its
    /// whole body. A client that has not sent all its headers by then gets 408 and its
    /// connection is closed; one whose body is late likewise. Without it, a client trickling a
    /// byte now and then (slowloris) would hold a connection as long as it liked. The same
    /// wait bounds an idle keep-alive connection between two requests: the server closes it,
    /// and HTTP clients open a new one. Keep it well above the slowest legitimate upload
    /// ([`max_body_bytes`](Self::max_body_bytes) at the client's bandwidth); it must be above
    /// zero.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().read_timeout(Duration::from_secs(10));
    /// assert_eq!(options.read_timeout, Duration::from_secs(10));
    /// assert_eq!(HttpOptions::default().read_timeout, HttpOptions::DEFAULT_READ_TIMEOUT);
    /// ```
    pub fn read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self
    }
}

impl HttpOptions {
    /// Sets how long the server waits for a client to take more of its answer. A client that
    /// takes no byte for that long (one that sent a call and never reads the answer, say) has
    /// its connection closed, and with it what the answer held. The wait starts again after
    /// every byte taken, so a slow reader is not cut off; an SSE stream with nothing to send
    /// is not waiting. It must be above zero.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().write_timeout(Duration::from_secs(5));
    /// assert_eq!(options.write_timeout, Duration::from_secs(5));
    /// ```
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.write_timeout = timeout;
        self
    }

    /// Sets how many connections may be open at once. At the cap, a new connection closes the
    /// oldest one answering no request (HTTP clients open a new one when they need it), so
    /// idle sockets cannot lock real requests out, else the one whose request body has been
    /// arriving longest, for over a second (answered 408), so clients trickling their bodies
    /// cannot either; when every connection is answering a request it has read, the new one
    /// is closed at once. One address holds at most
    /// [`max_connections_per_client`](Self::max_connections_per_client) of them. Keep it below the process's open-file limit
    /// (`ulimit -n`), which the default is three quarters of: past that limit the server
    /// cannot accept at all, nor its tools open a file.
    ///
    /// ```
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().max_connections(100);
    /// assert_eq!(options.max_connections, 100);
    /// assert!(HttpOptions::default().max_connections >= 1);
    /// ```
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }
}

impl HttpOptions {
    /// Sets how many sessions one client may hold at once; its next `initialize` gets HTTP 429
    /// with a JSON-RPC error saying so, while other clients still open theirs. A client is an
    /// IP address: behind a reverse proxy every client has the proxy's, so raise this (up to
    /// [`max_sessions`](Self::max_sessions)) there; lower it with `max_sessions`, or one client
    /// can again take every place.
    ///
    /// ```
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().max_sessions_per_client(10);
    /// assert_eq!(options.max_sessions_per_client, 10);
    /// ```
    pub fn max_sessions_per_client(mut self, sessions: usize) -> Self {
        self.max_sessions_per_client = sessions;
        self
    }

    /// Sets how long a session may stay without a request after its `initialize` before the
    /// server closes it, when a new session needs room. Every MCP client sends
    /// `notifications/initialized` at once, so a session never used again was abandoned, or
    /// opened only to take a place; without this it would hold its place for the whole
    /// [`session_idle_timeout`](Self::session_idle_timeout).
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().unused_session_timeout(Duration::from_secs(2));
    /// assert_eq!(options.unused_session_timeout, Duration::from_secs(2));
    /// ```
    pub fn unused_session_timeout(mut self, timeout: Duration) -> Self {
        self.unused_session_timeout = timeout;
        self
    }
}

impl HttpOptions {
    /// Sets how many connections one client (one IP address) may hold at once. At that share,
    /// its new connection closes its own oldest idle one, else one of its requests whose body
    /// has been arriving for over a second (answered 408), else the new one is closed: so one
    /// address trickling request bodies cannot take every place under
    /// [`max_connections`](Self::max_connections). Unset, it is a quarter of `max_connections`,
    /// at least 256 but at most half of it (256 of the usual 768, 25 of 50). Behind a reverse
    /// proxy every client has the proxy's address: raise it there, up to `max_connections`.
    ///
    /// ```
    /// use toolkit::mcp::HttpOptions;
    ///
    /// let options = HttpOptions::default().max_connections_per_client(10);
    /// assert_eq!(options.max_connections_per_client, Some(10));
    /// assert_eq!(HttpOptions::default().max_connections_per_client, None);
    /// ```
    pub fn max_connections_per_client(mut self, connections: usize) -> Self {
        self.max_connections_per_client = Some(connections);
        self
    }

    /// The connections one address may hold: `max_connections_per_client` when set, else a
    /// quarter of `max_connections`, at least 256 but at most half of it (and at least one).
    pub(super) fn connections_per_client(&self) -> usize {
        // 256 lets a load test or a proxy's pool of the usual size in under the usual cap (768);
        // half the cap still leaves the other half to everyone else.
        let share = (self.max_connections / 4)
            .max(256)
            .min(self.max_connections / 2);
        self.max_connections_per_client.unwrap_or(share).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_address_gets_a_quarter_of_the_connections_at_least_256_at_most_half_unless_told() {
        let share = |max: usize| {
            HttpOptions::default()
                .max_connections(max)
                .connections_per_client()
        };
        let shares = [1, 8, 50, 768, 15_000].map(share);
        assert_eq!(shares, [1, 4, 25, 256, 3_750]);
        let told = HttpOptions::default()
            .max_connections(768)
            .max_connections_per_client(10);
        assert_eq!(told.connections_per_client(), 10);
    }
}
