//! rmcp's Streamable HTTP client with every event of a response stream screened as a page of
//! tools ([`screen`]) before rmcp parses it, as the stdio and SSE readers screen their lines.
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

use super::listing::{ListingLimits, Screened, screen};

/// How many redirects one request follows at most, as rmcp's own client.
const MAX_REDIRECTS: usize = 10;

/// An HTTP client for rmcp's Streamable HTTP transport whose response streams are screened
/// against `listing`.
#[derive(Clone)]
pub(super) struct ScreenedHttp<C> {
    inner: C,
    listing: ListingLimits,
}

impl<C> ScreenedHttp<C> {
    pub(super) fn new(inner: C, listing: ListingLimits) -> Self {
        ScreenedHttp { inner, listing }
    }

    fn stream(&self, stream: BoxedSseResponse) -> BoxedSseResponse {
        let listing = self.listing;
        stream
            .map(move |event| {
                event.map(|mut event| {
                    let replacement = match event
                        .data
                        .as_deref()
                        .map(|data| screen(data.as_bytes(), &listing))
                    {
                        Some(Screened::Trimmed(text) | Screened::Refused(text)) => {
                            String::from_utf8(text).ok()
                        }
                        Some(Screened::Pass) | None => None,
                    };
                    if replacement.is_some() {
                        event.data = replacement;
                    }
                    event
                })
            })
            .boxed()
    }

    fn answer(&self, response: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
        match response {
            StreamableHttpPostResponse::Sse(stream, session) => {
                StreamableHttpPostResponse::Sse(self.stream(stream), session)
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
pub(super) fn default_http_client() -> reqwest::Client {
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

type Answer<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for ScreenedHttp<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Answer<C::Error> {
        let sent = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers);
        Ok(self.answer(sent.await?))
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Answer<C::Error> {
        let sent = self.inner.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        );
        Ok(self.answer(sent.await?))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<C::Error>> {
        (self
            .inner
            .delete_session(uri, session_id, auth_header, custom_headers))
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, StreamableHttpError<C::Error>> {
        let opened =
            self.inner
                .get_stream(uri, session_id, last_event_id, auth_header, custom_headers);
        Ok(self.stream(opened.await?))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxedSseResponse, StreamableHttpError<C::Error>> {
        let opened = self.inner.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        );
        Ok(self.stream(opened.await?))
    }
}
