//! The MCP conformance suite's client: the server URL is the last argument, the scenario is in
//! `MCP_CONFORMANCE_SCENARIO`, its context (JSON) in `MCP_CONFORMANCE_CONTEXT`.

mod auth;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server_url = std::env::args().next_back().ok_or("no server URL")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    if scenario.starts_with("auth/") {
        return auth::run(&server_url, &scenario, context).await;
    }
    Err(format!("scenario {scenario} is not an auth scenario").into())
}
