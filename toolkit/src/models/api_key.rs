//! An API key that never shows.

use std::fmt;

/// An API key; `Debug` and `Display` print `***`, so it never reaches a log or an error.
///
/// ```
/// use toolkit::models::ApiKey;
///
/// let key = ApiKey::new("sk-secret");
/// assert_eq!(format!("{key:?} {key}"), "*** ***");
/// ```
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps `key`.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}
