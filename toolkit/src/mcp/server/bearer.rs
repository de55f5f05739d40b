//! The guard's OAuth step: the bearer token checked by the [`TokenVerifier`], a tool's scopes
//! checked before a `tools/call` reaches it, the challenges of RFC 6750 on a refusal, and the
//! protected resource metadata document (RFC 9728) those challenges point to.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::ErrorCode;
use serde_json::{Value, json};

use super::auth::{ProtectedResource, TokenRejection, TokenVerifier, WELL_KNOWN, metadata_url};
use super::rmcp_fixes::envelope::jsonrpc_error;
use crate::context::Caller;

/// What the guard needs to authenticate requests and authorize tool calls.
pub(super) struct Bearer {
    verifier: Arc<dyn TokenVerifier>,
    /// The configured canonical URL, when there is one.
    resource: Option<String>,
    /// The MCP endpoint's path, to make the resource URL up from `Host` without one.
    path: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    /// Each scoped tool's scopes, all of which a caller needs.
    tool_scopes: HashMap<String, Vec<String>>,
}

impl Bearer {
    pub(super) fn new(
        verifier: Arc<dyn TokenVerifier>,
        resource: &ProtectedResource,
        path: &str,
        tool_scopes: HashMap<String, Vec<String>>,
    ) -> Self {
        let mut authorization_servers = verifier.authorization_servers();
        for server in &resource.authorization_servers {
            if !authorization_servers.contains(server) {
                authorization_servers.push(server.clone());
            }
        }
        let scopes_supported = resource.scopes_supported.clone().unwrap_or_else(|| {
            let mut scopes: Vec<String> = tool_scopes.values().flatten().cloned().collect();
            scopes.sort();
            scopes.dedup();
            scopes
        });
        Bearer {
            verifier,
            resource: resource.resource.clone(),
            path: path.to_owned(),
            authorization_servers,
            scopes_supported,
            tool_scopes,
        }
    }

    /// The caller the request's token names, the `Authorization` header taken out of the
    /// request (a tool must never see the token, nor pass it on); or the 401 (503 when the
    /// verifier cannot check tokens now) refusing it.
    pub(super) async fn authenticate(&self, headers: &mut HeaderMap) -> Result<Caller, Response> {
        let mut sent = headers.get_all(header::AUTHORIZATION).iter();
        let token = match (sent.next(), sent.next()) {
            (Some(value), None) => bearer_token(value),
            (None, _) => return Err(self.unauthorized(headers, None)),
            (Some(_), Some(_)) => Err("more than one Authorization header"),
        };
        let verified = match token {
            Ok(token) => self.verifier.verify(token).await,
            Err(problem) => Err(TokenRejection::Invalid(problem.to_owned())),
        };
        match verified {
            Ok(caller) => {
                headers.remove(header::AUTHORIZATION);
                Ok(caller)
            }
            Err(TokenRejection::Unavailable(problem)) => Err((
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "5")],
                format!("tokens cannot be checked now: {problem}"),
            )
                .into_response()),
            // The reason only, at debug: the token itself is never logged.
            Err(TokenRejection::Invalid(problem)) => {
                tracing::debug!(%problem, "bearer token refused");
                Err(self.unauthorized(headers, Some(&problem)))
            }
        }
    }

    /// The 403 for a `tools/call` of `tool` (as the guard read it from the call) whose scopes
    /// `caller` lacks, if it lacks any.
    pub(super) fn authorize_call(
        &self,
        caller: &Caller,
        tool: &str,
        id: &Value,
        headers: &HeaderMap,
    ) -> Option<Response> {
        let needed = self.tool_scopes.get(tool)?;
        if needed.iter().all(|scope| caller.has_scope(scope)) {
            return None;
        }
        let text = format!(
            "the tool `{}` needs the scope(s) `{}`",
            tool,
            needed.join(" ")
        );
        // The scopes held and the ones needed (MCP 2025-11-25, "Scope Challenge Handling", the
        // recommended choice): a client that asks for just what the challenge names still holds
        // what it held, instead of trading one scope for another.
        let mut scopes = caller.scopes.clone();
        scopes.extend(
            needed
                .iter()
                .filter(|scope| !caller.has_scope(scope))
                .cloned(),
        );
        let scope = scopes.join(" ");
        let challenge = format!(
            r#"Bearer error="insufficient_scope", scope="{}", resource_metadata="{}", error_description="{}""#,
            quoted(&scope),
            self.metadata_url(headers),
            quoted(&text),
        );
        let mut response =
            jsonrpc_error(StatusCode::FORBIDDEN, id.clone(), ErrorCode(-32000), &text);
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        Some(response)
    }

    fn unauthorized(&self, headers: &HeaderMap, problem: Option<&str>) -> Response {
        let metadata = self.metadata_url(headers);
        let (challenge, text) = match problem {
            None => (
                format!(r#"Bearer resource_metadata="{metadata}""#),
                "missing bearer token".to_owned(),
            ),
            Some(problem) => (
                format!(
                    r#"Bearer error="invalid_token", error_description="{}", resource_metadata="{metadata}""#,
                    quoted(problem)
                ),
                format!("invalid bearer token: {problem}"),
            ),
        };
        let mut response = (StatusCode::UNAUTHORIZED, text).into_response();
        if let Ok(value) = HeaderValue::from_str(&challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }

    /// The canonical URL: the configured one, else `http://<Host><path>`.
    fn resource(&self, headers: &HeaderMap) -> String {
        match &self.resource {
            Some(resource) => resource.clone(),
            None => format!("http://{}{}", host(headers), self.path),
        }
    }

    fn metadata_url(&self, headers: &HeaderMap) -> String {
        metadata_url(&self.resource(headers))
    }

    /// The paths the metadata is served at: the well-known one, and the one suffixed with the
    /// resource's path (what clients try first, RFC 9728 section 3.1).
    pub(super) fn metadata_paths(&self) -> Vec<String> {
        let path = match &self.resource {
            Some(resource) => {
                let url = metadata_url(resource);
                let at = url.find(WELL_KNOWN).unwrap_or(0);
                url[at + WELL_KNOWN.len()..].to_owned()
            }
            None => self.path.trim_end_matches('/').to_owned(),
        };
        let mut paths = vec![WELL_KNOWN.to_owned()];
        if !path.is_empty() {
            paths.push(format!("{WELL_KNOWN}{path}"));
        }
        paths
    }
}

/// `GET /.well-known/oauth-protected-resource[/<path>]`.
pub(super) async fn metadata_document(
    State(bearer): State<Arc<Bearer>>,
    headers: HeaderMap,
) -> Response {
    let mut document = json!({
        "resource": bearer.resource(&headers),
        "bearer_methods_supported": ["header"],
    });
    if !bearer.authorization_servers.is_empty() {
        document["authorization_servers"] = json!(bearer.authorization_servers);
    }
    if !bearer.scopes_supported.is_empty() {
        document["scopes_supported"] = json!(bearer.scopes_supported);
    }
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "max-age=3600"),
            // Public and without credentials: a browser-based client (the MCP Inspector) may
            // read it from any page.
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        document.to_string(),
    )
        .into_response()
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 7235).
fn bearer_token(value: &HeaderValue) -> Result<&str, &'static str> {
    let value = value
        .to_str()
        .map_err(|_| "the Authorization header is not ASCII")?;
    let (scheme, token) = value
        .split_once(' ')
        .ok_or("the Authorization header is not `Bearer <token>`")?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err("the Authorization scheme is not Bearer");
    }
    let token = token.trim();
    if token.is_empty() {
        return Err("the bearer token is empty");
    }
    Ok(token)
}

/// The request's `Host`, when it is a plain host and port; `localhost` otherwise, so a forged
/// header cannot put anything else into a challenge.
fn host(headers: &HeaderMap) -> &str {
    headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .filter(|host| {
            !host.is_empty()
                && host
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("localhost")
}

/// `text` fit for an RFC 7230 quoted-string: no quote, backslash or control character.
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|c| *c != '"' && *c != '\\' && !c.is_control())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bearer_scheme_with_a_token_is_read() {
        let read = |text: &str| {
            let value = HeaderValue::from_str(text).unwrap();
            bearer_token(&value).map(str::to_owned)
        };
        assert_eq!(read("Bearer abc"), Ok("abc".to_owned()));
        assert_eq!(read("bearer abc"), Ok("abc".to_owned()));
        assert!(read("Basic abc").is_err());
        assert!(read("Bearer ").is_err());
        assert!(read("Bearer").is_err());
    }

    #[test]
    fn a_forged_host_does_not_reach_a_challenge() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("evil\"x"));
        assert_eq!(host(&headers), "localhost");
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8080"));
        assert_eq!(host(&headers), "127.0.0.1:8080");
    }
}
