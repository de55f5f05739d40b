//! `McpClient` with OAuth 2.1 against a loopback authorization server and a resource server
//! in front of a real toolkit MCP server (`mcp_oauth_client/peer.rs`): the authorization code
//! flow with PKCE, client credentials, refresh, scope step-up, the token store, and what is
//! refused (a bad state, a mismatched issuer, an authorization server the client secret was not
//! meant for). No token is ever logged.

mod peer;
mod rogue;

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use peer::{Peer, Setup};
use rogue::Recorder;
use serde_json::json;
use toolkit::mcp::{
    InMemoryTokenStore, LocalhostCallback, McpClient, McpTransport, OAuthCallback, OAuthConfig,
    TokenStore,
};

const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// The headless browser: the peer's authorization endpoint approves at once, and its
/// redirect carries the code.
async fn follow(authorization_url: String) -> Result<OAuthCallback, String> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| err.to_string())?;
    let answer = http
        .get(&authorization_url)
        .send()
        .await
        .map_err(|err| err.to_string())?;
    let location = answer.headers()["location"]
        .to_str()
        .map_err(|err| err.to_string())?;
    OAuthCallback::from_url(location)
}

fn code_flow() -> OAuthConfig {
    OAuthConfig::authorization_code(REDIRECT_URI, follow).client_name("oauth test")
}

async fn connect(peer: &Peer, oauth: OAuthConfig) -> Result<McpClient, toolkit::mcp::McpError> {
    McpClient::builder(McpTransport::http(peer.mcp_url()))
        .oauth(oauth)
        .connect()
        .await
}

async fn echo(client: &McpClient) -> Result<serde_json::Value, toolkit::ToolError> {
    client.tools()[0].acall(json!({"text": "hi"})).await
}

#[tokio::test]
async fn the_code_flow_discovers_registers_authorizes_with_pkce_and_keeps_the_tokens() {
    let peer = Peer::start(Setup::default()).await;
    let store = InMemoryTokenStore::new();
    let client = connect(&peer, code_flow().token_store(store.clone()))
        .await
        .unwrap();
    assert_eq!(echo(&client).await.unwrap(), json!("hi"));

    let seen = peer.seen.lock().unwrap();
    assert_eq!(seen.registrations.len(), 1, "registered dynamically");
    assert_eq!(seen.registrations[0]["client_name"], "oauth test");
    let authorization = &seen.authorizations[0];
    assert_eq!(authorization["code_challenge_method"], "S256");
    assert_eq!(authorization["resource"], peer.mcp_url());
    assert_eq!(authorization["client_id"], "registered-client");
    assert!(!authorization["state"].is_empty());
    let exchange = &seen.token_requests[0];
    assert_eq!(exchange["grant_type"], "authorization_code");
    assert!(exchange.contains_key("code_verifier"));
    assert_eq!(exchange["resource"], peer.mcp_url());
    let tokens = futures::executor::block_on(store.load())
        .unwrap()
        .expect("tokens kept");
    assert_eq!(tokens.access_token().as_deref(), Some("at-1-secret"));
    assert_eq!(tokens.refresh_token().as_deref(), Some("rt-1-secret"));
    assert!(seen.presented.iter().all(|token| token == "at-1-secret"));
    assert!(!format!("{tokens:?}{store:?}{client:?}").contains("secret"));
}

#[tokio::test]
async fn tokens_already_in_the_store_are_used_without_asking_the_user() {
    let peer = Peer::start(Setup::default()).await;
    let store = InMemoryTokenStore::new();
    connect(&peer, code_flow().token_store(store.clone()))
        .await
        .unwrap();
    let refuse = |_: String| async { Err::<OAuthCallback, _>("no user here".to_owned()) };
    let oauth = OAuthConfig::authorization_code(REDIRECT_URI, refuse).token_store(store);
    let again = connect(&peer, oauth).await.unwrap();
    assert_eq!(echo(&again).await.unwrap(), json!("hi"));
    assert_eq!(peer.seen.lock().unwrap().authorizations.len(), 1);
}

#[tokio::test]
async fn client_credentials_get_a_token_without_a_user() {
    let peer = Peer::start(Setup::default()).await;
    let oauth = OAuthConfig::client_credentials("service", "service-secret").scopes(["tools"]);
    let client = connect(&peer, oauth).await.unwrap();
    assert_eq!(echo(&client).await.unwrap(), json!("hi"));
    let seen = peer.seen.lock().unwrap();
    assert!(seen.authorizations.is_empty() && seen.registrations.is_empty());
    let request = &seen.token_requests[0];
    assert_eq!(request["grant_type"], "client_credentials");
    assert_eq!(request["scope"], "tools");
    assert_eq!(request["resource"], peer.mcp_url());
    assert!(request.get("client_secret").is_some() || request.get("auth").is_some());
}

#[tokio::test]
async fn an_expired_token_is_refreshed_and_a_rejected_one_too() {
    let peer = Peer::start(Setup {
        first_expires_in: Some(0),
        ..Setup::default()
    })
    .await;
    let client = connect(&peer, code_flow()).await.unwrap();
    assert_eq!(echo(&client).await.unwrap(), json!("hi"));
    let grants = |peer: &Peer| -> Vec<String> {
        let seen = peer.seen.lock().unwrap();
        seen.token_requests
            .iter()
            .map(|form| form["grant_type"].clone())
            .collect()
    };
    assert_eq!(grants(&peer)[..2], ["authorization_code", "refresh_token"]);
    assert_eq!(peer.seen.lock().unwrap().authorizations.len(), 1);

    // A token the server no longer accepts: a 401, a refresh, the request again.
    peer.revoke_access_tokens();
    assert_eq!(echo(&client).await.unwrap(), json!("hi"));
    assert_eq!(
        grants(&peer).last().map(String::as_str),
        Some("refresh_token")
    );
    assert_eq!(peer.seen.lock().unwrap().authorizations.len(), 1);
}

#[tokio::test]
async fn a_403_insufficient_scope_steps_up_to_the_union_of_scopes() {
    let peer = Peer::start(Setup {
        call_scope: Some("tools:call".into()),
        ..Setup::default()
    })
    .await;
    let client = connect(&peer, code_flow().scopes(["tools:read"]))
        .await
        .unwrap();
    assert_eq!(echo(&client).await.unwrap(), json!("hi"));
    let seen = peer.seen.lock().unwrap();
    let scopes: Vec<&str> = seen
        .authorizations
        .iter()
        .map(|query| query["scope"].as_str())
        .collect();
    assert_eq!(scopes, ["tools:read", "tools:read tools:call"]);
}

#[tokio::test]
async fn step_up_stops_after_its_limit_with_the_403_as_the_error() {
    let peer = Peer::start(Setup {
        call_scope: Some("tools:call".into()),
        withheld: vec!["tools:call".into()],
        ..Setup::default()
    })
    .await;
    let client = connect(&peer, code_flow().max_step_ups(2)).await.unwrap();
    let err = echo(&client).await.unwrap_err().to_string();
    assert!(err.to_lowercase().contains("scope"), "{err}");
    assert_eq!(peer.seen.lock().unwrap().authorizations.len(), 3);
}

#[tokio::test]
async fn a_callback_with_another_state_is_refused() {
    let peer = Peer::start(Setup::default()).await;
    let forged = |url: String| async move {
        let real = follow(url).await?;
        Ok(OAuthCallback::new(real.code, "forged-state"))
    };
    let err = connect(&peer, OAuthConfig::authorization_code(REDIRECT_URI, forged))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.to_lowercase().contains("state") || err.contains("CSRF"),
        "{err}"
    );
    let seen = peer.seen.lock().unwrap();
    assert!(seen.token_requests.is_empty(), "no code exchanged");
    assert!(seen.presented.is_empty());
}

#[tokio::test]
async fn an_authorization_server_naming_another_issuer_is_refused() {
    let peer = Peer::start(Setup {
        issuer: Some("https://elsewhere.example".into()),
        ..Setup::default()
    })
    .await;
    let err = connect(&peer, code_flow()).await.unwrap_err().to_string();
    assert!(err.contains("issuer"), "{err}");
    assert!(peer.seen.lock().unwrap().authorizations.is_empty());
}

#[tokio::test]
async fn the_localhost_callback_receives_the_browsers_redirect() {
    let peer = Peer::start(Setup::default()).await;
    let callback = Arc::new(LocalhostCallback::bind(0).await.unwrap());
    let redirect_uri = callback.redirect_uri();
    let listening = Arc::clone(&callback);
    // The browser: follows the authorization server's redirect to the listener.
    let browser = move |url: String| {
        let callback = Arc::clone(&listening);
        async move {
            tokio::spawn(async move { reqwest::get(url).await.map(drop) });
            toolkit::mcp::RedirectHandler::authorize(&*callback, String::from("(the URL)")).await
        }
    };
    let client = connect(
        &peer,
        OAuthConfig::authorization_code(redirect_uri.clone(), browser),
    )
    .await
    .unwrap();
    assert_eq!(echo(&client).await.unwrap(), json!("hi"));
    assert_eq!(
        peer.seen.lock().unwrap().authorizations[0]["redirect_uri"],
        redirect_uri
    );
}

/// Every event and span field, as text.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<String>>);

impl tracing::field::Visit for Capture {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0.lock().unwrap(), "{}={value:?} ", field.name());
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        span.record(&mut self.clone());
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        values.record(&mut self.clone());
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        event.record(&mut self.clone());
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test(flavor = "current_thread")]
async fn no_token_is_ever_logged() {
    let capture = Capture::default();
    let _guard = tracing::subscriber::set_default(capture.clone());
    let peer = Peer::start(Setup {
        first_expires_in: Some(0),
        call_scope: Some("tools:call".into()),
        ..Setup::default()
    })
    .await;
    let client = connect(&peer, code_flow()).await.unwrap();
    peer.revoke_access_tokens();
    assert_eq!(echo(&client).await.unwrap(), json!("hi"));
    let logged = capture.0.lock().unwrap().clone();
    assert!(!logged.is_empty(), "the flow logs something");
    assert!(!logged.contains("-secret"), "a token was logged: {logged}");
}

#[tokio::test]
async fn oauth_over_another_transport_than_streamable_http_is_refused() {
    let transport = McpTransport::stdio("never-started");
    let err = McpClient::builder(transport)
        .oauth(code_flow())
        .connect()
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("OAuth is for Streamable HTTP servers only"),
        "{err}"
    );
}

const SECRET: &str = "service-secret";

/// Connects with `oauth` to a resource server that names `authorization_server`, or none
/// (then discovery fails): the error, in words.
async fn refused_by(oauth: OAuthConfig, resource_server: &str) -> String {
    let connected = McpClient::builder(McpTransport::http(format!("{resource_server}/mcp")))
        .oauth(oauth)
        .connect()
        .await;
    connected
        .expect_err("the rogue server never accepts a token")
        .to_string()
}

#[tokio::test]
async fn a_client_secret_never_reaches_an_authorization_server_on_another_origin_unpinned() {
    let (to_as, to_rs) = (Recorder::default(), Recorder::default());
    let evil_as = rogue::authorization_server(to_as.clone()).await;
    let rs = rogue::resource_server(Some(evil_as.clone()), to_rs.clone()).await;
    let err = refused_by(OAuthConfig::client_credentials("service", SECRET), &rs).await;
    assert_eq!(to_as.carrying(SECRET), 0, "{:#?}", to_as.lines());
    assert_eq!(to_rs.carrying(SECRET), 0, "{:#?}", to_rs.lines());
    // Discovery read the metadata, and that is all the authorization server saw.
    assert_eq!(
        to_as.lines(),
        ["GET /.well-known/oauth-authorization-server"]
    );
    assert!(
        err.contains(&format!(
            "nothing was sent: the authorization server found for {rs}/mcp is {evil_as}, at \
             another origin than the MCP server; its client secret is sent there only when \
             OAuthConfig::issuer pins it"
        )),
        "{err}"
    );

    // A code flow's pre-registered secret is kept from it the same way.
    let code = code_flow().client_id("service").client_secret(SECRET);
    let err = refused_by(code, &rs).await;
    assert_eq!(to_as.carrying(SECRET), 0, "{:#?}", to_as.lines());
    assert!(
        err.contains("at another origin than the MCP server"),
        "{err}"
    );
}

#[tokio::test]
async fn a_client_secret_goes_to_the_pinned_issuer_on_another_origin() {
    let to_as = Recorder::default();
    let real_as = rogue::authorization_server(to_as.clone()).await;
    let rs = rogue::resource_server(Some(real_as.clone()), Recorder::default()).await;
    let oauth = OAuthConfig::client_credentials("service", SECRET).issuer(&real_as);
    refused_by(oauth, &rs).await;
    assert_eq!(
        to_as.lines(),
        ["GET /.well-known/oauth-authorization-server", "POST /token",]
    );
    assert_eq!(to_as.carrying(SECRET), 1, "{:#?}", to_as.requests());
}

#[tokio::test]
async fn a_pinned_issuer_that_is_not_the_one_found_gets_nothing_not_even_a_registration() {
    let to_as = Recorder::default();
    let other_as = rogue::authorization_server(to_as.clone()).await;
    let rs = rogue::resource_server(Some(other_as.clone()), Recorder::default()).await;
    let pinned = code_flow().issuer("https://as.example");
    let err = refused_by(pinned, &rs).await;
    assert_eq!(
        to_as.lines(),
        ["GET /.well-known/oauth-authorization-server"]
    );
    assert!(
        err.contains(&format!(
            "nothing was sent: the authorization server found for {rs}/mcp is {other_as}, not \
             the pinned issuer https://as.example"
        )),
        "{err}"
    );
}

#[tokio::test]
async fn with_discovery_failed_the_secret_is_not_posted_to_the_mcp_servers_own_token_endpoint() {
    let to_rs = Recorder::default();
    let rs = rogue::resource_server(None, to_rs.clone()).await;
    let err = refused_by(OAuthConfig::client_credentials("service", SECRET), &rs).await;
    assert_eq!(to_rs.carrying(SECRET), 0, "{:#?}", to_rs.lines());
    assert!(!to_rs.lines().contains(&"POST /token".to_owned()));
    assert!(
        err.contains(&format!(
            "nothing was sent: no authorization server metadata was found for {rs}/mcp; its \
             client secret is not sent to the MCP server's own /token unless \
             OAuthConfig::issuer pins that origin"
        )),
        "{err}"
    );

    // Pinned to the MCP server's own origin, the fallback is the user's choice.
    let pinned = OAuthConfig::client_credentials("service", SECRET).issuer(&rs);
    refused_by(pinned, &rs).await;
    assert_eq!(to_rs.carrying(SECRET), 1, "{:#?}", to_rs.requests());
}
