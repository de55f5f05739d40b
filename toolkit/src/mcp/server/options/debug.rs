//! `HttpOptions`'s `Debug`, by hand: every option is shown but the bearer token, which is `***`.

use super::HttpOptions;

/// Shows the bearer token as `***`, as a `Debug` print ends up in logs.
impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Destructured so that a new field cannot be left out of `Debug` unnoticed.
        let HttpOptions {
            path,
            bearer_token,
            bearer_caller,
            token_verifier,
            protected_resource,
            max_body_bytes,
            allowed_hosts,
            allowed_origins,
            max_sessions,
            max_sessions_per_client,
            unused_session_timeout,
            session_idle_timeout,
            stateless,
            max_concurrent_calls,
            read_timeout,
            write_timeout,
            max_connections,
            max_connections_per_client,
        } = self;
        f.debug_struct("HttpOptions")
            .field("path", path)
            .field(
                "bearer_token",
                &bearer_token.as_ref().map(|_| format_args!("***")),
            )
            .field("bearer_caller", bearer_caller)
            .field(
                "token_verifier",
                &token_verifier.as_ref().map(|_| format_args!("..")),
            )
            .field("protected_resource", protected_resource)
            .field("max_body_bytes", max_body_bytes)
            .field("allowed_hosts", allowed_hosts)
            .field("allowed_origins", allowed_origins)
            .field("max_sessions", max_sessions)
            .field("max_sessions_per_client", max_sessions_per_client)
            .field("unused_session_timeout", unused_session_timeout)
            .field("session_idle_timeout", session_idle_timeout)
            .field("stateless", stateless)
            .field("max_concurrent_calls", max_concurrent_calls)
            .field("read_timeout", read_timeout)
            .field("write_timeout", write_timeout)
            .field("max_connections", max_connections)
            .field("max_connections_per_client", max_connections_per_client)
            .finish()
    }
}
