//! The loopback peer of the OAuth tests: an authorization server (metadata, registration,
//! authorization, token endpoints) and a resource server in front of a real toolkit MCP
//! server, which answers 401 without a valid token and 403 `insufficient_scope` to a tool call
//! without the scope `call_scope`. It records what the client sent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use toolkit::ToolDefinition;
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer};
use toolkit::prelude::*;

/// How the peer behaves.
#[derive(Clone, Default)]
pub struct Setup {
    /// The scope a tool call needs (none: any valid token calls).
    pub call_scope: Option<String>,
    /// Scopes the authorization server never grants.
    pub withheld: Vec<String>,
    /// `expires_in` of the first access token (later ones: an hour).
    pub first_expires_in: Option<u64>,
    /// The issuer the metadata names (default: the server's own URL).
    pub issuer: Option<String>,
}

/// What the client sent, in order.
#[derive(Default)]
pub struct Seen {
    /// Each authorization request's query.
    pub authorizations: Vec<HashMap<String, String>>,
    /// Each token request's form, plus `auth` = `basic` when it came with HTTP Basic.
    pub token_requests: Vec<HashMap<String, String>>,
    /// Each dynamic registration's body.
    pub registrations: Vec<Value>,
    /// Each access token the resource server was shown.
    pub presented: Vec<String>,
}

#[derive(Default)]
struct Tokens {
    next: usize,
    codes: HashMap<String, String>,
    refresh: HashMap<String, String>,
    access: HashMap<String, String>,
}

pub struct Peer {
    pub base: String,
    setup: Setup,
    pub seen: Mutex<Seen>,
    tokens: Mutex<Tokens>,
    mcp: HttpServerHandle,
    http: reqwest::Client,
}

impl Peer {
    pub async fn start(setup: Setup) -> Arc<Peer> {
        let echo = ToolProxy::from_fn(
            ToolDefinition::new(
                "echo",
                "Echo",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            ),
            |args| Ok::<_, String>(args["text"].clone()),
        );
        let mcp = McpServer::new([echo])
            .spawn_http("127.0.0.1:0", HttpOptions::default().stateless(true))
            .await
            .expect("the MCP server starts");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let peer = Arc::new(Peer {
            base,
            setup,
            seen: Mutex::default(),
            tokens: Mutex::default(),
            mcp,
            http: reqwest::Client::new(),
        });
        let app = Router::new()
            .route("/mcp", post(resource).get(no_stream).delete(no_stream))
            .route(
                "/.well-known/oauth-protected-resource/mcp",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                get(server_metadata),
            )
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .with_state(Arc::clone(&peer));
        tokio::spawn(async move { axum::serve(listener, app).await });
        peer
    }

    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// Makes every access token issued so far invalid, as a server restart or revocation does.
    pub fn revoke_access_tokens(&self) {
        self.tokens.lock().unwrap().access.clear();
    }

    fn challenge(&self) -> String {
        format!(
            r#"Bearer resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
            self.base
        )
    }

    fn issue(&self, scope: &str) -> Value {
        let mut tokens = self.tokens.lock().unwrap();
        tokens.next += 1;
        let n = tokens.next;
        let (access, refresh) = (format!("at-{n}-secret"), format!("rt-{n}-secret"));
        tokens.access.insert(access.clone(), scope.to_owned());
        tokens.refresh.insert(refresh.clone(), scope.to_owned());
        let expires_in = match (n, self.setup.first_expires_in) {
            (1, Some(first)) => first,
            _ => 3600,
        };
        json!({"access_token": access, "token_type": "Bearer", "expires_in": expires_in,
               "refresh_token": refresh, "scope": scope})
    }

    fn granted(&self, requested: &str) -> String {
        requested
            .split_whitespace()
            .filter(|scope| !self.setup.withheld.iter().any(|held| held == scope))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn json_answer(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

fn pairs(query: &str) -> HashMap<String, String> {
    reqwest::Url::parse(&format!("http://peer/?{query}"))
        .unwrap()
        .query_pairs()
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect()
}

async fn resource_metadata(State(peer): State<Arc<Peer>>) -> Response {
    json_answer(
        StatusCode::OK,
        json!({"resource": peer.mcp_url(), "authorization_servers": [peer.base]}),
    )
}

async fn server_metadata(State(peer): State<Arc<Peer>>) -> Response {
    let base = &peer.base;
    json_answer(
        StatusCode::OK,
        json!({
            "issuer": peer.setup.issuer.clone().unwrap_or_else(|| base.clone()),
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        }),
    )
}

async fn register(State(peer): State<Arc<Peer>>, body: Bytes) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let answer = json!({"client_id": "registered-client",
                        "redirect_uris": body["redirect_uris"].clone(),
                        "token_endpoint_auth_method": "none"});
    peer.seen.lock().unwrap().registrations.push(body);
    json_answer(StatusCode::CREATED, answer)
}

async fn authorize(State(peer): State<Arc<Peer>>, RawQuery(query): RawQuery) -> Response {
    let query = pairs(&query.unwrap_or_default());
    let code = format!(
        "code-{}",
        query.len() + peer.seen.lock().unwrap().authorizations.len()
    );
    let scope = peer.granted(query.get("scope").map_or("", String::as_str));
    peer.tokens
        .lock()
        .unwrap()
        .codes
        .insert(code.clone(), scope);
    let mut to = reqwest::Url::parse(&query["redirect_uri"]).unwrap();
    to.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", query.get("state").map_or("", String::as_str));
    peer.seen.lock().unwrap().authorizations.push(query);
    (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response()
}

async fn token(State(peer): State<Arc<Peer>>, headers: HeaderMap, body: String) -> Response {
    let mut form = pairs(&body);
    let basic = headers
        .get(header::AUTHORIZATION)
        .is_some_and(|value| value.as_bytes().starts_with(b"Basic "));
    if basic {
        form.insert("auth".into(), "basic".into());
    }
    peer.seen.lock().unwrap().token_requests.push(form.clone());
    let scope = {
        let tokens = peer.tokens.lock().unwrap();
        match form.get("grant_type").map(String::as_str) {
            Some("authorization_code") => tokens.codes.get(&form["code"]).cloned(),
            Some("refresh_token") => tokens.refresh.get(&form["refresh_token"]).cloned(),
            Some("client_credentials") => {
                Some(peer.granted(form.get("scope").map_or("", String::as_str)))
            }
            _ => None,
        }
    };
    match scope {
        Some(scope) => json_answer(StatusCode::OK, peer.issue(&scope)),
        None => json_answer(StatusCode::BAD_REQUEST, json!({"error": "invalid_grant"})),
    }
}

async fn no_stream() -> StatusCode {
    StatusCode::METHOD_NOT_ALLOWED
}

/// The resource server: the token checked, then the request passed to the MCP server.
async fn resource(State(peer): State<Arc<Peer>>, headers: HeaderMap, body: Bytes) -> Response {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_owned);
    let scope = presented
        .as_ref()
        .and_then(|token| peer.tokens.lock().unwrap().access.get(token).cloned());
    if let Some(token) = &presented {
        peer.seen.lock().unwrap().presented.push(token.clone());
    }
    let Some(scope) = scope else {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, peer.challenge())],
        )
            .into_response();
    };
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if let Some(needed) = &peer.setup.call_scope
        && message["method"] == "tools/call"
        && !scope.split_whitespace().any(|held| held == needed)
    {
        let challenge = format!(
            r#"Bearer error="insufficient_scope", scope="{needed}", resource_metadata="{}/.well-known/oauth-protected-resource/mcp""#,
            peer.base
        );
        return (
            StatusCode::FORBIDDEN,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response();
    }
    let mut forward = peer.http.request(Method::POST, peer.mcp.url()).body(body);
    // The content headers, and every MCP one (`MCP-Protocol-Version`, `Mcp-Session-Id`,
    // 2026-07-28's `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), which the server checks.
    for (name, value) in &headers {
        let name = name.as_str();
        if name == "content-type" || name == "accept" || name.starts_with("mcp-") {
            forward = forward.header(name, value);
        }
    }
    let answer = forward.send().await.expect("the MCP server answers");
    let status = answer.status();
    let content_type = answer.headers().get(header::CONTENT_TYPE).cloned();
    let body = answer.bytes().await.unwrap_or_default();
    let mut response = (status, body).into_response();
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, content_type);
    }
    response
}
