//! The `auth/*` scenarios of the MCP conformance suite's client mode, through `McpClient`'s
//! public OAuth API, as the suite's reference client does them: connect with OAuth (a
//! headless redirect handler follows the authorization URL with a GET and reads the code
//! from the redirect), list the tools, call each.

use serde_json::{Value, json};
use toolkit::mcp::{JwtSigningAlgorithm, McpClient, McpTransport, OAuthCallback, OAuthConfig};

/// The suite's client metadata document URL and redirect URI (its reference client's).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI: &str = "http://localhost:3000/callback";

type Error = Box<dyn std::error::Error>;

/// Runs `scenario` (an `auth/*` name) against the suite's server at `server_url`;
/// `context` is the suite's `MCP_CONFORMANCE_CONTEXT`.
pub async fn run(server_url: &str, scenario: &str, context: Option<Value>) -> Result<(), Error> {
    let context = context.unwrap_or_else(|| json!({}));
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_owned);
    let mut oauth = match scenario {
        "auth/client-credentials-basic" => OAuthConfig::client_credentials(
            text("client_id").ok_or("the context has no client_id")?,
            text("client_secret").ok_or("the context has no client_secret")?,
        ),
        "auth/client-credentials-jwt" => OAuthConfig::client_credentials_jwt(
            text("client_id").ok_or("the context has no client_id")?,
            text("private_key_pem").ok_or("the context has no private_key_pem")?,
            algorithm(text("signing_algorithm").as_deref().unwrap_or("ES256"))?,
        ),
        _ => {
            let mut oauth = OAuthConfig::authorization_code(REDIRECT_URI, follow_redirect)
                .client_name("conformance-client")
                .client_metadata_url(CLIENT_METADATA_URL);
            if let Some(client_id) = text("client_id") {
                oauth = oauth.client_id(client_id);
            }
            if let Some(secret) = text("client_secret") {
                oauth = oauth.client_secret(secret);
            }
            oauth
        }
    };
    // A client secret or key goes to another origin than the MCP server's only when the issuer
    // is pinned. The suite runs its authorization server on a port of its own and tells the
    // client only the credentials, so the harness pins the issuer the suite's metadata names,
    // as a user pins the one they registered with.
    let sends_secret =
        scenario.starts_with("auth/client-credentials") || context.get("client_secret").is_some();
    if sends_secret && let Some(issuer) = issuer_named_by(server_url).await {
        oauth = oauth.issuer(issuer);
    }
    let client = McpClient::builder(McpTransport::http(server_url))
        .oauth(oauth)
        .connect()
        .await?;
    for tool in client.tools() {
        if let Err(err) = tool.acall(json!({})).await {
            eprintln!("{}: {err}", tool.name());
        }
    }
    Ok(())
}

/// The first authorization server the protected resource metadata of `server_url` names
/// (RFC 9728: the path-suffixed well-known URL, then the root one); `None` without one.
async fn issuer_named_by(server_url: &str) -> Option<String> {
    let url = reqwest::Url::parse(server_url).ok()?;
    let path = url.path().trim_end_matches('/');
    let origin = url.origin().ascii_serialization();
    for candidate in [
        format!("{origin}/.well-known/oauth-protected-resource{path}"),
        format!("{origin}/.well-known/oauth-protected-resource"),
    ] {
        let Ok(answer) = reqwest::get(&candidate).await else {
            continue;
        };
        let Ok(body) = answer.bytes().await else {
            continue;
        };
        let Ok(document) = serde_json::from_slice::<Value>(&body) else {
            continue;
        };
        if let Some(issuer) = document["authorization_servers"][0].as_str() {
            return Some(issuer.to_owned());
        }
    }
    None
}

/// The headless redirect handler: the suite's authorization server answers the authorization
/// URL at once with a redirect to the callback, code and state in its query.
async fn follow_redirect(authorization_url: String) -> Result<OAuthCallback, String> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| err.to_string())?;
    let answer = http
        .get(&authorization_url)
        .send()
        .await
        .map_err(|err| err.to_string())?;
    let location = answer
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .ok_or_else(|| {
            format!(
                "the authorization endpoint answered {} without a redirect",
                answer.status()
            )
        })?;
    OAuthCallback::from_url(location)
}

fn algorithm(name: &str) -> Result<JwtSigningAlgorithm, Error> {
    Ok(match name {
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        other => return Err(format!("unknown signing algorithm {other}").into()),
    })
}
