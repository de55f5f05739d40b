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

/// What a client must never show: its key and its base URL's `user:password@`, each with the
/// text that replaces it. Servers echo keys in error bodies, and reqwest's messages carry the
/// URL, so every error and log line a client makes goes through [`Secrets::redact`].
#[derive(Clone, Default)]
pub(crate) struct Secrets {
    /// Longest first, so that a secret containing another is replaced whole.
    words: Vec<(String, &'static str)>,
}

impl Secrets {
    /// The secrets of a client with `key` at `url`.
    pub(crate) fn new(key: Option<&ApiKey>, url: &str) -> Self {
        let mut words = Vec::new();
        if let Some(key) = key.filter(|key| !key.0.is_empty()) {
            words.push((key.0.clone(), "***"));
        }
        if let Some((scheme_end, at)) = crate::url_credentials::userinfo_span(url) {
            // The whole `user:password@`, as written, then the password alone wherever a
            // message quotes it, as written and as reqwest's `Url` prints it.
            words.push((url[scheme_end..=at].to_owned(), "***@"));
            let info = &url[scheme_end..at];
            if let Some((_, password)) = info.split_once(':') {
                words.push((password.to_owned(), "***"));
            }
            if let Ok(parsed) = reqwest::Url::parse(url) {
                let user = parsed.username();
                match parsed.password() {
                    Some(password) => words.push((format!("{user}:{password}@"), "***@")),
                    None => words.push((format!("{user}@"), "***@")),
                }
                if let Some(password) = parsed.password() {
                    words.push((password.to_owned(), "***"));
                }
            }
        }
        words.retain(|(word, _)| !word.is_empty() && word != "@");
        words.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        words.dedup_by(|a, b| a.0 == b.0);
        Secrets { words }
    }

    /// `text` with every secret replaced by `***`.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (word, replacement) in &self.words {
            if text.contains(word.as_str()) {
                text = text.replace(word.as_str(), replacement);
            }
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_and_the_urls_credentials_are_redacted_wherever_they_appear() {
        let secrets = Secrets::new(
            Some(&ApiKey::new("sk-planted")),
            "http://alice:pa%20ss-word@127.0.0.1:9/v1",
        );
        assert_eq!(
            secrets.redact(
                "error for url (http://alice:pa%20ss-word@127.0.0.1:9/v1/chat): key sk-planted, \
                 password pa%20ss-word"
            ),
            "error for url (http://***@127.0.0.1:9/v1/chat): key ***, password ***"
        );
    }

    #[test]
    fn a_url_without_credentials_redacts_nothing_but_the_key() {
        let secrets = Secrets::new(None, "https://api.example.com/v1?q=a@b");
        assert_eq!(
            secrets.redact("https://api.example.com/v1?q=a@b"),
            "https://api.example.com/v1?q=a@b"
        );
    }
}
