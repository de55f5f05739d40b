//! The server's word on when to try a model call again (`Retry-After`); the policy that reads
//! it is [`RetryPolicy`](crate::models::RetryPolicy).

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

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
