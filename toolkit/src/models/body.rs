//! Reading a response body within bounds: never more than `max_response_bytes`, and never a
//! pause longer than the idle timeout between two chunks.
//!
//! reqwest's own `timeout` bounds a whole request, which a server trickling a byte at a time
//! stays under, and its `read_timeout` also runs while a model thinks before its headers, so
//! both bounds are kept here, around each chunk, once the headers have come.

use std::time::Duration;

use super::ModelError;

/// The bounds on reading one response body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLimits {
    /// The most bytes a body (or a whole stream) may have.
    pub(crate) max_bytes: usize,
    /// The longest pause between two chunks.
    pub(crate) idle: Duration,
    /// The request's timeout, named when reqwest reports it.
    pub(crate) timeout: Duration,
}

/// How much of an error body is read: enough for the excerpt shown (500 characters of up to
/// four bytes each), never a whole page.
const ERROR_BODY_BYTES: usize = 8 * 1024;

/// Passes each chunk of `response`'s body to `each`, refusing a body larger than
/// `limits.max_bytes` (at once when its `Content-Length` says so) and a pause longer than
/// `limits.idle`.
pub(crate) async fn for_each_chunk(
    mut response: reqwest::Response,
    limits: BodyLimits,
    mut each: impl FnMut(&[u8]) -> Result<(), ModelError>,
) -> Result<(), ModelError> {
    let too_large = ModelError::TooLarge {
        limit: limits.max_bytes,
    };
    if response
        .content_length()
        .is_some_and(|length| length > limits.max_bytes as u64)
    {
        return Err(too_large);
    }
    let mut read = 0usize;
    while let Some(chunk) = next_chunk(&mut response, limits).await? {
        read = read.saturating_add(chunk.len());
        if read > limits.max_bytes {
            return Err(too_large);
        }
        each(&chunk[..])?;
    }
    Ok(())
}

/// The whole body, within `limits`.
pub(crate) async fn whole(
    response: reqwest::Response,
    limits: BodyLimits,
) -> Result<Vec<u8>, ModelError> {
    let mut body = Vec::with_capacity(
        response
            .content_length()
            .map_or(0, |length| length.min(limits.max_bytes as u64) as usize),
    );
    for_each_chunk(response, limits, |chunk| {
        body.extend_from_slice(chunk);
        Ok(())
    })
    .await?;
    Ok(body)
}

/// The start of an error response's body, as text: what arrives within the limits, up to
/// [`ERROR_BODY_BYTES`]; the rest is never read.
pub(crate) async fn error_text(mut response: reqwest::Response, limits: BodyLimits) -> String {
    let mut body = Vec::new();
    while body.len() < ERROR_BODY_BYTES {
        match next_chunk(&mut response, limits).await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..]),
            Ok(None) | Err(_) => break,
        }
    }
    body.truncate(ERROR_BODY_BYTES);
    String::from_utf8_lossy(&body).into_owned()
}

/// The next chunk, or the reason there is none: a pause past the idle timeout, the request's
/// timeout, or a body cut off.
async fn next_chunk(
    response: &mut reqwest::Response,
    limits: BodyLimits,
) -> Result<Option<impl std::ops::Deref<Target = [u8]> + use<>>, ModelError> {
    match toolkit_runtime::within(limits.idle, response.chunk()).await {
        None => Err(ModelError::Stalled(limits.idle)),
        Some(Ok(chunk)) => Ok(chunk),
        Some(Err(e)) if e.is_timeout() => Err(ModelError::Timeout(limits.timeout)),
        Some(Err(e)) => Err(ModelError::Truncated(source_chain(&e))),
    }
}

/// The error and its causes, as reqwest's own message names only the outermost.
pub(crate) fn source_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
