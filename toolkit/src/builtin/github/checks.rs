//! Checks on a model's arguments before any of them reaches `gh`; each refusal is a
//! [`BuiltinError::InvalidArgument`] naming the argument.

use crate::builtin::BuiltinError;

/// The longest label, user name, branch or field value accepted.
const MAX_ARGUMENT_BYTES: usize = 1024;
const MAX_ENDPOINT_BYTES: usize = 2048;
/// The most labels or API fields in one call.
const MAX_FIELDS: usize = 32;
const MAX_LIMIT: u32 = 1000;
/// The longest API field name accepted.
const MAX_FIELD_NAME_BYTES: usize = 256;

pub(super) fn invalid(argument: &str, reason: String) -> BuiltinError {
    BuiltinError::InvalidArgument {
        argument: argument.into(),
        reason,
    }
}

/// A free-text value (label, user, branch, field value): any characters but NUL, bounded.
pub(super) fn check_text<'a>(argument: &str, value: &'a str) -> Result<&'a str, BuiltinError> {
    if value.len() > MAX_ARGUMENT_BYTES {
        return Err(invalid(
            argument,
            format!("values are limited to {MAX_ARGUMENT_BYTES} bytes"),
        ));
    }
    if value.contains('\0') {
        return Err(invalid(argument, "values cannot contain NUL bytes".into()));
    }
    Ok(value)
}

/// At most [`MAX_FIELDS`] labels or fields; `what` names them in the message ("values").
pub(super) fn check_count(argument: &str, count: usize, what: &str) -> Result<(), BuiltinError> {
    if count > MAX_FIELDS {
        return Err(invalid(
            argument,
            format!("at most {MAX_FIELDS} {what} are allowed"),
        ));
    }
    Ok(())
}

pub(super) fn check_limit(limit: u32) -> Result<u32, BuiltinError> {
    if (1..=MAX_LIMIT).contains(&limit) {
        Ok(limit)
    } else {
        Err(invalid(
            "limit",
            format!("must be between 1 and {MAX_LIMIT}, got {limit}"),
        ))
    }
}

/// Only GET: the toolset is read-only.
pub(super) fn check_method(method: &str) -> Result<(), BuiltinError> {
    if method.trim().eq_ignore_ascii_case("GET") {
        Ok(())
    } else {
        Err(invalid(
            "method",
            format!("only GET is allowed, this tool is read-only (got '{method}')"),
        ))
    }
}

/// An API field name: what `gh api --raw-field=NAME=VALUE` can carry.
pub(super) fn check_field_name(name: &str) -> Result<&str, BuiltinError> {
    if name.is_empty() || name.contains('=') || name.len() > MAX_FIELD_NAME_BYTES {
        return Err(invalid(
            "fields",
            format!("'{name}' is not a field name (1 to {MAX_FIELD_NAME_BYTES} bytes, no '=')"),
        ));
    }
    Ok(name)
}

/// `OWNER/REPO`, or `HOST/OWNER/REPO` with a host in `allowed`, in the characters GitHub allows.
pub(super) fn check_repo<'a>(repo: &'a str, allowed: &[String]) -> Result<&'a str, BuiltinError> {
    let segments: Vec<&str> = repo.split('/').collect();
    let valid_segment = |s: &&str| {
        !s.is_empty()
            && *s != "."
            && *s != ".."
            && s.len() <= 100
            && !s.starts_with('-')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    if !(2..=3).contains(&segments.len()) || !segments.iter().all(valid_segment) {
        return Err(invalid(
            "repo",
            format!("expected OWNER/REPO (letters, digits, '-', '_', '.'), got '{repo}'"),
        ));
    }
    if let [host, _, _] = segments[..] {
        check_host("repo", host, allowed)?;
    }
    Ok(repo)
}

/// A host `gh` may be sent to (with its token for that host): one of `allowed`, in any case.
pub(super) fn check_host(
    argument: &str,
    host: &str,
    allowed: &[String],
) -> Result<(), BuiltinError> {
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(host)) {
        return Ok(());
    }
    Err(BuiltinError::HostNotAllowed {
        argument: argument.into(),
        host: host.into(),
        allowed: if allowed.is_empty() {
            "none".into()
        } else {
            allowed.join(", ")
        },
    })
}

/// A REST path on the GitHub host: no option-like start, no other host, no GraphQL (whose
/// queries can be mutations), no whitespace or control characters.
pub(super) fn check_endpoint(endpoint: &str) -> Result<&str, BuiltinError> {
    let reason = if endpoint.is_empty() {
        Some("it is empty".to_owned())
    } else if endpoint.len() > MAX_ENDPOINT_BYTES {
        Some(format!("it is longer than {MAX_ENDPOINT_BYTES} bytes"))
    } else if endpoint.starts_with('-') {
        Some("it starts with '-', which gh would read as an option".to_owned())
    } else if endpoint.contains("://") {
        Some("give a path on the GitHub API, not a URL".to_owned())
    } else if endpoint
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        Some("it contains whitespace or control characters".to_owned())
    } else if first_segment(endpoint).eq_ignore_ascii_case("graphql") {
        Some("GraphQL is not available here; use a REST path".to_owned())
    } else {
        None
    };
    match reason {
        Some(reason) => Err(invalid("endpoint", format!("'{endpoint}': {reason}"))),
        None => Ok(endpoint),
    }
}

/// The first segment of `endpoint`'s path as the server resolves it: percent-escapes decoded
/// (`%2e` is `.`), `.` and empty segments dropped, `..` going up, so `repos/../../graphql` and
/// `%2e%2e//graphql` both name `graphql`.
fn first_segment(endpoint: &str) -> String {
    let path = endpoint.split(['?', '#']).next().unwrap_or_default();
    let mut decoded = path.to_owned();
    // Decoded again while anything changes, so `%252e` cannot hide a dot from a server that
    // decodes twice; a few rounds cover any server, and the endpoint is short.
    for _ in 0..4 {
        let next = percent_decode(&decoded);
        if next == decoded {
            break;
        }
        decoded = next;
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in decoded.split(['/', '\\']) {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            segment => segments.push(segment),
        }
    }
    segments
        .first()
        .map(|s| (*s).to_owned())
        .unwrap_or_default()
}

/// `%XX` escapes decoded; any other `%` kept; bytes that are not UTF-8 replaced.
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn graphql_reached_through_dots_escapes_or_double_slashes_is_refused() {
        let refused = [
            "repos/../../graphql",
            "repos/o/r/../../../graphql",
            "./graphql",
            "//graphql",
            "repos/%2e%2e/graphql",
            "repos/%2E%2E/%2e%2e/graphql?x=1",
            "%2fgraphql",
            "repos%2f..%2fgraphql",
            "repos/%252e%252e/graphql",
            "repos\\..\\graphql",
            "%67raphql",
        ];
        for endpoint in refused {
            assert_eq!(
                check_endpoint(endpoint).unwrap_err().to_string(),
                format!(
                    "invalid endpoint: '{endpoint}': GraphQL is not available here; use a REST path"
                ),
            );
        }
        for endpoint in [
            "repos/o/r/issues",
            "repos/o/graphql",
            "search/code?q=graphql",
            "a/../user",
        ] {
            assert_eq!(check_endpoint(endpoint).unwrap(), endpoint);
        }
    }

    #[test]
    fn a_percent_sign_that_starts_no_escape_is_kept() {
        assert_eq!(percent_decode("%2e%+f%4%zz%"), ".%+f%4%zz%");
    }
}
