//! When and how long to wait before trying a model call again.

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

/// When to try a request again: after 429, 5xx, a broken connection or a timeout, up to
/// `max_retries` more times, waiting as the server's `Retry-After` says or else with
/// exponential backoff, never longer than `max_delay`.
///
/// ```
/// use std::time::Duration;
/// use toolkit::models::RetryPolicy;
///
/// let policy = RetryPolicy::default();
/// assert_eq!(policy.delay(0, None), Duration::from_millis(500));
/// assert_eq!(policy.delay(2, None), Duration::from_secs(2));
/// assert_eq!(policy.delay(0, Some(Duration::from_secs(3))), Duration::from_secs(3));
/// assert_eq!(policy.delay(0, Some(Duration::from_secs(600))), policy.max_delay);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// How many times to try again after the first attempt (0: never).
    pub max_retries: u32,
    /// The wait before the first retry; each later one waits twice as long.
    pub initial_backoff: Duration,
    /// The longest wait, for backoff and `Retry-After` alike.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// The wait before retry number `retry` (from 0), given the server's `Retry-After`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let backoff = self
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(retry.min(16)));
        retry_after.unwrap_or(backoff).min(self.max_delay)
    }
}

/// `Retry-After` in seconds (the form model APIs send; an HTTP date is ignored), at most a
/// day, so that any number converts (`Duration::from_secs_f64` panics past `u64::MAX`
/// seconds); a value longer than any sensible number is ignored unread.
pub(super) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    const LONGEST_VALUE: usize = 32;
    const MOST_SECONDS: f64 = 86_400.0;
    let value = headers.get(RETRY_AFTER)?;
    if value.len() > LONGEST_VALUE {
        return None;
    }
    value
        .to_str()
        .ok()?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(MOST_SECONDS)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn after(value: &str) -> Option<Duration> {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_str(value).unwrap());
        retry_after(&headers)
    }

    #[test]
    fn any_retry_after_converts_without_a_panic_and_huge_ones_are_clamped_to_a_day() {
        let day = Some(Duration::from_secs(86_400));
        assert_eq!(after("1e20"), day);
        assert_eq!(after("18446744073709551616"), day);
        assert_eq!(after("2.5"), Some(Duration::from_millis(2500)));
        for ignored in [
            "inf",
            "NaN",
            "-1",
            "-0.5",
            "soon",
            "Wed, 21 Oct 2015 07:28:00 GMT",
        ] {
            assert_eq!(after(ignored), None, "{ignored}");
        }
        assert_eq!(after(&"9".repeat(10 * 1024)), None);
    }
}
