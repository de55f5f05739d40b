//! `#[resource]` URI templates as the runtime's `UriTemplate` reads them (RFC 6570 level 1, and
//! level 2's `{+name}` for a path): `users://{id}/profile` is literal text and `{name}`
//! expressions, each filled by the method parameter of that name.

/// One piece of a template.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Literal(String),
    /// `{name}`, or `{+name}` (a path: the runtime lets it hold `/`), by its name.
    Variable(String),
}

/// A template's parts, or what is wrong with it, phrased for the user.
pub(crate) fn parse(template: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            None => {
                parts.push(Part::Literal(rest.to_owned()));
                break;
            }
            Some(at) => {
                if at > 0 {
                    parts.push(Part::Literal(rest[..at].to_owned()));
                }
                if rest[at..].starts_with('}') {
                    return Err(format!(
                        "URI template `{template}` has a `}}` that closes nothing"
                    ));
                }
                let after = &rest[at + 1..];
                let Some(end) = after.find('}') else {
                    return Err(format!(
                        "URI template `{template}` has a `{{` that is never closed"
                    ));
                };
                let name = variable(template, &after[..end])?;
                if let Some(Part::Variable(previous)) = parts.last() {
                    return Err(format!(
                        "URI template `{template}` has `{{{previous}}}{{{name}}}` side by side: \
                         a URI cannot tell where one ends, put text between them"
                    ));
                }
                parts.push(Part::Variable(name));
                rest = &after[end + 1..];
            }
        }
    }
    Ok(parts)
}

/// The variable of one `{...}` expression: a plain name, as the method's parameter is spelled,
/// after a `+` for a path.
fn variable(template: &str, expression: &str) -> Result<String, String> {
    let expression = expression.strip_prefix('+').unwrap_or(expression);
    if expression.is_empty() {
        return Err(format!(
            "URI template `{template}` has an empty `{{}}`: write the parameter's name in it"
        ));
    }
    if let Some(operator) = expression
        .chars()
        .next()
        .filter(|c| "+#./;?&=,!@|".contains(*c))
    {
        return Err(format!(
            "URI template `{template}`: the operator `{operator}` in `{{{expression}}}` is not \
             supported; use `{{name}}`, or `{{+name}}` for a path"
        ));
    }
    let is_name = expression
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && expression
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name {
        return Err(format!(
            "URI template `{template}`: `{{{expression}}}` is not a parameter name; use plain \
             `{{name}}` expressions (letters, digits and `_`), one name each"
        ));
    }
    Ok(expression.to_owned())
}

/// Whether the URI (or template) starts with a scheme, `name:`, as every resource URI does.
pub(crate) fn has_scheme(uri: &str) -> bool {
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

    fn var(name: &str) -> Part {
        Part::Variable(name.to_owned())
    }

    fn lit(text: &str) -> Part {
        Part::Literal(text.to_owned())
    }

    #[test]
    fn variables_and_literals_are_split_in_order() {
        assert_eq!(
            parse("users://{id}/posts/{post_id}").unwrap(),
            [lit("users://"), var("id"), lit("/posts/"), var("post_id")]
        );
        assert_eq!(parse("test://static").unwrap(), [lit("test://static")]);
        assert_eq!(
            parse("file:///{+path}").unwrap(),
            [lit("file:///"), var("path")]
        );
    }

    #[test]
    fn malformed_templates_say_what_is_wrong() {
        for (template, words) in [
            ("a://{id", "never closed"),
            ("a://id}", "closes nothing"),
            ("a://{}", "empty"),
            ("a://{?q}", "operator `?`"),
            ("a://{++x}", "operator `+`"),
            ("a://{+}", "empty"),
            ("a://{a,b}", "not a parameter name"),
            ("a://{id:3}", "not a parameter name"),
            ("a://{1st}", "not a parameter name"),
            ("a://{x}{y}", "side by side"),
        ] {
            let error = parse(template).unwrap_err();
            assert!(error.contains(words), "{template}: {error}");
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
