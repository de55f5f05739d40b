//! How long a client may keep the server's lists, and who may share them (MCP 2026-07-28,
//! SEP-2549: `ttlMs` and `cacheScope` on `tools/list`, `resources/list`,
//! `resources/templates/list` and `prompts/list`). rmcp leaves them off for older clients.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CacheScope, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult,
};
use rmcp::service::RequestContext;

use super::auth::caller_of;
use super::without_handshake;

/// The freshness a server gives its lists ([`McpServer::with_list_ttl`](super::McpServer::with_list_ttl)).
#[derive(Clone, Copy)]
pub(super) struct ListCaching {
    pub(super) ttl: Duration,
}

/// The hints of one answer; none for a client older than MCP 2026-07-28, whose lists never
/// had them.
#[derive(Clone, Copy)]
pub(super) struct CacheHints(Option<(u64, CacheScope)>);

impl ListCaching {
    /// The hints for the answer to the request of `context`: `private` when it carried a
    /// verified caller (what it may see can be its own, and it came with a credential),
    /// `public` otherwise, since every client then gets the same lists.
    pub(super) fn of(self, context: &RequestContext<RoleServer>) -> CacheHints {
        if !without_handshake(context) {
            return CacheHints(None);
        }
        let scope = match caller_of(context) {
            Some(_) => CacheScope::Private,
            None => CacheScope::Public,
        };
        let ttl_ms = u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX);
        CacheHints(Some((ttl_ms, scope)))
    }
}

impl CacheHints {
    /// `list` with these hints.
    pub(super) fn apply<L: Hinted>(self, list: L) -> L {
        match self.0 {
            Some((ttl_ms, scope)) => list.hinted(ttl_ms, scope),
            None => list,
        }
    }
}

/// A list result that carries caching hints; rmcp gives each its own builder methods.
pub(super) trait Hinted: Sized {
    fn hinted(self, ttl_ms: u64, scope: CacheScope) -> Self;
}

macro_rules! hinted {
    ($($list:ty),*) => {$(
        impl Hinted for $list {
            fn hinted(self, ttl_ms: u64, scope: CacheScope) -> Self {
                self.with_ttl_ms(ttl_ms).with_cache_scope(scope)
            }
        }
    )*};
}

hinted!(
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListPromptsResult
);
