//! RFC 6570 level-1 URI templates (`users://{id}/profile`): parsed once, matched against the
//! URIs a client reads, and their parameters percent-decoded.

use std::fmt;

use serde_json::{Map, Value};

/// A URI template of RFC 6570 level 1: literal text and `{name}` parameters.
///
/// Matching reads each parameter up to the literal text that follows it (the whole rest of the
/// URI for a last parameter) and percent-decodes it; a parameter never matches an empty string.
///
/// ```
/// use toolkit::resources::UriTemplate;
///
/// let template = UriTemplate::parse("users://{id}/posts/{post}").unwrap();
/// assert_eq!(template.params(), ["id", "post"]);
/// let params = template.matches("users://ada%20l/posts/7").unwrap();
/// assert_eq!(params["id"], "ada l");
/// assert_eq!(params["post"], "7");
/// assert!(template.matches("users://ada/comments/7").is_none());
/// assert!(UriTemplate::parse("users://{id").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Param(String),
    /// A template this parser cannot read: it matches nothing.
    Opaque,
}

/// Why a URI template does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid URI template {template:?}: {problem}")]
pub struct UriTemplateError {
    /// The template.
    pub template: String,
    /// What is wrong with it.
    pub problem: String,
}

impl UriTemplate {
    /// Parses a template: `{` and `}` in pairs around a parameter name of ASCII letters,
    /// digits and `_`, no two parameters side by side (nothing could tell where one ends), no
    /// parameter named twice. Level-2+ operators (`{+path}`, `{?q}`) are refused.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let fail = |problem: String| UriTemplateError {
            template: template.to_owned(),
            problem,
        };
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find(['{', '}']) {
            if rest[open..].starts_with('}') {
                return Err(fail("a `}` without its `{`".into()));
            }
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let after = &rest[open + 1..];
            let close = after
                .find('}')
                .ok_or_else(|| fail("a `{` without its `}`".into()))?;
            let name = &after[..close];
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(fail(format!(
                    "parameter {name:?} is not a name of letters, digits and `_` (only level-1 `{{name}}` parameters are supported)"
                )));
            }
            if matches!(parts.last(), Some(Part::Param(_))) {
                return Err(fail(format!(
                    "parameter `{name}` follows another with nothing between them"
                )));
            }
            if parts.contains(&Part::Param(name.to_owned())) {
                return Err(fail(format!("parameter `{name}` appears twice")));
            }
            parts.push(Part::Param(name.to_owned()));
            rest = &after[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate {
            source: template.to_owned(),
            parts,
        })
    }

    /// A template a peer sent, kept as written: parsed when it parses, else (a level-2+
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
            parts: vec![Part::Opaque],
        })
    }

    /// The template as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The parameters' names, in order.
    pub fn params(&self) -> Vec<&str> {
        self.parts
            .iter()
            .filter_map(|part| match part {
                Part::Param(name) => Some(name.as_str()),
                Part::Literal(_) | Part::Opaque => None,
            })
            .collect()
    }

    /// The parameters `uri` fills, percent-decoded, as JSON strings; `None` when it does not
    /// match.
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        let mut params = Map::new();
        let mut rest = uri;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Part::Param(name) => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    if end == 0 {
                        return None;
                    }
                    params.insert(name.clone(), Value::String(percent_decode(&rest[..end])?));
                    rest = &rest[end..];
                }
                Part::Opaque => return None,
            }
        }
        rest.is_empty().then_some(params)
    }
}

impl fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// `%XX` sequences decoded; `None` for a bad escape or bytes that are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_last_parameter_takes_the_rest_and_a_bad_escape_does_not_match() {
        let template = UriTemplate::parse("file:///{path}").unwrap();
        assert_eq!(
            template.matches("file:///a/b.txt").unwrap()["path"],
            "a/b.txt"
        );
        assert!(template.matches("file:///%zz").is_none());
        assert!(template.matches("file:///%e2%82").is_none());
        assert!(template.matches("file:///").is_none());
    }

    #[test]
    fn malformed_templates_are_refused_with_the_reason() {
        for (template, problem) in [
            ("a://{}", "is not a name"),
            ("a://{+path}", "only level-1"),
            ("a://{x}{y}", "nothing between"),
            ("a://{x}/{x}", "twice"),
            ("a://x}", "without its `{`"),
        ] {
            let err = UriTemplate::parse(template).unwrap_err();
            assert!(err.to_string().contains(problem), "{template}: {err}");
        }
    }

    #[test]
    fn a_template_without_parameters_matches_only_itself() {
        let template = UriTemplate::parse("a://fixed").unwrap();
        assert!(template.matches("a://fixed").unwrap().is_empty());
        assert!(template.matches("a://fixed/more").is_none());
    }
}
