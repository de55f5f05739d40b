//! The protocol version: how a session starts, and which versions the client speaks.

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientLifecycleMode, RunningService};
use rmcp::{ClientHandler, RoleClient};

use super::transport::McpTransport;
use crate::mcp::McpError;

/// The version `initialize` offers a server that does not know `server/discover`: the newest
/// revision with that handshake.
pub(super) const LEGACY: ProtocolVersion = ProtocolVersion::LATEST_WITH_INITIALIZE;

/// How a Streamable HTTP or stdio session starts: `server/discover` asking for 2026-07-28, and
/// `initialize` offering [`LEGACY`] when the server answers it as an older server does (with
/// an error), on the same connection. rmcp does both.
pub(super) fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::LATEST],
        legacy_version: Some(LEGACY),
    }
}

/// Checks the version the session opened with: one this client knows (2024-11-05 to
/// 2026-07-28); any other one, it cannot speak.
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
    let known = ProtocolVersion::known_up_to(&ProtocolVersion::LATEST);
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
