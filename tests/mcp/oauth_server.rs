//! The MCP server as an OAuth 2.1 resource server, over real HTTP on loopback: JWT access tokens
//! checked against an issuer's JWKS served by a second loopback server, the 401 and 403
//! challenges (RFC 6750) pointing at the protected resource metadata (RFC 9728), tools listed
//! and called by scope, stateful and stateless; and a refused token in no tool and no log.
//!
//! The keys are fixtures (tests/fixtures/oauth/): `issuer.pem` and `issuer-rsa.pem` are in the
//! issuer's JWKS (`jwks.json`, kids `ec-1` and `rsa-1`), `rogue.pem` is not.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use reqwest::StatusCode;
use serde_json::{Value, json};
use toolkit::mcp::{HttpOptions, HttpServerHandle, JwtVerifier, McpServer, ProtectedResource};
use toolkit::prelude::*;

const ISSUER_KEY: &str = include_str!("../fixtures/oauth/issuer.pem");
const ISSUER_RSA_KEY: &str = include_str!("../fixtures/oauth/issuer-rsa.pem");
const ROGUE_KEY: &str = include_str!("../fixtures/oauth/rogue.pem");
const JWKS: &str = include_str!("../fixtures/oauth/jwks.json");
const ROGUE_JWKS: &str = include_str!("../fixtures/oauth/rogue-jwks.json");
const AUDIENCE: &str = "https://mcp.example.com/mcp";
const METADATA: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

/// The issuer: its JWKS on loopback, what it serves replaceable, and how often it was asked.
struct Issuer {
    url: String,
    jwks: Arc<Mutex<String>>,
    fetches: Arc<AtomicUsize>,
}

impl Issuer {
    async fn start() -> Issuer {
        let jwks = Arc::new(Mutex::new(JWKS.to_owned()));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (served, counted) = (Arc::clone(&jwks), Arc::clone(&fetches));
        let app = axum::Router::new().route(
            "/.well-known/jwks.json",
            axum::routing::get(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                let body = served.lock().unwrap().clone();
                async move { ([("content-type", "application/json")], body) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Issuer { url, jwks, fetches }
    }

    fn verifier(&self) -> JwtVerifier {
        JwtVerifier::new(&self.url, AUDIENCE)
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    /// A token with these claims over the defaults (this issuer, the server's audience, an
    /// hour to live), signed with `key` under `kid`.
    fn token(&self, alg: Algorithm, key: &str, kid: &str, claims: Value) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let mut all = json!({"iss": self.url, "aud": AUDIENCE, "sub": "alice", "iat": now, "exp": now + 3600});
        // A `null` takes the default claim out.
        for (name, value) in claims.as_object().unwrap() {
            match value {
                Value::Null => drop(all.as_object_mut().unwrap().remove(name)),
                value => all[name] = value.clone(),
            }
        }
        let mut header = Header::new(alg);
        header.kid = Some(kid.to_owned());
        let key = match alg {
            Algorithm::RS256 => EncodingKey::from_rsa_pem(key.as_bytes()).unwrap(),
            _ => EncodingKey::from_ec_pem(key.as_bytes()).unwrap(),
        };
        jsonwebtoken::encode(&header, &all, &key).unwrap()
    }

    fn good(&self, scope: &str) -> String {
        self.token(
            Algorithm::ES256,
            ISSUER_KEY,
            "ec-1",
            json!({"scope": scope}),
        )
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// `whoami` (anyone) says who called and what it saw; `push` needs `repo:write`; both count
/// their calls.
fn tools(calls: Arc<AtomicUsize>) -> Vec<ToolProxy> {
    let counted = Arc::clone(&calls);
    let whoami = ToolBuilder::new("whoami")
        .description("Who is calling")
        .build_with_context(move |_args, ctx| {
            counted.fetch_add(1, Ordering::SeqCst);
            let caller = ctx.caller().cloned().unwrap_or_default();
            let authorization = ctx.headers().and_then(|h| h.get("authorization")).is_some();
            Ok::<_, String>(json!({
                "principal": caller.principal,
                "scopes": caller.scopes,
                "sees_the_token": authorization,
            }))
        })
        .unwrap();
    let push = ToolBuilder::new("push")
        .description("Pushes to the repository")
        .build(move |_args| {
            calls.fetch_add(1, Ordering::SeqCst);
            Ok::<_, String>("pushed")
        })
        .unwrap()
        .with_options(|options| options.scopes = vec!["repo:write".to_owned()]);
    vec![whoami, push]
}

struct Served {
    server: HttpServerHandle,
    /// One client for every request: building one loads the TLS roots, tens of ms in debug.
    http: reqwest::Client,
    calls: Arc<AtomicUsize>,
    stateless: bool,
}

async fn serve(verifier: JwtVerifier, stateless: bool) -> Served {
    let calls = Arc::new(AtomicUsize::new(0));
    let options = HttpOptions::default()
        .stateless(stateless)
        .token_verifier(verifier)
        .protected_resource(ProtectedResource::new(AUDIENCE));
    let server = McpServer::new(tools(Arc::clone(&calls)))
        .spawn_http("127.0.0.1:0", options)
        .await
        .unwrap();
    Served {
        server,
        http: reqwest::Client::new(),
        calls,
        stateless,
    }
}

/// One HTTP answer: status, `WWW-Authenticate`, the JSON-RPC message (from JSON or SSE).
#[derive(Debug)]
struct Answer {
    status: StatusCode,
    challenge: Option<String>,
    message: Value,
}

impl Served {
    async fn post(
        &self,
        token: Option<&str>,
        session: Option<&str>,
        body: Value,
    ) -> (Answer, Option<String>) {
        let mut request = (self.http)
            .post(self.server.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let response = request.send().await.unwrap();
        let header = |name: &str| {
            (response.headers().get(name)).map(|value| value.to_str().unwrap().to_owned())
        };
        let (status, challenge, session) = (
            response.status(),
            header("www-authenticate"),
            header("mcp-session-id"),
        );
        let text = response.text().await.unwrap();
        let data = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .find(|data| data.contains("\"id\""))
            .unwrap_or(&text);
        let message = serde_json::from_str(data.trim()).unwrap_or(Value::String(text.clone()));
        (
            Answer {
                status,
                challenge,
                message,
            },
            session,
        )
    }

    /// `method` as `token`'s holder: in a session of its own unless stateless.
    async fn rpc(&self, token: Option<&str>, method: &str, params: Value) -> Answer {
        let mut session = None;
        if !self.stateless {
            let (opened, id) = self.post(token, None, initialize()).await;
            if opened.status != StatusCode::OK {
                return opened;
            }
            session = id;
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            self.post(token, session.as_deref(), initialized).await;
        }
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": params});
        self.post(token, session.as_deref(), body).await.0
    }

    async fn call(&self, token: Option<&str>, tool: &str) -> Answer {
        self.rpc(token, "tools/call", json!({"name": tool, "arguments": {}}))
            .await
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
}

fn invalid_token(problem: &str) -> String {
    format!(
        r#"Bearer error="invalid_token", error_description="{problem}", resource_metadata="{METADATA}""#
    )
}

/// The text of a `tools/call` result.
fn text(answer: &Answer) -> Value {
    let text = answer.message["result"]["content"][0]["text"].as_str();
    serde_json::from_str(text.unwrap_or_else(|| panic!("no result: {answer:?}"))).unwrap()
}

#[tokio::test]
async fn a_good_token_reaches_the_tool_as_its_caller_with_its_scopes_but_not_the_token() {
    let issuer = Issuer::start().await;
    for stateless in [false, true] {
        let served = serve(issuer.verifier(), stateless).await;
        let token = issuer.good("repo:read repo:write");
        let answer = served.call(Some(&token), "whoami").await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(
            text(&answer),
            json!({"principal": "alice", "scopes": ["repo:read", "repo:write"], "sees_the_token": false})
        );
        let pushed = served.call(Some(&token), "push").await;
        assert_eq!(pushed.message["result"]["content"][0]["text"], "pushed");
        // `scp` as a list, an RSA key, and a client-credentials token (its `sub` the client).
        let scp = issuer.token(
            Algorithm::RS256,
            ISSUER_RSA_KEY,
            "rsa-1",
            json!({"sub": "ci-bot", "client_id": "ci-bot", "scp": ["repo:read"]}),
        );
        let answer = served.call(Some(&scp), "whoami").await;
        assert_eq!(
            text(&answer),
            json!({"principal": "ci-bot", "scopes": ["repo:read"], "sees_the_token": false})
        );
        served.server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn tools_list_shows_only_the_tools_whose_scopes_the_caller_holds() {
    let issuer = Issuer::start().await;
    for stateless in [false, true] {
        let served = serve(issuer.verifier(), stateless).await;
        for (scope, listed) in [
            ("repo:read", vec!["whoami"]),
            ("repo:write", vec!["whoami", "push"]),
        ] {
            let answer = served
                .rpc(Some(&issuer.good(scope)), "tools/list", json!({}))
                .await;
            let names: Vec<&str> = answer.message["result"]["tools"]
                .as_array()
                .unwrap_or_else(|| panic!("no tools: {answer:?}"))
                .iter()
                .map(|tool| tool["name"].as_str().unwrap())
                .collect();
            assert_eq!(names, listed, "with {scope}, stateless {stateless}");
        }
        served.server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn a_call_without_the_tools_scope_gets_403_insufficient_scope_and_reaches_no_tool() {
    let issuer = Issuer::start().await;
    for stateless in [false, true] {
        let served = serve(issuer.verifier(), stateless).await;
        let answer = served.call(Some(&issuer.good("repo:read")), "push").await;
        assert_eq!(answer.status, StatusCode::FORBIDDEN);
        assert_eq!(
            answer.challenge.as_deref(),
            Some(format!(
                r#"Bearer error="insufficient_scope", scope="repo:read repo:write", resource_metadata="{METADATA}", error_description="the tool `push` needs the scope(s) `repo:write`""#
            ).as_str())
        );
        assert_eq!(
            answer.message,
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "the tool `push` needs the scope(s) `repo:write`"}})
        );
        assert_eq!(served.calls.load(Ordering::SeqCst), 0);
        served.server.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn a_session_serves_only_the_caller_who_opened_it() {
    let issuer = Issuer::start().await;
    let served = serve(issuer.verifier(), false).await;
    let alice = issuer.good("repo:read");
    let bob = issuer.token(Algorithm::ES256, ISSUER_KEY, "ec-1", json!({"sub": "bob"}));
    let (opened, session) = served.post(Some(&alice), None, initialize()).await;
    assert_eq!(opened.status, StatusCode::OK);
    let session = session.expect("a session id");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    // Bob's token is good, but the session is Alice's: as if it did not exist.
    let (stolen, _) = served.post(Some(&bob), Some(&session), list.clone()).await;
    assert_eq!(
        (stolen.status, stolen.message),
        (StatusCode::NOT_FOUND, json!("Not Found: Session not found"))
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    served.post(Some(&alice), Some(&session), initialized).await;
    let (listed, _) = served.post(Some(&alice), Some(&session), list).await;
    assert_eq!(listed.status, StatusCode::OK);
    assert_eq!(listed.message["result"]["tools"][0]["name"], "whoami");
    served.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn refused_tokens_get_401_with_the_reason_and_the_resource_metadata() {
    let issuer = Issuer::start().await;
    let served = serve(issuer.verifier(), true).await;
    let past = now() - 600;
    let refused = [
        // Signed by a key the JWKS lacks, under a kid it lacks, then under the issuer's kid.
        (
            issuer.token(Algorithm::ES256, ROGUE_KEY, "rogue-1", json!({})),
            "no key of the issuer matches the token",
        ),
        (
            issuer.token(Algorithm::ES256, ROGUE_KEY, "ec-1", json!({})),
            "the token's signature does not verify",
        ),
        (
            issuer.token(
                Algorithm::ES256,
                ISSUER_KEY,
                "ec-1",
                json!({"exp": past, "iat": past - 60}),
            ),
            "the token has expired",
        ),
        (
            issuer.token(
                Algorithm::ES256,
                ISSUER_KEY,
                "ec-1",
                json!({"aud": "https://other.example.com/mcp"}),
            ),
            "the token is for another audience",
        ),
        (
            issuer.token(
                Algorithm::ES256,
                ISSUER_KEY,
                "ec-1",
                json!({"iss": "https://evil.example.com"}),
            ),
            "the token is from another issuer",
        ),
        (
            issuer.token(
                Algorithm::ES256,
                ISSUER_KEY,
                "ec-1",
                json!({"nbf": now() + 600}),
            ),
            "the token is not valid yet",
        ),
        (
            issuer.token(Algorithm::ES256, ISSUER_KEY, "ec-1", json!({"exp": null})),
            "the token has no `exp` claim",
        ),
        (
            issuer.token(Algorithm::ES256, ISSUER_KEY, "ec-1", json!({"sub": null})),
            "the token has no `sub` claim",
        ),
        // A token MACed with the issuer's public key as an HMAC secret: HS256 is never accepted.
        (hs256(), "tokens signed with HS256 are not accepted"),
        ("not.a.jwt".to_owned(), "the token is not a well-formed JWT"),
    ];
    for (token, problem) in refused {
        let answer = served.call(Some(&token), "whoami").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{problem}");
        assert_eq!(answer.challenge, Some(invalid_token(problem)), "{problem}");
    }
    let missing = served.call(None, "whoami").await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        missing.challenge,
        Some(format!(r#"Bearer resource_metadata="{METADATA}""#))
    );
    assert_eq!(served.calls.load(Ordering::SeqCst), 0);
    served.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn tokens_with_an_empty_or_non_string_subject_are_refused_not_merged_into_one_caller() {
    let issuer = Issuer::start().await;
    let served = serve(issuer.verifier(), true).await;
    let cases = [
        (json!({"sub": ""}), "the token's `sub` claim is empty"),
        (
            json!({"sub": "", "client_id": "other-client"}),
            "the token's `sub` claim is empty",
        ),
        (
            json!({"sub": 42, "client_id": "ci-bot"}),
            "the token's `sub` claim is not a string",
        ),
        (
            json!({"sub": true, "client_id": "ci-bot"}),
            "the token's `sub` claim is not a string",
        ),
        (
            json!({"sub": null, "client_id": "ci-bot"}),
            "the token has no `sub` claim",
        ),
    ];
    let mut accepted = Vec::new();
    for (claims, problem) in cases {
        let token = issuer.token(Algorithm::ES256, ISSUER_KEY, "ec-1", claims.clone());
        let answer = served.call(Some(&token), "whoami").await;
        if answer.status == StatusCode::OK {
            accepted.push(format!("{claims} as {}", text(&answer)["principal"]));
            continue;
        }
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED, "{claims}");
        assert_eq!(answer.challenge, Some(invalid_token(problem)), "{claims}");
    }
    assert_eq!(accepted, Vec::<String>::new(), "tokens accepted");
    assert_eq!(served.calls.load(Ordering::SeqCst), 0);
    served.server.shutdown().await.unwrap();
}

fn hs256() -> String {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some("ec-1".to_owned());
    let claims = json!({"sub": "mallory", "exp": now() + 600});
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(JWKS.as_bytes())).unwrap()
}

#[tokio::test]
async fn the_protected_resource_metadata_names_the_resource_its_issuer_and_its_scopes() {
    let issuer = Issuer::start().await;
    let served = serve(issuer.verifier(), false).await;
    let base = format!("http://{}", served.server.local_addr());
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let response = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()["access-control-allow-origin"], "*");
        let document: Value = response.json().await.unwrap();
        assert_eq!(
            document,
            json!({
                "resource": AUDIENCE,
                "bearer_methods_supported": ["header"],
                "authorization_servers": [issuer.url],
                "scopes_supported": ["repo:write"],
            })
        );
    }
    served.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_jwks_is_fetched_once_for_many_calls_and_not_again_for_an_unknown_key_soon_after() {
    let issuer = Issuer::start().await;
    let served = serve(issuer.verifier(), true).await;
    let calls = (0..20).map(|i| {
        let token = issuer.good(if i % 2 == 0 { "a" } else { "b" });
        let served = &served;
        async move { served.call(Some(&token), "whoami").await.status }
    });
    let statuses = futures::future::join_all(calls).await;
    assert!(
        statuses.iter().all(|status| *status == StatusCode::OK),
        "{statuses:?}"
    );
    assert_eq!(issuer.fetches(), 1);
    // Within the minimum interval, a token naming a key the JWKS lacks costs no fetch.
    *issuer.jwks.lock().unwrap() = ROGUE_JWKS.to_owned();
    let rotated = issuer.token(Algorithm::ES256, ROGUE_KEY, "rogue-1", json!({}));
    for _ in 0..5 {
        let answer = served.call(Some(&rotated), "whoami").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    assert_eq!(issuer.fetches(), 1);
    served.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_key_the_issuer_rotates_in_is_fetched_and_accepted() {
    let issuer = Issuer::start().await;
    let verifier = issuer.verifier().min_refetch_interval(Duration::ZERO);
    let served = serve(verifier, true).await;
    assert_eq!(
        served.call(Some(&issuer.good("a")), "whoami").await.status,
        StatusCode::OK
    );
    *issuer.jwks.lock().unwrap() = ROGUE_JWKS.to_owned();
    let rotated = issuer.token(Algorithm::ES256, ROGUE_KEY, "rogue-1", json!({}));
    assert_eq!(
        served.call(Some(&rotated), "whoami").await.status,
        StatusCode::OK
    );
    assert_eq!(issuer.fetches(), 2);
    served.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_unreachable_jwks_is_503_not_a_verdict_on_the_token() {
    let issuer = Issuer::start().await;
    let verifier =
        JwtVerifier::new(&issuer.url, AUDIENCE).jwks_url(format!("{}/missing", issuer.url));
    let served = serve(verifier, true).await;
    let answer = served.call(Some(&issuer.good("a")), "whoami").await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.challenge, None);
    served.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_bearer_token_and_a_verifier_together_are_refused_at_start() {
    let options = HttpOptions::default()
        .bearer_token("s3cret")
        .token_verifier(JwtVerifier::new("https://auth.example.com", AUDIENCE));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let served = McpServer::new(Vec::new())
        .serve_http(listener, options, async {})
        .await;
    let err = served.expect_err("both set");
    assert!(
        err.to_string()
            .contains("both a bearer_token and a token_verifier"),
        "{err}"
    );
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Logs {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_refused_token_reaches_no_tool_and_no_log() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    // The test's runtime is current-thread: the server's tasks run on this thread, under this
    // subscriber.
    let _logging = tracing::subscriber::set_default(subscriber);
    let issuer = Issuer::start().await;
    let served = serve(issuer.verifier(), false).await;
    let expired = issuer.token(
        Algorithm::ES256,
        ISSUER_KEY,
        "ec-1",
        json!({"exp": now() - 600}),
    );
    let rogue = issuer.token(Algorithm::ES256, ROGUE_KEY, "ec-1", json!({}));
    for token in [&expired, &rogue] {
        let answer = served.call(Some(token), "whoami").await;
        assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    }
    served.server.shutdown().await.unwrap();
    assert_eq!(served.calls.load(Ordering::SeqCst), 0);
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        logged.contains("bearer token refused"),
        "the refusals were not logged at all: {logged}"
    );
    for token in [&expired, &rogue] {
        let signature = token.rsplit('.').next().unwrap();
        assert!(
            !logged.contains(signature),
            "a refused token was logged:\n{logged}"
        );
    }
}

/// A JWKS endpoint that is down: it never answers (`hang`), or answers 500; it counts the
/// requests it got.
async fn broken_jwks(hang: bool) -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    let app = axum::Router::new().route(
        "/.well-known/jwks.json",
        axum::routing::get(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                if hang {
                    std::future::pending::<()>().await;
                }
                (StatusCode::INTERNAL_SERVER_ERROR, "down")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, hits)
}

/// 20 good tokens at once while the issuer's JWKS is down: how each was answered, with
/// `Retry-After` when it was 503.
async fn twenty_good_tokens_against(hang: bool) -> (Vec<(StatusCode, Option<String>)>, usize) {
    let issuer = Issuer::start().await;
    let (jwks, hits) = broken_jwks(hang).await;
    let verifier = JwtVerifier::new(&issuer.url, AUDIENCE)
        .jwks_url(format!("{jwks}/.well-known/jwks.json"))
        .jwks_timeout(Duration::from_millis(500));
    let served = serve(verifier, true).await;
    let calls = (0..20).map(|_| {
        let token = issuer.good("repo:read");
        let served = &served;
        async move {
            let response = (served.http)
                .post(served.server.url())
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .bearer_auth(token)
                .body(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string())
                .send()
                .await
                .unwrap();
            let retry_after = (response.headers().get("retry-after"))
                .map(|value| value.to_str().unwrap().to_owned());
            (response.status(), retry_after)
        }
    });
    let answers = futures::future::join_all(calls).await;
    served.server.shutdown().await.unwrap();
    (answers, hits.load(Ordering::SeqCst))
}

fn count(answers: &[(StatusCode, Option<String>)], status: StatusCode) -> usize {
    answers.iter().filter(|(got, _)| *got == status).count()
}

#[tokio::test]
async fn while_the_first_jwks_fetch_hangs_every_good_token_gets_503_not_401() {
    let (answers, fetches) = twenty_good_tokens_against(true).await;
    assert_eq!(
        (
            count(&answers, StatusCode::UNAUTHORIZED),
            count(&answers, StatusCode::SERVICE_UNAVAILABLE)
        ),
        (0, 20),
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .all(|(_, retry)| retry.as_deref() == Some("5")),
        "{answers:?}"
    );
    // One fetch for all of them: the others waited for it.
    assert_eq!(fetches, 1);
}

#[tokio::test]
async fn when_the_first_jwks_fetch_fails_every_good_token_gets_503_not_401() {
    let (answers, fetches) = twenty_good_tokens_against(false).await;
    assert_eq!(
        (
            count(&answers, StatusCode::UNAUTHORIZED),
            count(&answers, StatusCode::SERVICE_UNAVAILABLE)
        ),
        (0, 20),
        "{answers:?}"
    );
    assert_eq!(fetches, 1);
}

#[tokio::test]
async fn a_token_naming_a_new_key_while_the_jwks_is_down_gets_503() {
    let issuer = Issuer::start().await;
    let verifier = issuer
        .verifier()
        .min_refetch_interval(Duration::ZERO)
        .jwks_timeout(Duration::from_millis(500));
    let served = serve(verifier, true).await;
    let good = served.call(Some(&issuer.good("a")), "whoami").await;
    assert_eq!(good.status, StatusCode::OK);
    // The issuer rotates to a key the server has not seen, and its JWKS goes down.
    *issuer.jwks.lock().unwrap() = "<html>down</html>".to_owned();
    let rotated = issuer.token(Algorithm::ES256, ROGUE_KEY, "rogue-1", json!({}));
    let answer = served.call(Some(&rotated), "whoami").await;
    assert_eq!(
        (answer.status, answer.challenge),
        (StatusCode::SERVICE_UNAVAILABLE, None)
    );
    // The keys already held still serve the tokens they sign.
    let again = served.call(Some(&issuer.good("a")), "whoami").await;
    assert_eq!(again.status, StatusCode::OK);
    served.server.shutdown().await.unwrap();
}
