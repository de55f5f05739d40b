//! One retry policy for every loop that tries again: model calls over HTTP and the MCP
//! client's reconnections.

use std::time::Duration;

/// When to try a request again and how long to wait: up to `max_retries` more times, as the
/// server's `Retry-After` says when it sent one, or else after an exponential backoff with
/// equal jitter (a random wait between half and all of `initial_backoff` doubled at each retry),
/// never longer than `max_delay`.
///
/// The jitter keeps clients that failed together (a provider's outage, a restarted MCP server)
/// from all coming back at the same instant; half of each wait stays fixed, so a retry never
/// comes at once.
///
/// ```
/// use std::time::Duration;
/// use toolkit::models::RetryPolicy;
///
/// let policy = RetryPolicy::default();
/// let first = policy.delay(0, None);
/// assert!(first >= Duration::from_millis(250) && first <= Duration::from_millis(500));
/// let third = policy.delay(2, None);
/// assert!(third >= Duration::from_secs(1) && third <= Duration::from_secs(2));
/// assert_eq!(policy.delay(0, Some(Duration::from_secs(3))), Duration::from_secs(3));
/// assert_eq!(policy.delay(0, Some(Duration::from_secs(600))), policy.max_delay);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// How many times to try again after the first attempt (0: never).
    pub max_retries: u32,
    /// The longest wait before the first retry; each later one may wait twice as long.
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

    /// The wait before retry number `retry` (from 0), given the server's `Retry-After`: that,
    /// when there is one, else a random wait between half and all of the backoff; either at
    /// most `max_delay`.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let backoff = self
            .initial_backoff
            .saturating_mul(2u32.saturating_pow(retry.min(16)))
            .min(self.max_delay);
        let fixed = backoff / 2;
        fixed + up_to(backoff - fixed)
    }
}

/// A random duration from zero to `most`; `most` itself if the system gives no randomness
/// (the wait is then plain exponential backoff, as before jitter).
fn up_to(most: Duration) -> Duration {
    let Ok(random) = getrandom::u64() else {
        return most;
    };
    let nanos = u64::try_from(most.as_nanos()).unwrap_or(u64::MAX);
    Duration::from_nanos(nanos.checked_add(1).map_or(random, |span| random % span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_waits_stay_within_half_and_all_of_the_doubled_backoff_and_are_not_all_equal() {
        let policy = RetryPolicy {
            max_retries: 10,
            initial_backoff: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        for (retry, most) in [
            (0, 100),
            (1, 200),
            (2, 400),
            (3, 800),
            (4, 1000),
            (20, 1000),
        ] {
            let most = Duration::from_millis(most);
            let waits: Vec<Duration> = (0..64).map(|_| policy.delay(retry, None)).collect();
            for wait in &waits {
                assert!(
                    *wait >= most / 2 && *wait <= most,
                    "retry {retry}: {wait:?} outside {:?}..={most:?}",
                    most / 2
                );
            }
            assert!(
                waits.iter().any(|wait| *wait != waits[0]),
                "retry {retry}: 64 equal waits {:?}",
                waits[0]
            );
        }
    }

    #[test]
    fn retry_after_wins_over_the_backoff_up_to_the_longest_wait() {
        let policy = RetryPolicy::default();
        for retry in [0, 1, 5] {
            assert_eq!(
                policy.delay(retry, Some(Duration::from_millis(1234))),
                Duration::from_millis(1234)
            );
            assert_eq!(policy.delay(retry, Some(Duration::ZERO)), Duration::ZERO);
            assert_eq!(
                policy.delay(retry, Some(Duration::from_secs(3600))),
                Duration::from_secs(30)
            );
        }
    }

    #[test]
    fn a_zero_backoff_waits_nothing() {
        let policy = RetryPolicy {
            initial_backoff: Duration::ZERO,
            ..RetryPolicy::default()
        };
        assert_eq!(policy.delay(3, None), Duration::ZERO);
    }
}
