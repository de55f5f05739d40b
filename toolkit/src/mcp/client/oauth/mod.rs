//! OAuth 2.1 for the client (MCP authorization, 2025-11-25): [`OAuthConfig`] says how this
//! client gets a token; rmcp's `auth` does the protocol (discovery, registration, PKCE, the
//! token requests), and this module decides when (a 401, an expired token, a 403
//! `insufficient_scope`) and wraps rmcp's types in toolkit's own.
//!
//! - `flow`: one server's authorization: the rmcp manager, authorizing, refreshing, step-up;
//! - `http`: rmcp's HTTP client for Streamable HTTP, with the token added and the server's
//!   401 and 403 answered;
//! - `redirect`: how the user's browser comes back ([`RedirectHandler`], [`LocalhostCallback`]);
//! - `store`: where tokens are kept ([`TokenStore`], [`InMemoryTokenStore`]);
//! - `trust`: which authorization server may be sent what (a pinned issuer, the secret).

mod flow;
mod http;
mod redirect;
mod store;
mod trust;

use std::sync::Arc;

pub(super) use flow::Authorizer;
pub(super) use http::authorized_http_client;
pub use redirect::{LocalhostCallback, OAuthCallback, RedirectHandler};
pub use store::{InMemoryTokenStore, OAuthTokens, TokenStore};

/// How an [`McpClient`](super::McpClient) gets an OAuth token for a server that asks for one
/// (Streamable HTTP only), per the MCP authorization specification (2025-11-25).
///
/// The client sends its first request without a token. On the server's 401 it discovers the
/// authorization server (Protected Resource Metadata from the `WWW-Authenticate` header's
/// `resource_metadata`, else the well-known paths; then the authorization server's metadata,
/// with the OpenID Connect and 2025-03-26 fallbacks), identifies itself (a pre-registered
/// client, else a client ID metadata document when the server supports one, else dynamic
/// client registration), gets a token, and sends the request again. An expired token is
/// refreshed; a 403 `insufficient_scope` asks for the union of the scopes held and the ones
/// named ([`max_step_ups`](Self::max_step_ups) times per request at most). Tokens are kept in
/// the [`TokenStore`] (in memory unless told otherwise) and never logged.
///
/// The resource server names the authorization server, so a client that holds a secret
/// trusts it only so far: with [`issuer`](Self::issuer) set, the authorization server found
/// must be that issuer, else nothing is sent to it; without, a client secret (or a signed
/// client assertion) goes only to an authorization server at the MCP server's own origin, and
/// never to the MCP server's `/token` when no authorization server was discovered at all.
///
/// Authorization code with PKCE (S256), for a user:
///
/// ```no_run
/// use toolkit::mcp::{LocalhostCallback, McpClient, McpTransport, OAuthConfig};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// // Prints the authorization URL, then waits for the browser at http://127.0.0.1:8123/callback.
/// let callback = LocalhostCallback::bind(8123).await?;
/// let oauth = OAuthConfig::authorization_code(callback.redirect_uri(), callback)
///     .client_name("my tool")
///     .scopes(["repo:read"]);
/// let client = McpClient::builder(McpTransport::http("https://mcp.example.com/mcp"))
///     .oauth(oauth)
///     .connect_timeout(std::time::Duration::from_secs(300))
///     .connect()
///     .await?;
/// # Ok(()) }
/// ```
///
/// Client credentials, for a service:
///
/// ```
/// use toolkit::mcp::{McpClient, McpTransport, OAuthConfig};
///
/// let oauth = OAuthConfig::client_credentials("reporter", "s3cret")
///     .issuer("https://auth.example.com")
///     .scopes(["reports:write"]);
/// let builder = McpClient::builder(McpTransport::http("https://mcp.example.com/mcp")).oauth(oauth);
/// assert!(!format!("{builder:?}").contains("s3cret"));
/// ```
#[derive(Clone)]
pub struct OAuthConfig {
    pub(super) grant: Grant,
    pub(super) client_id: Option<String>,
    pub(super) client_secret: Option<String>,
    pub(super) issuer: Option<String>,
    pub(super) client_name: String,
    pub(super) client_metadata_url: Option<String>,
    pub(super) scopes: Vec<String>,
    pub(super) store: Arc<dyn TokenStore>,
    pub(super) max_step_ups: u32,
}

/// How the token is obtained.
#[derive(Clone)]
pub(super) enum Grant {
    /// A user authorizes in a browser; `redirect` brings back the code.
    AuthorizationCode {
        redirect_uri: String,
        redirect: Arc<dyn RedirectHandler>,
    },
    /// The client authenticates itself: with its secret (`client_secret_basic` or
    /// `client_secret_post`, as the server supports), or a signed JWT (`private_key_jwt`).
    ClientCredentials {
        private_key: Option<(Vec<u8>, JwtSigningAlgorithm)>,
    },
}

/// The algorithm of the JWT a client signs to authenticate itself (`private_key_jwt`,
/// RFC 7523), in [`OAuthConfig::client_credentials_jwt`]: the ones rmcp can sign with.
///
/// ```
/// use toolkit::mcp::{JwtSigningAlgorithm, OAuthConfig};
///
/// let pem = "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n";
/// let oauth = OAuthConfig::client_credentials_jwt("reporter", pem, JwtSigningAlgorithm::ES256);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JwtSigningAlgorithm {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    RS384,
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    RS512,
    /// ECDSA with P-256 and SHA-256.
    ES256,
    /// ECDSA with P-384 and SHA-384.
    ES384,
}

impl JwtSigningAlgorithm {
    /// rmcp's name for it: the one place the two meet.
    fn to_rmcp(self) -> rmcp::transport::auth::JwtSigningAlgorithm {
        use rmcp::transport::auth::JwtSigningAlgorithm as Rmcp;
        match self {
            JwtSigningAlgorithm::RS256 => Rmcp::RS256,
            JwtSigningAlgorithm::RS384 => Rmcp::RS384,
            JwtSigningAlgorithm::RS512 => Rmcp::RS512,
            JwtSigningAlgorithm::ES256 => Rmcp::ES256,
            JwtSigningAlgorithm::ES384 => Rmcp::ES384,
        }
    }
}

/// The most times one request re-authorizes for more scope unless told otherwise
/// ([`OAuthConfig::max_step_ups`]): with the first authorization, three in all, as the
/// specification's test suite expects of a client that must not loop.
pub const DEFAULT_MAX_STEP_UPS: u32 = 2;

impl OAuthConfig {
    fn new(grant: Grant) -> Self {
        OAuthConfig {
            grant,
            client_id: None,
            client_secret: None,
            issuer: None,
            client_name: "toolkit MCP client".to_owned(),
            client_metadata_url: None,
            scopes: Vec::new(),
            store: Arc::new(InMemoryTokenStore::new()),
            max_step_ups: DEFAULT_MAX_STEP_UPS,
        }
    }

    /// The authorization code grant with PKCE: `redirect` shows the user the authorization
    /// URL and returns the code the authorization server sent to `redirect_uri` (see
    /// [`LocalhostCallback`] for a command-line program).
    pub fn authorization_code(
        redirect_uri: impl Into<String>,
        redirect: impl RedirectHandler,
    ) -> Self {
        Self::new(Grant::AuthorizationCode {
            redirect_uri: redirect_uri.into(),
            redirect: Arc::new(redirect),
        })
    }

    /// The client credentials grant, with a secret: sent in the request body
    /// (`client_secret_post`) unless the authorization server supports only HTTP Basic
    /// (`client_secret_basic`).
    pub fn client_credentials(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        let mut config = Self::new(Grant::ClientCredentials { private_key: None });
        config.client_id = Some(client_id.into());
        config.client_secret = Some(secret.into());
        config
    }

    /// The client credentials grant, the client authenticated by a JWT signed with
    /// `private_key_pem` (`private_key_jwt`, RFC 7523).
    pub fn client_credentials_jwt(
        client_id: impl Into<String>,
        private_key_pem: impl Into<Vec<u8>>,
        algorithm: JwtSigningAlgorithm,
    ) -> Self {
        let mut config = Self::new(Grant::ClientCredentials {
            private_key: Some((private_key_pem.into(), algorithm)),
        });
        config.client_id = Some(client_id.into());
        config
    }

    /// Pins the authorization server: the one discovery finds must name this `issuer` (its
    /// metadata's `issuer`, compared as a string but for a trailing `/`), else the connection
    /// fails with an error and nothing (no registration, no authorization request, no client
    /// secret) is sent to it. A client secret, or a signed client assertion, goes to another
    /// origin than the MCP server's only when it is pinned here.
    ///
    /// ```
    /// use toolkit::mcp::OAuthConfig;
    ///
    /// let oauth = OAuthConfig::client_credentials("reporter", "s3cret")
    ///     .issuer("https://auth.example.com");
    /// assert!(format!("{oauth:?}").contains(r#"issuer: Some("https://auth.example.com")"#));
    /// ```
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// A client registered with the authorization server beforehand: no registration.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The secret of the pre-registered [`client_id`](Self::client_id).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// The name sent in dynamic client registration (default "toolkit MCP client").
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The HTTPS URL of this client's metadata document, used as its client ID by an
    /// authorization server that supports client ID metadata documents (instead of
    /// registering).
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The scopes to ask for. Without them: the ones the server's 401 names, else the
    /// ones its Protected Resource Metadata lists, else none.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Keeps tokens in `store` (default: an [`InMemoryTokenStore`] of this configuration's
    /// own). Tokens found there are used, and refreshed, before anything is asked of the user.
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// How many times one request may re-authorize after a 403 `insufficient_scope`
    /// (default [`DEFAULT_MAX_STEP_UPS`]); then the 403 is the request's error.
    pub fn max_step_ups(mut self, step_ups: u32) -> Self {
        self.max_step_ups = step_ups;
        self
    }
}

/// Shows the grant and the client's identity, never a secret or a key.
impl std::fmt::Debug for OAuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grant = match &self.grant {
            Grant::AuthorizationCode { .. } => "authorization_code",
            Grant::ClientCredentials { private_key: None } => "client_credentials",
            Grant::ClientCredentials { .. } => "client_credentials (private_key_jwt)",
        };
        f.debug_struct("OAuthConfig")
            .field("grant", &grant)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("issuer", &self.issuer)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::JwtSigningAlgorithm;

    #[test]
    fn each_signing_algorithm_is_rmcps_of_the_same_name() {
        use JwtSigningAlgorithm::*;
        for ours in [RS256, RS384, RS512, ES256, ES384] {
            assert_eq!(format!("{:?}", ours.to_rmcp()), format!("{ours:?}"));
        }
    }
}
