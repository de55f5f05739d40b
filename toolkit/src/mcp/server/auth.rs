//! Who a request is: the bearer token a [`TokenVerifier`] turns into a [`Caller`], and what the
//! server says about itself as an OAuth 2.1 protected resource ([`ProtectedResource`], RFC 9728).

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use toolkit_runtime::BoxFuture;

use crate::ToolProxy;
use crate::context::Caller;

/// Checks a bearer token and says who sent it: what the MCP server asks of every HTTP request
/// when [`HttpOptions::token_verifier`](super::HttpOptions::token_verifier) is set.
///
/// A request without a token, or with one the verifier refuses, gets 401 and reaches no tool; a
/// verified one reaches its tools as `ctx.caller()`. toolkit ships [`StaticTokens`] (fixed
/// tokens, each naming a caller) and, with the `oauth` feature, `JwtVerifier` (JWT access
/// tokens signed by an authorization server's keys); an introspection endpoint or a database of
/// API keys is one more implementation.
///
/// ```
/// use toolkit::context::Caller;
/// use toolkit::mcp::{BoxFuture, TokenRejection, TokenVerifier};
///
/// /// Keys of the form `key-<user>`, as a stand-in for a lookup.
/// struct ApiKeys;
///
/// impl TokenVerifier for ApiKeys {
///     fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenRejection>> {
///         Box::pin(async move {
///             match token.strip_prefix("key-") {
///                 Some(user) => Ok(Caller::new(user).scopes(["files:read"])),
///                 None => Err(TokenRejection::Invalid("unknown API key".into())),
///             }
///         })
///     }
/// }
/// # let _ = toolkit::mcp::HttpOptions::default().token_verifier(ApiKeys);
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The caller `token` belongs to, or why it is refused. The token is a secret: an
    /// implementation must not log it, nor put it in its rejection.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenRejection>>;

    /// The authorization servers whose tokens this verifier accepts (their issuer URLs), listed
    /// in the server's protected resource metadata. None by default.
    fn authorization_servers(&self) -> Vec<String> {
        Vec::new()
    }
}

impl<V: TokenVerifier + ?Sized> TokenVerifier for Arc<V> {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenRejection>> {
        (**self).verify(token)
    }

    fn authorization_servers(&self) -> Vec<String> {
        (**self).authorization_servers()
    }
}

/// Why a [`TokenVerifier`] refused a token. Its text goes back to the client (in
/// `error_description`), so it names what is wrong, never the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenRejection {
    /// Not a token this server accepts: malformed, unknown, badly signed, expired, not yet
    /// valid, from another issuer or for another audience. HTTP 401, `error="invalid_token"`.
    #[error("{0}")]
    Invalid(String),
    /// The verifier cannot check tokens now (the issuer's keys could not be fetched, say): HTTP
    /// 503, and the client may try again; its token was not judged.
    #[error("tokens cannot be checked now: {0}")]
    Unavailable(String),
}

/// Fixed bearer tokens, each naming its caller: a [`TokenVerifier`] for a server shared with a
/// few known clients (CI, a team's agents). Tokens are compared in constant time.
///
/// ```
/// use toolkit::context::Caller;
/// use toolkit::mcp::{HttpOptions, StaticTokens};
///
/// let tokens = StaticTokens::new()
///     .token("ci-s3cret", Caller::new("ci-bot").scopes(["repo:read"]))
///     .token("ops-s3cret", Caller::new("ops").scopes(["repo:read", "repo:write"]));
/// let options = HttpOptions::default().token_verifier(tokens);
/// assert!(!format!("{options:?}").contains("s3cret"));
/// ```
#[derive(Clone, Default)]
pub struct StaticTokens {
    tokens: Vec<(String, Caller)>,
}

impl StaticTokens {
    /// No tokens: every request is refused until one is added.
    pub fn new() -> Self {
        Self::default()
    }

    /// Accepts `token` as `caller`.
    pub fn token(mut self, token: impl Into<String>, caller: Caller) -> Self {
        self.tokens.push((token.into(), caller));
        self
    }
}

/// Shows the callers, never the tokens.
impl std::fmt::Debug for StaticTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let callers: Vec<&str> = self
            .tokens
            .iter()
            .map(|(_, caller)| caller.principal.as_str())
            .collect();
        f.debug_struct("StaticTokens")
            .field("callers", &callers)
            .finish()
    }
}

impl TokenVerifier for StaticTokens {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenRejection>> {
        // Every token is compared, so the time taken does not tell which one came close.
        let mut found = None;
        for (known, caller) in &self.tokens {
            if constant_time_eq(known.as_bytes(), token.as_bytes()) {
                found = Some(caller.clone());
            }
        }
        Box::pin(
            async move { found.ok_or_else(|| TokenRejection::Invalid("unknown token".into())) },
        )
    }
}

/// Compares without an early exit, so response timing does not reveal how much of a guessed
/// token was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// What the server publishes about itself as an OAuth 2.1 protected resource, at
/// `/.well-known/oauth-protected-resource` (RFC 9728), and names in the `resource_metadata` of
/// every 401 and 403: how an MCP client finds the authorization server to get a token from.
///
/// | field | default |
/// |---|---|
/// | [`resource`](Self::resource) | `http://<Host><path>` of the request |
/// | [`authorization_servers`](Self::authorization_servers) | the verifier's ([`TokenVerifier::authorization_servers`]) |
/// | [`scopes_supported`](Self::scopes_supported) | every scope a served tool asks for |
///
/// ```
/// use toolkit::mcp::{HttpOptions, ProtectedResource};
///
/// let options = HttpOptions::default().protected_resource(
///     ProtectedResource::new("https://mcp.example.com/mcp")
///         .authorization_server("https://auth.example.com")
///         .scopes_supported(["repo:read", "repo:write"]),
/// );
/// assert_eq!(
///     options.protected_resource.metadata_url().as_deref(),
///     Some("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"),
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProtectedResource {
    /// The server's canonical URL, its MCP endpoint's (`https://mcp.example.com/mcp`): what
    /// clients ask tokens for (RFC 8707) and a token's audience names. Set it whenever the
    /// server is reached through a proxy or over TLS; without it, each request's `Host` and
    /// `http` make it up.
    pub resource: Option<String>,
    /// Authorization servers, beside the verifier's own.
    pub authorization_servers: Vec<String>,
    /// The scopes listed; `None` lists every scope a served tool asks for.
    pub scopes_supported: Option<Vec<String>>,
}

impl ProtectedResource {
    /// The metadata of the server whose MCP endpoint is `resource`.
    pub fn new(resource: impl Into<String>) -> Self {
        ProtectedResource {
            resource: Some(resource.into()),
            ..Self::default()
        }
    }

    /// Lists `issuer` as an authorization server clients may get tokens from.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Lists these scopes instead of the tools'.
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Where the metadata is, for the configured [`resource`](Self::resource): the well-known
    /// name inserted between its host and its path (RFC 9728, section 3.1).
    pub fn metadata_url(&self) -> Option<String> {
        self.resource.as_deref().map(metadata_url)
    }
}

/// `scheme://authority/.well-known/oauth-protected-resource<path>` for `resource`.
pub(super) fn metadata_url(resource: &str) -> String {
    let (scheme, rest) = resource.split_once("://").unwrap_or(("https", resource));
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (authority, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let path = path.trim_end_matches('/');
    format!("{scheme}://{authority}{WELL_KNOWN}{path}")
}

/// The caller the HTTP guard verified for this request; none over stdio or without a verifier.
pub(super) fn caller_of(context: &RequestContext<RoleServer>) -> Option<&Caller> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .extensions
        .get::<Caller>()
}

/// Whether `caller` holds every scope `tool` asks for. Without a verified caller (stdio, or a
/// server that checks no tokens) scopes are not enforced: there is no one to hold them.
pub(super) fn may_use(caller: Option<&Caller>, tool: &ToolProxy) -> bool {
    caller.is_none_or(|caller| (tool.options().scopes.iter()).all(|scope| caller.has_scope(scope)))
}

/// RFC 9728's well-known path.
pub(super) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://mcp.example.com:8443/"),
            "https://mcp.example.com:8443/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:9000"),
            "http://127.0.0.1:9000/.well-known/oauth-protected-resource"
        );
    }

    #[tokio::test]
    async fn static_tokens_name_their_caller_and_refuse_others() {
        let tokens = StaticTokens::new()
            .token("a", Caller::new("alice").scopes(["x"]))
            .token("b", Caller::new("bob"));
        assert_eq!(tokens.verify("a").await.unwrap().principal, "alice");
        assert_eq!(tokens.verify("b").await.unwrap().principal, "bob");
        assert_eq!(
            tokens.verify("c").await,
            Err(TokenRejection::Invalid("unknown token".into()))
        );
        assert_eq!(
            format!("{tokens:?}"),
            r#"StaticTokens { callers: ["alice", "bob"] }"#
        );
    }
}
