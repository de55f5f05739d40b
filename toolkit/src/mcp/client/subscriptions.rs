//! Notifications outside a call on a 2026-07-28 session. That revision has no stream the
//! server speaks on unasked: a client asks for what it wants to hear with
//! `subscriptions/listen`. The session asks for `tools/list_changed` when the server says its
//! tool list changes, so the catalog refreshes as it does on a 2025-era session.

use std::sync::Arc;

use rmcp::model::{ServerCapabilities, ServerNotification, SubscriptionFilter};
use rmcp::{Peer, RoleClient};
use tokio::sync::watch;

/// Whether a session speaking `version` with a server offering `capabilities` needs a
/// subscription to hear of tool list changes: a 2026-07-28 one whose server announces them.
pub(super) fn needed(
    version: &rmcp::model::ProtocolVersion,
    capabilities: &ServerCapabilities,
) -> bool {
    let announces =
        (capabilities.tools.as_ref()).is_some_and(|tools| tools.list_changed == Some(true));
    announces && !version.has_initialize()
}

/// Listens for `tools/list_changed` through `peer` for as long as its connection lasts,
/// telling `changed` of each.
pub(super) fn follow_tool_list(peer: Peer<RoleClient>, changed: Arc<watch::Sender<()>>) {
    tokio::spawn(async move {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(err) => {
                tracing::warn!(%err, "could not subscribe to the MCP server's tool list changes");
                return;
            }
        };
        // Ends with the connection: the stream closes, or fails.
        while let Ok(Some(notification)) = subscription.next().await {
            if let ServerNotification::ToolListChangedNotification(_) = notification {
                changed.send_replace(());
            }
        }
    });
}
