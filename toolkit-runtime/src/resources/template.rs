//! RFC 6570 URI templates of level 1 plus reserved expansion (`users://{id}/profile`,
//! `file:///{+path}`): parsed once, matched against the URIs a client reads, and their
//! parameters percent-decoded and checked before a body sees them.

use std::fmt;

use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};
use toolkit_syntax::uri_template::{self, Part};

use super::RequestError;

/// A URI template: literal text, `{name}` parameters and `{+name}` path parameters (RFC 6570
/// level 1, and level 2's reserved expansion, its spelling for "may contain `/`").
///
/// Matching reads each parameter up to the literal text that follows it (the whole rest of the
/// URI for a last parameter) and percent-decodes it; a parameter never matches an empty string.
/// A decoded value is then checked, as a client chose it: no parameter holds a control
/// character (NUL, CR, LF...) or a `\`; a `{name}` holds no `/` and is not `.` or `..`; a
/// `{+name}` is a relative path that never climbs above its root (`.` and empty segments are
/// dropped, `a/../b` is `b`, a `..` with nothing left to climb out of is refused). A value that
/// fails is a [`RequestError::InvalidParams`] (`-32602`) naming the parameter.
///
/// ```
/// use toolkit::resources::UriTemplate;
///
/// let template = UriTemplate::parse("users://{id}/posts/{post}").unwrap();
/// assert_eq!(template.params(), ["id", "post"]);
/// let params = template.matches("users://ada%20l/posts/7").unwrap().unwrap();
/// assert_eq!(params["id"], "ada l");
/// assert_eq!(params["post"], "7");
/// assert!(template.matches("users://ada/comments/7").is_none());
/// assert!(UriTemplate::parse("users://{id").is_err());
///
/// let files = UriTemplate::parse("file:///{+path}").unwrap();
/// assert_eq!(files.matches("file:///docs/./a.txt").unwrap().unwrap()["path"], "docs/a.txt");
/// let err = files.matches("file:///docs/../../etc/passwd").unwrap().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "Invalid params: template parameter `path` climbs above its root (`..`)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    /// `None` for a template this parser cannot read (a peer's `{?q}`): it matches nothing.
    parts: Option<Vec<Part>>,
}

/// Why a URI template does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("URI template `{template}` {problem}")]
pub struct UriTemplateError {
    /// The template.
    pub template: String,
    /// What is wrong with it.
    pub problem: String,
}

impl UriTemplate {
    /// Parses a template: `{` and `}` in pairs around a parameter name of ASCII letters,
    /// digits and `_` (after a `+` for a path), no two parameters side by side (nothing could
    /// tell where one ends), no parameter named twice. Other operators (`{?q}`, `{#x}`, `{/x}`)
    /// are refused. `#[resource]` checks its URI by the same rules as it expands.
    ///
    /// ```
    /// use toolkit::resources::UriTemplate;
    ///
    /// assert_eq!(
    ///     UriTemplate::parse("users://{id").unwrap_err().to_string(),
    ///     "URI template `users://{id` has a `{` that is never closed"
    /// );
    /// ```
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let parts = uri_template::parse(template).map_err(|problem| UriTemplateError {
            template: template.to_owned(),
            problem: problem.to_string(),
        })?;
        Ok(UriTemplate {
            source: template.to_owned(),
            parts: Some(parts),
        })
    }

    /// A template a peer sent, kept as written: parsed when it parses, else (a `{?q}`
    /// template, say) with no parameters and matching no URI. What a client lists.
    ///
    /// ```
    /// use toolkit::resources::UriTemplate;
    ///
    /// let query = UriTemplate::as_written("search://{?q}");
    /// assert_eq!(query.as_str(), "search://{?q}");
    /// assert!(query.matches("search://?q=x").is_none());
    /// ```
    pub fn as_written(template: &str) -> Self {
        UriTemplate::parse(template).unwrap_or_else(|_| UriTemplate {
            source: template.to_owned(),
            parts: None,
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The parameters' names, in order (without a path's `+`).
    pub fn params(&self) -> Vec<&str> {
        self.parts
            .iter()
            .flatten()
            .filter_map(|part| match part {
                Part::Param { name, .. } => Some(name.as_str()),
                Part::Literal(_) => None,
            })
            .collect()
    }

    /// The parameters `uri` fills, percent-decoded and checked, as JSON strings: `None` when
    /// `uri` does not have the template's shape, an error naming the parameter when it does
    /// but a value is refused (see [`UriTemplate`]).
    pub fn matches(&self, uri: &str) -> Option<Result<Map<String, Value>, RequestError>> {
        let mut found = Vec::new();
        let mut rest = uri;
        let mut parts = self.parts.as_ref()?.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Part::Param { name, path } => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    if end == 0 {
                        return None;
                    }
                    found.push((name, *path, &rest[..end]));
                    rest = &rest[end..];
                }
            }
        }
        if !rest.is_empty() {
            return None;
        }
        let params = found.into_iter().map(|(name, path, raw)| {
            let refused = |problem: &str| RequestError::InvalidParams {
                message: format!("template parameter `{name}` {problem}"),
            };
            let value = checked(raw, path).map_err(refused)?;
            Ok((name.clone(), Value::String(value)))
        });
        Some(params.collect())
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// One parameter's text, percent-decoded and checked: a path normalized, anything else whole.
/// The error says what is wrong, after the parameter's name.
fn checked(raw: &str, path: bool) -> Result<String, &'static str> {
    // `percent_decode_str` passes a bad escape through as it is: refused here instead.
    let escapes = raw.match_indices('%').all(|(at, _)| {
        raw.get(at + 1..at + 3)
            .is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
    });
    if !escapes {
        return Err("has a `%` that is not followed by two hex digits");
    }
    let value = percent_decode_str(raw)
        .decode_utf8()
        .map_err(|_| "is not UTF-8 once percent-decoded")?;
    if value.chars().any(char::is_control) {
        return Err("may not contain control characters (NUL, CR, LF...)");
    }
    if value.contains('\\') {
        return Err("may not contain `\\`");
    }
    if !path {
        if value.contains('/') {
            return Err("may not contain `/` (a template takes a path as `{+name}`)");
        }
        if value == "." || value == ".." {
            return Err("may not be `.` or `..`");
        }
        return Ok(value.into_owned());
    }
    let mut segments: Vec<&str> = Vec::new();
    for segment in value.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop().ok_or("climbs above its root (`..`)")?;
            }
            segment => segments.push(segment),
        }
    }
    if segments.is_empty() {
        return Err("names no path once `.`, `..` and empty segments are resolved");
    }
    Ok(segments.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(template: &str, uri: &str) -> Option<Result<String, String>> {
        let params = UriTemplate::parse(template).unwrap().matches(uri)?;
        Some(
            params
                .map(|params| {
                    params
                        .values()
                        .map(|v| v.as_str().unwrap().to_owned())
                        .collect()
                })
                .map_err(|err| err.to_string()),
        )
    }

    #[test]
    fn a_last_parameter_takes_the_rest_and_an_empty_one_does_not_match() {
        assert_eq!(
            read("file:///{+path}", "file:///a/b.txt"),
            Some(Ok("a/b.txt".into()))
        );
        assert_eq!(read("file:///{path}", "file:///"), None);
        assert_eq!(read("a://{x}/end", "a://x/more"), None);
    }

    #[test]
    fn a_bad_escape_or_bytes_that_are_not_utf8_are_refused_naming_the_parameter() {
        assert_eq!(
            read("file:///{path}", "file:///%zz"),
            Some(Err(
                "Invalid params: template parameter `path` has a `%` that is not \
                      followed by two hex digits"
                    .into()
            ))
        );
        assert_eq!(
            read("file:///{path}", "file:///%e2%82"),
            Some(Err(
                "Invalid params: template parameter `path` is not UTF-8 once percent-decoded"
                    .into()
            ))
        );
    }

    #[test]
    fn a_plain_parameter_refuses_slashes_dots_and_control_characters() {
        let refused = |uri: &str| read("file:///{name}", uri).unwrap().unwrap_err();
        let slash = "Invalid params: template parameter `name` may not contain `/` (a template \
                     takes a path as `{+name}`)";
        assert_eq!(refused("file:///../../etc/passwd"), slash);
        assert_eq!(refused("file:///%2e%2e%2fetc"), slash);
        assert_eq!(refused("file:///a%2Fb"), slash);
        assert_eq!(
            refused("file:///.."),
            "Invalid params: template parameter `name` may not be `.` or `..`"
        );
        let control = "Invalid params: template parameter `name` may not contain control \
                       characters (NUL, CR, LF...)";
        assert_eq!(refused("file:///a%00b"), control);
        assert_eq!(refused("file:///a%0d%0aSet-Cookie"), control);
        assert_eq!(refused("file:///a%7F"), control);
        assert_eq!(
            refused("file:///..%5c..%5cwin.ini"),
            "Invalid params: template parameter `name` may not contain `\\`"
        );
        assert_eq!(
            read("file:///{name}", "file:///report%20v2..txt"),
            Some(Ok("report v2..txt".into()))
        );
    }

    #[test]
    fn a_path_parameter_is_normalized_and_never_climbs_above_its_root() {
        let path = |uri: &str| read("file:///{+path}", uri).unwrap();
        assert_eq!(path("file:///docs/./a//b.txt"), Ok("docs/a/b.txt".into()));
        assert_eq!(path("file:///docs/../b.txt"), Ok("b.txt".into()));
        // A leading `/` would make the path absolute where a body joins it to its root.
        assert_eq!(path("file:////etc/passwd"), Ok("etc/passwd".into()));
        let climbs = "Invalid params: template parameter `path` climbs above its root (`..`)";
        assert_eq!(path("file:///../../etc/passwd"), Err(climbs.into()));
        assert_eq!(path("file:///%2e%2e%2fetc/passwd"), Err(climbs.into()));
        assert_eq!(path("file:///a/../../b"), Err(climbs.into()));
        assert_eq!(
            path("file:///a/%00"),
            Err(
                "Invalid params: template parameter `path` may not contain control \
                 characters (NUL, CR, LF...)"
                    .into()
            )
        );
        assert_eq!(
            path("file:///./"),
            Err(
                "Invalid params: template parameter `path` names no path once `.`, `..` and \
                 empty segments are resolved"
                    .into()
            )
        );
    }

    #[test]
    fn malformed_templates_are_refused_with_the_reason() {
        for (template, error) in [
            (
                "a://{+}",
                "URI template `a://{+}` has an empty `{}`: write the parameter's name in it",
            ),
            (
                "a://{#x}",
                "URI template `a://{#x}` uses the operator `#` in `{#x}`, which is not \
                 supported: write `{name}`, or `{+name}` for a path",
            ),
            (
                "a://{x}/{+x}",
                "URI template `a://{x}/{+x}` names `{x}` twice: each variable fills one parameter",
            ),
        ] {
            let err = UriTemplate::parse(template).unwrap_err();
            assert_eq!(err.to_string(), error);
        }
        assert_eq!(
            UriTemplate::parse("a://{+path}").unwrap().params(),
            ["path"]
        );
    }

    #[test]
    fn a_template_without_parameters_matches_only_itself() {
        let template = UriTemplate::parse("a://fixed").unwrap();
        assert!(template.matches("a://fixed").unwrap().unwrap().is_empty());
        assert!(template.matches("a://fixed/more").is_none());
    }
}
