//! `TextStatsToolset` -> `text_stats`.

pub(crate) fn toolset_name_from_type(type_name: &str) -> String {
    let stem = type_name
        .strip_suffix("Toolset")
        .filter(|s| !s.is_empty())
        .unwrap_or(type_name);
    snake_case(stem)
}

pub(crate) fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let previous = i.checked_sub(1).map(|p| chars[p]);
            let next = chars.get(i + 1);
            // A word starts at an upper-case letter after a lower-case one or a digit, or at the
            // last capital of an acronym ("HTTPServer" -> "http_server").
            let starts_word = match previous {
                Some(p) if p.is_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_uppercase() => next.is_some_and(|n| n.is_lowercase()),
                _ => false,
            };
            if starts_word && !out.ends_with('_') {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_become_snake_case_without_the_toolset_suffix() {
        assert_eq!(toolset_name_from_type("TextStatsToolset"), "text_stats");
        assert_eq!(toolset_name_from_type("MathToolset"), "math");
        assert_eq!(toolset_name_from_type("Toolset"), "toolset");
        assert_eq!(toolset_name_from_type("HTTPServer"), "http_server");
        assert_eq!(toolset_name_from_type("Clock"), "clock");
        assert_eq!(toolset_name_from_type("GithubCliToolset"), "github_cli");
    }
}
