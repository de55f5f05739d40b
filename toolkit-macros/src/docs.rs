//! Doc comments: the tool description, and parameter descriptions from a rustdoc
//! `# Arguments` section (which is then removed from the description).

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use crate::symbol::DOC;

/// The text of the `#[doc = "..."]` attributes, one line each, without rustdoc's leading space.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if attr.path() != DOC {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            let value = s.value();
            for line in value.lines() {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// A doc comment split into the description and the `# Arguments` entries.
pub(crate) struct SplitDoc {
    pub description: Option<String>,
    pub arguments: Vec<(String, String)>,
}

pub(crate) fn split_arguments_section(doc: &str) -> SplitDoc {
    let mut description = Vec::new();
    let mut arguments: Vec<(String, String)> = Vec::new();
    let mut in_section = false;
    for line in doc.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') && trimmed.trim_start_matches('#').starts_with(' ') {
            in_section = trimmed
                .trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("arguments");
            if in_section {
                continue;
            }
        }
        if !in_section {
            description.push(line);
            continue;
        }
        if let Some((name, text)) = parse_argument_bullet(trimmed) {
            arguments.push((name, text));
        } else if let (Some(last), false) = (arguments.last_mut(), trimmed.is_empty()) {
            last.1.push(' ');
            last.1.push_str(trimmed);
        }
    }
    // Removing the section can leave blank lines from both sides of it: keep one.
    let mut kept: Vec<&str> = Vec::new();
    for line in description {
        if !(line.trim().is_empty() && kept.last().is_some_and(|l| l.trim().is_empty())) {
            kept.push(line);
        }
    }
    let description = kept.join("\n");
    let description = description.trim();
    SplitDoc {
        description: (!description.is_empty()).then(|| description.to_owned()),
        arguments,
    }
}

/// `* `text` - the text to count` (also `-` bullets and `:` separators).
fn parse_argument_bullet(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix('*')
        .or_else(|| line.strip_prefix('-'))?
        .trim_start();
    let rest = rest.strip_prefix('`')?;
    let (name, rest) = rest.split_once('`')?;
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '—', '–'])
        .trim();
    Some((name.trim().to_owned(), text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_section_is_split_out_of_the_description() {
        let doc = "Count words.\n\n# Arguments\n\n* `text` - the text to count\n* `limit`: at most\n  this many\n\n# Examples\nmore";
        let split = split_arguments_section(doc);
        assert_eq!(
            split.description.as_deref(),
            Some("Count words.\n\n# Examples\nmore")
        );
        assert_eq!(
            split.arguments,
            [
                ("text".to_owned(), "the text to count".to_owned()),
                ("limit".to_owned(), "at most this many".to_owned())
            ]
        );
    }
}
