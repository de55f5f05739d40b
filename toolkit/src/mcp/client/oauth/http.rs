//! A Streamable HTTP request sent through the authorization: each try carries the current
//! token; a 401 gets a refreshed token or a new authorization, a 403 `insufficient_scope` a
//! step-up, and the request is sent again.
//!
//! rmcp's own `AuthClient` adds the token and refreshes once on a 401, but hands every other
//! 401 and 403 back to the caller: authorizing, and stepping up, are left to the application.

use std::future::Future;

use rmcp::transport::streamable_http_client::StreamableHttpError;

use super::flow::Authorizer;

type HttpError = StreamableHttpError<reqwest::Error>;

/// The client rmcp's transport sends through when the server asks for OAuth: no redirect at
/// all, since a token must not follow one to another origin; no idle pool, as rmcp's own
/// (reused connections stall on delayed ACKs).
pub(in crate::mcp::client) fn authorized_http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_max_idle_per_host(0)
        .build()
        .unwrap_or_default()
}

impl Authorizer {
    /// Runs `send` with the token, answering the server's 401 once and its 403
    /// `insufficient_scope` up to the configured number of times.
    pub(in crate::mcp::client) async fn authorized<T, F, Fut>(
        &self,
        send: F,
    ) -> Result<T, HttpError>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut token = self.token().await?;
        let (mut reauthorized, mut step_ups) = (false, 0);
        loop {
            match send(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(challenge)) if !reauthorized => {
                    reauthorized = true;
                    let fresh = self
                        .unauthorized(token.as_deref(), &challenge.www_authenticate_header)
                        .await?;
                    token = Some(fresh);
                }
                Err(StreamableHttpError::InsufficientScope(challenge))
                    if step_ups < self.max_step_ups() =>
                {
                    step_ups += 1;
                    let fresh = self
                        .step_up(
                            token.as_deref(),
                            &challenge.www_authenticate_header,
                            challenge.required_scope.as_deref(),
                        )
                        .await?;
                    token = Some(fresh);
                }
                answer => return answer,
            }
        }
    }
}
