//! The protocol version: what the client offers, and which answers it takes.

use rmcp::model::ProtocolVersion;
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient};

use super::transport::McpTransport;
use crate::mcp::McpError;

/// The version `initialize` offers: the newest that servers (the conformance suite's
/// included) speak. rmcp would offer its newest, 2026-07-28, which most do not know yet, and
/// under which it refuses a server's requests that come outside a call.
pub(super) const OFFERED: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// Checks the version the server answered `initialize` with: one of the revisions with that
/// handshake this client knows (2024-11-05 to 2025-11-25); any other one, it cannot speak.
pub(super) fn spoken_version<H: ClientHandler>(
    service: &RunningService<RoleClient, H>,
    transport: &McpTransport,
) -> Result<(), McpError> {
    let Some(version) = service
        .peer_info()
        .map(|info| info.protocol_version.clone())
    else {
        return Ok(());
    };
    let known = ProtocolVersion::known_up_to(&OFFERED);
    if known.contains(&version) {
        return Ok(());
    }
    Err(McpError::Connect {
        server: transport.to_string(),
        message: format!(
            "the server speaks MCP {version}, which this client does not (it speaks {})",
            known
                .iter()
                .map(ProtocolVersion::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}
