//! Credentials removed from `gh`'s stderr before it becomes an error a model reads: GitHub token
//! shapes, `Authorization`, `Bearer` and `token` values, and the token variables' own values.
//! The rest of the text stays, so the model still learns why `gh` failed.

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// What a credential is replaced with.
const REDACTED: &str = "[redacted]";

/// The variables `gh` reads its tokens from.
const TOKEN_VARIABLES: [&str; 4] = [
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
];

/// Shorter variable values are not searched for: no GitHub token is that short, and replacing
/// every `abc` would garble the message.
const MIN_SECRET_BYTES: usize = 8;

/// Personal, OAuth, user-to-server, server-to-server and refresh tokens, and fine-grained PATs.
static GITHUB_TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]+").unwrap());

/// An `Authorization` header or field: everything after it on the line is the credential.
static AUTHORIZATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?i)(authorization["']?\s*[:=]\s*)[^\r\n]+"#).unwrap());

/// `Bearer X`, `token X`, `token: X`, `access_token=X`: the word after the keyword.
static KEYWORD_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(bearer|[a-z_]*token)(\s*[:=]\s*|\s+)([A-Za-z0-9_\-.~+/]+=*)").unwrap()
});

/// `text` with every credential replaced by `[redacted]`, checking the token variables of this
/// process's environment.
pub(super) fn redact(text: &str) -> String {
    let secrets: Vec<String> = TOKEN_VARIABLES
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .collect();
    redact_with(text, &secrets)
}

fn redact_with(text: &str, secrets: &[String]) -> String {
    let mut text = text.to_owned();
    for secret in secrets.iter().filter(|s| s.len() >= MIN_SECRET_BYTES) {
        redact_secret(&mut text, secret);
    }
    let text = GITHUB_TOKEN.replace_all(&text, REDACTED);
    let text = AUTHORIZATION.replace_all(&text, format!("${{1}}{REDACTED}"));
    KEYWORD_VALUE
        .replace_all(&text, |caps: &Captures| {
            let value = &caps[3];
            // After `Bearer` comes a credential; after `token` it may be English ("token is
            // expired"), so only a value that looks generated is removed.
            if caps[1].eq_ignore_ascii_case("bearer") || looks_generated(value) {
                format!("{}{}{REDACTED}", &caps[1], &caps[2])
            } else {
                caps[0].to_owned()
            }
        })
        .into_owned()
}

fn redact_secret(text: &mut String, secret: &str) {
    *text = text.replace(secret, REDACTED);
    // stderr is cut at a byte limit, which can cut a secret too: a tail that starts the secret
    // is removed as well.
    let cut = (MIN_SECRET_BYTES..secret.len())
        .rev()
        .find(|&len| secret.is_char_boundary(len) && text.ends_with(&secret[..len]));
    if let Some(len) = cut {
        text.truncate(text.len() - len);
        text.push_str(REDACTED);
    }
}

/// Long, or mid-length with a digit: a key or hash rather than a word.
fn looks_generated(value: &str) -> bool {
    value.len() >= 20 || (value.len() >= 8 && value.bytes().any(|b| b.is_ascii_digit()))
}
