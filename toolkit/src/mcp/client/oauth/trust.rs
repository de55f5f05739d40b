//! Which authorization server this client may talk to, and with what: checked on what
//! discovery found, before rmcp sends anything to it (a registration, an authorization
//! request, a token request).
//!
//! A resource server names its authorization server itself (RFC 9728), so a malicious one can
//! point a client anywhere. A pinned issuer ([`OAuthConfig::issuer`]) must be the one found;
//! and a client secret or a signed client assertion goes only to an authorization server
//! whose origin the user chose: the pinned issuer's, or the MCP server's own (the URL the
//! credentials were configured with). rmcp's fallback when nothing is discovered (the
//! 2025-03-26 `/authorize`, `/token`, `/register` on the MCP server itself) gets no secret
//! unless that origin is pinned.

use reqwest::Url;
use rmcp::transport::auth::{
    AuthError, AuthorizationMetadataResolution, AuthorizationMetadataSource,
};

use super::{Grant, OAuthConfig};

/// Whether `config` may go on with the authorization server `found` for the MCP server at
/// `server`; else the error saying why not, and how to allow it.
pub(super) fn check(
    config: &OAuthConfig,
    server: &str,
    found: &AuthorizationMetadataResolution,
) -> Result<(), AuthError> {
    let fallback = found.source == AuthorizationMetadataSource::LegacyEndpointFallback;
    allowed(config, server, fallback, found.metadata.issuer.as_deref())
}

/// [`check`] on what it reads of discovery: whether nothing was discovered (`fallback`, rmcp's
/// endpoints on the MCP server itself), and the issuer the metadata names.
fn allowed(
    config: &OAuthConfig,
    server: &str,
    fallback: bool,
    issuer: Option<&str>,
) -> Result<(), AuthError> {
    let secret = sends_secret(config);
    if fallback {
        return match config.issuer.as_deref() {
            Some(pinned) if same_origin(pinned, server) => Ok(()),
            Some(pinned) => Err(refused(format!(
                "no authorization server metadata was found for {server}, so the pinned issuer \
                 {pinned} was not found"
            ))),
            None if secret => Err(refused(format!(
                "no authorization server metadata was found for {server}; its client secret \
                 is not sent to the MCP server's own /token unless OAuthConfig::issuer pins \
                 that origin"
            ))),
            None => Ok(()),
        };
    }
    match (config.issuer.as_deref(), issuer) {
        (Some(pinned), Some(issuer)) if same_issuer(pinned, issuer) => Ok(()),
        (Some(pinned), found) => Err(refused(format!(
            "the authorization server found for {server} is {}, not the pinned issuer {pinned}",
            found.unwrap_or("one that names no issuer")
        ))),
        (None, _) if !secret => Ok(()),
        (None, Some(issuer)) if same_origin(issuer, server) => Ok(()),
        (None, found) => Err(refused(format!(
            "the authorization server found for {server} is {}, at another origin than the \
             MCP server; its client secret is sent there only when OAuthConfig::issuer pins it",
            found.unwrap_or("one that names no issuer")
        ))),
    }
}

/// Whether the client authenticates itself to the token endpoint: with a secret, or with a
/// JWT signed by its key.
fn sends_secret(config: &OAuthConfig) -> bool {
    config.client_secret.is_some() || matches!(config.grant, Grant::ClientCredentials { .. })
}

/// Issuers compare as strings (RFC 8414, section 3.3), but for a trailing `/`.
fn same_issuer(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

/// Same scheme, host and port; never for a URL that does not parse.
fn same_origin(a: &str, b: &str) -> bool {
    match (Url::parse(a), Url::parse(b)) {
        (Ok(a), Ok(b)) => a.origin().is_tuple() && a.origin() == b.origin(),
        _ => false,
    }
}

fn refused(problem: String) -> AuthError {
    AuthError::AuthorizationFailed(format!("nothing was sent: {problem}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MCP: &str = "https://mcp.example/mcp";

    /// What `allowed` says of an authorization server discovered with `issuer`.
    fn discovered(config: &OAuthConfig, issuer: Option<&str>) -> Result<(), AuthError> {
        allowed(config, MCP, false, issuer)
    }

    /// What `allowed` says when nothing was discovered.
    fn fallback(config: &OAuthConfig) -> Result<(), AuthError> {
        allowed(config, MCP, true, None)
    }

    fn public() -> OAuthConfig {
        OAuthConfig::authorization_code("http://127.0.0.1:9/cb", |_: String| async {
            Err::<super::super::OAuthCallback, _>("unused".to_owned())
        })
    }

    fn secret() -> OAuthConfig {
        OAuthConfig::client_credentials("id", "s")
    }

    fn problem(result: Result<(), AuthError>) -> String {
        result.expect_err("refused").to_string()
    }

    #[test]
    fn a_pinned_issuer_must_be_the_one_found() {
        let pinned = public().issuer("https://as.example");
        assert!(discovered(&pinned, Some("https://as.example/")).is_ok());
        assert_eq!(
            problem(discovered(&pinned, Some("https://evil.example"))),
            "OAuth authorization failed: nothing was sent: the authorization server found for \
             https://mcp.example/mcp is https://evil.example, not the pinned issuer \
             https://as.example"
        );
        let pinned_secret = secret().issuer("https://as.example");
        assert!(discovered(&pinned_secret, Some("https://as.example")).is_ok());
        assert!(problem(discovered(&pinned_secret, None)).contains("one that names no issuer"));
    }

    #[test]
    fn a_secret_goes_unpinned_only_to_the_mcp_servers_own_origin() {
        assert!(discovered(&secret(), Some("https://mcp.example")).is_ok());
        assert!(discovered(&secret(), Some("https://mcp.example:8443")).is_err());
        assert!(discovered(&secret(), Some("http://mcp.example")).is_err());
        assert!(discovered(&secret(), Some("https://as.example")).is_err());
        assert!(discovered(&secret(), None).is_err());
        let code_with_secret = public().client_id("id").client_secret("s");
        assert!(discovered(&code_with_secret, Some("https://as.example")).is_err());
        // A public client sends no secret: any authorization server the resource names.
        assert!(discovered(&public(), Some("https://as.example")).is_ok());
    }

    #[test]
    fn the_fallback_to_the_mcp_server_gets_a_secret_only_when_its_origin_is_pinned() {
        assert!(problem(fallback(&secret())).contains("own /token"));
        assert!(fallback(&secret().issuer("https://mcp.example")).is_ok());
        assert!(fallback(&secret().issuer("https://as.example")).is_err());
        assert!(fallback(&public()).is_ok());
    }
}
