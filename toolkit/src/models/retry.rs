//! When and how long to wait before trying a model call again.

use std::time::Duration;

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
