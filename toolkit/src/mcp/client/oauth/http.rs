//! rmcp's Streamable HTTP client (reqwest) with OAuth: each request carries the current
//! token; a 401 gets a refreshed token or a new authorization, a 403 `insufficient_scope` a
//! step-up, and the request is sent again.
//!
//! rmcp's own `AuthClient` adds the token and refreshes once on a 401, but hands every other
//! 401 and 403 back to the caller: authorizing, and stepping up, are left to the application.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::flow::Authorizer;

type HttpError = StreamableHttpError<reqwest::Error>;

/// A reqwest client that authorizes its requests through an [`Authorizer`].
#[derive(Clone)]
pub(in crate::mcp::client) struct OAuthHttp {
    http: reqwest::Client,
    auth: Arc<Authorizer>,
}

impl OAuthHttp {
    pub(in crate::mcp::client) fn new(auth: Arc<Authorizer>) -> Self {
        // No redirect at all: a token must not follow one to another origin, and rmcp's own
        // same-origin policy is private to it. No idle pool, as rmcp (Delayed ACK stalls).
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(0)
            .build()
            .unwrap_or_default();
        OAuthHttp { http, auth }
    }

    /// Runs `send` with the token, answering the server's 401 once and its 403
    /// `insufficient_scope` up to the configured number of times.
    async fn authorized<T, F, Fut>(&self, send: F) -> Result<T, HttpError>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut token = self.auth.token().await?;
        let (mut reauthorized, mut step_ups) = (false, 0);
        loop {
            match send(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(challenge)) if !reauthorized => {
                    reauthorized = true;
                    let fresh = self
                        .auth
                        .unauthorized(token.as_deref(), &challenge.www_authenticate_header)
                        .await?;
                    token = Some(fresh);
                }
                Err(StreamableHttpError::InsufficientScope(challenge))
                    if step_ups < self.auth.max_step_ups() =>
                {
                    step_ups += 1;
                    let fresh = self
                        .auth
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

impl StreamableHttpClient for OAuthHttp {
    type Error = reqwest::Error;

    // The transport sends through the bounded methods below; these keep rmcp's defaults.
    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let limits = StreamableHttpResponseLimits::default();
        (self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        ))
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.authorized(|token| {
            self.http.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        self.authorized(|token| {
            self.http.delete_session(
                uri.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, HttpError> {
        let limit = StreamableHttpResponseLimits::default().max_sse_event_size;
        (self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            limit,
        ))
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, HttpError> {
        self.authorized(|token| {
            self.http.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}
