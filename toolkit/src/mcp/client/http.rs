//! The HTTP client of rmcp's Streamable HTTP transport: rmcp's reqwest client, with requests
//! sent through the OAuth authorization when there is one, and every event of a response
//! stream screened as a page of tools ([`screen`]) before rmcp parses it, as the stdio and SSE
//! readers screen their lines.
//!
//! rmcp parses a message through serde's buffered enums, at 20 to 35 times its size on the
//! wire; the screen refuses a page over the listing's bounds, and cuts out a tool whose schema
//! is over its bound, while the page is still text. An answer sent as one JSON body (not an
//! event stream) is parsed by rmcp's client itself, which has no hook for the raw body: there
//! only `max_message_bytes` bounds it before the parse, and the listing's bounds are checked
//! after it.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use super::Authorizer;
use super::listing::{ListingLimits, Screened, screen};

type HttpError = StreamableHttpError<reqwest::Error>;

/// How many redirects one request follows at most, as rmcp's own client.
const MAX_REDIRECTS: usize = 10;

/// The client rmcp's transport sends through.
#[derive(Clone)]
pub(super) struct McpHttp {
    http: reqwest::Client,
    /// The server's authorization, when it asks for OAuth.
    auth: Option<Arc<Authorizer>>,
    listing: ListingLimits,
}

impl McpHttp {
    pub(super) fn new(auth: Option<&Arc<Authorizer>>, listing: ListingLimits) -> Self {
        let http = match auth {
            None => same_origin_http_client(),
            #[cfg(feature = "oauth")]
            Some(_) => super::oauth::authorized_http_client(),
            #[cfg(not(feature = "oauth"))]
            Some(auth) => match **auth {},
        };
        McpHttp {
            http,
            auth: auth.cloned(),
            listing,
        }
    }

    fn screened(&self, stream: BoxedSseResponse) -> BoxedSseResponse {
        let listing = self.listing;
        stream
            .map(move |event| {
                event.map(|mut event| {
                    let screened = event
                        .data
                        .as_deref()
                        .map(|data| screen(data.as_bytes(), &listing));
                    if let Some(Screened::Trimmed(text) | Screened::Refused(text)) = screened
                        && let Ok(text) = String::from_utf8(text)
                    {
                        event.data = Some(text);
                    }
                    event
                })
            })
            .boxed()
    }

    fn answer(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Sse(stream, session) => {
                StreamableHttpPostResponse::Sse(self.screened(stream), session)
            }
            other => other,
        }
    }
}

/// The client rmcp would use on its own (its builder is private): no idle pool, since a
/// reused connection whose last body was not read whole stalls on delayed ACKs, and redirects
/// followed only to the same origin and only as 307 or 308, which keep the method and body:
/// another origin would be handed the session id and the caller's headers, and a 301, 302 or
/// 303 would turn a message's POST into a GET without it.
fn same_origin_http_client() -> reqwest::Client {
    let same_origin = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(same_origin)
        .build()
        .unwrap_or_default()
}

// Each request goes straight to reqwest's client when the server asks for no OAuth (nothing is
// cloned), and through the authorization otherwise, which may send it again.
impl StreamableHttpClient for McpHttp {
    type Error = reqwest::Error;

    // The transport sends through the bounded methods below; these keep rmcp's defaults.
    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let limits = StreamableHttpResponseLimits::default();
        (self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            headers,
            limits,
        ))
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let http = &self.http;
        let answer = match &self.auth {
            None => {
                let post = http.post_message_with_response_limits(
                    uri,
                    message,
                    session_id,
                    auth_header,
                    custom_headers,
                    limits,
                );
                post.await?
            }
            Some(auth) => {
                let post = |token| {
                    http.post_message_with_response_limits(
                        uri.clone(),
                        message.clone(),
                        session_id.clone(),
                        token,
                        custom_headers.clone(),
                        limits,
                    )
                };
                authorized(auth, post).await?
            }
        };
        Ok(self.answer(answer))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let delete = |token| {
            self.http.delete_session(
                uri.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        };
        match &self.auth {
            None => delete(auth_header).await,
            Some(auth) => authorized(auth, delete).await,
        }
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, HttpError> {
        let limit = StreamableHttpResponseLimits::default().max_sse_event_size;
        (self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            headers,
            limit,
        ))
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, HttpError> {
        let open = |token| {
            self.http.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        };
        let stream = match &self.auth {
            None => open(auth_header).await?,
            Some(auth) => authorized(auth, open).await?,
        };
        Ok(self.screened(stream))
    }
}

/// `send` through `auth` (see `Authorizer::authorized`).
#[cfg(feature = "oauth")]
async fn authorized<T, F, Fut>(auth: &Authorizer, send: F) -> Result<T, HttpError>
where
    F: Fn(Option<String>) -> Fut,
    Fut: std::future::Future<Output = Result<T, HttpError>>,
{
    auth.authorized(send).await
}

/// Without the `oauth` feature there is no authorization to send through.
#[cfg(not(feature = "oauth"))]
async fn authorized<T, F>(auth: &Authorizer, _send: F) -> Result<T, HttpError> {
    match *auth {}
}
