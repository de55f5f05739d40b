//! The suite's `auth/*` scenarios. A stub: the OAuth client (branch i27-client) replaces this
//! file with the real flows.

/// Runs one `auth/*` scenario against `server_url`.
pub async fn run(
    server_url: &str,
    scenario: &str,
    context: Option<serde_json::Value>,
) -> Result<(), Box<dyn std::error::Error>> {
    let _ = (server_url, context);
    Err(format!("{scenario}: the OAuth client is not built into this example yet").into())
}
