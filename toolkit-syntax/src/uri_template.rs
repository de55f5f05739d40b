//! Resource URI templates: RFC 6570 level 1 (`users://{id}/profile`) and level 2's reserved
//! expansion for a path (`file:///{+path}`), the subset a URI can be matched back against.
//! `#[resource]` checks its URI with [`parse`] as it expands; the runtime's `UriTemplate`
//! parses with it too and matches URIs against the parts.

use std::fmt;

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text the URI holds as it is.
    Literal(String),
    /// `{name}`, or `{+name}` when `path` (a value that may hold `/`).
    Param {
        /// The parameter's name, without a path's `+`.
        name: String,
        /// Whether it was written `{+name}`.
        path: bool,
    },
}

/// What is wrong with a template. Its text completes "URI template `...` ", so each reads as
/// a sentence after the template.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// A `}` with no `{` before it.
    ClosesNothing,
    /// A `{` with no `}` after it.
    NeverClosed,
    /// `{}` or `{+}`.
    Empty,
    /// An RFC 6570 operator other than a path's `+`: `{?q}`, `{#x}`, `{/x}`...
    Operator {
        /// The operator.
        operator: char,
        /// The whole expression, without its braces.
        expression: String,
    },
    /// An expression that is not one name of letters, digits and `_` (`{a,b}`, `{id:3}`).
    NotAName {
        /// The whole expression, without its braces.
        expression: String,
    },
    /// Two parameters with nothing between them: no URI tells where the first one ends.
    SideBySide {
        /// The first parameter's name.
        first: String,
        /// The second parameter's name.
        second: String,
    },
    /// A name used twice.
    Twice {
        /// The name.
        name: String,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::ClosesNothing => f.write_str("has a `}` that closes nothing"),
            Problem::NeverClosed => f.write_str("has a `{` that is never closed"),
            Problem::Empty => f.write_str("has an empty `{}`: write the parameter's name in it"),
            Problem::Operator {
                operator,
                expression,
            } => write!(
                f,
                "uses the operator `{operator}` in `{{{expression}}}`, which is not supported: \
                 write `{{name}}`, or `{{+name}}` for a path"
            ),
            Problem::NotAName { expression } => write!(
                f,
                "has `{{{expression}}}`, which is not a parameter name: write plain `{{name}}` \
                 expressions (letters, digits and `_`), one name each"
            ),
            Problem::SideBySide { first, second } => write!(
                f,
                "has `{{{first}}}{{{second}}}` side by side: a URI cannot tell where one ends, \
                 put text between them"
            ),
            Problem::Twice { name } => write!(
                f,
                "names `{{{name}}}` twice: each variable fills one parameter"
            ),
        }
    }
}

/// The operators of RFC 6570 and its reserved ones: none but a path's `+` is read here.
const OPERATORS: &str = "+#./;?&=,!@|";

/// A template's parts, in order, or the first thing wrong with it.
///
/// ```
/// use toolkit_syntax::uri_template::{Part, Problem, parse};
///
/// assert_eq!(
///     parse("users://{id}/posts").unwrap(),
///     [
///         Part::Literal("users://".into()),
///         Part::Param { name: "id".into(), path: false },
///         Part::Literal("/posts".into()),
///     ],
/// );
/// assert_eq!(parse("users://{id").unwrap_err(), Problem::NeverClosed);
/// ```
pub fn parse(template: &str) -> Result<Vec<Part>, Problem> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(Problem::ClosesNothing);
        }
        if open > 0 {
            parts.push(Part::Literal(rest[..open].to_owned()));
        }
        let after = &rest[open + 1..];
        let close = after.find('}').ok_or(Problem::NeverClosed)?;
        let (name, path) = param(&after[..close])?;
        if let Some(Part::Param { name: first, .. }) = parts.last() {
            return Err(Problem::SideBySide {
                first: first.clone(),
                second: name,
            });
        }
        if parts
            .iter()
            .any(|part| matches!(part, Part::Param { name: seen, .. } if *seen == name))
        {
            return Err(Problem::Twice { name });
        }
        parts.push(Part::Param { name, path });
        rest = &after[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest.to_owned()));
    }
    Ok(parts)
}

/// The parameter of one `{...}` expression: its name, and whether a `+` made it a path.
fn param(expression: &str) -> Result<(String, bool), Problem> {
    let (name, path) = match expression.strip_prefix('+') {
        Some(name) => (name, true),
        None => (expression, false),
    };
    if name.is_empty() {
        return Err(Problem::Empty);
    }
    if let Some(operator) = name.chars().next().filter(|c| OPERATORS.contains(*c)) {
        return Err(Problem::Operator {
            operator,
            expression: expression.to_owned(),
        });
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(Problem::NotAName {
            expression: expression.to_owned(),
        });
    }
    Ok((name.to_owned(), path))
}

/// Whether the URI (or template) starts with a scheme, `name:`, as every resource URI does.
///
/// ```
/// assert!(toolkit_syntax::uri_template::has_scheme("test://static"));
/// assert!(!toolkit_syntax::uri_template::has_scheme("/static"));
/// ```
pub fn has_scheme(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, path: bool) -> Part {
        Part::Param {
            name: name.to_owned(),
            path,
        }
    }

    fn lit(text: &str) -> Part {
        Part::Literal(text.to_owned())
    }

    #[test]
    fn parameters_and_literals_are_split_in_order() {
        assert_eq!(
            parse("users://{id}/posts/{post_id}").unwrap(),
            [
                lit("users://"),
                param("id", false),
                lit("/posts/"),
                param("post_id", false)
            ]
        );
        assert_eq!(parse("test://static").unwrap(), [lit("test://static")]);
        assert_eq!(
            parse("file:///{+path}").unwrap(),
            [lit("file:///"), param("path", true)]
        );
        assert_eq!(
            parse("a://{1st}").unwrap(),
            [lit("a://"), param("1st", false)]
        );
    }

    #[test]
    fn malformed_templates_say_what_is_wrong() {
        for (template, problem) in [
            ("a://{id", "has a `{` that is never closed"),
            ("a://id}", "has a `}` that closes nothing"),
            (
                "a://{}",
                "has an empty `{}`: write the parameter's name in it",
            ),
            (
                "a://{+}",
                "has an empty `{}`: write the parameter's name in it",
            ),
            (
                "a://{?q}",
                "uses the operator `?` in `{?q}`, which is not supported: write `{name}`, or \
                 `{+name}` for a path",
            ),
            (
                "a://{++x}",
                "uses the operator `+` in `{++x}`, which is not supported: write `{name}`, or \
                 `{+name}` for a path",
            ),
            (
                "a://{a,b}",
                "has `{a,b}`, which is not a parameter name: write plain `{name}` expressions \
                 (letters, digits and `_`), one name each",
            ),
            (
                "a://{x}{+y}",
                "has `{x}{y}` side by side: a URI cannot tell where one ends, put text between \
                 them",
            ),
            (
                "a://{x}/{+x}",
                "names `{x}` twice: each variable fills one parameter",
            ),
        ] {
            assert_eq!(
                parse(template).unwrap_err().to_string(),
                problem,
                "{template}"
            );
        }
    }

    #[test]
    fn a_uri_starts_with_a_scheme() {
        assert!(has_scheme("test://static"));
        assert!(has_scheme("urn:x"));
        assert!(!has_scheme("/static"));
        assert!(!has_scheme("1x://a"));
        assert!(!has_scheme("{id}://a"));
    }
}
