//! The tool-name rule of the model providers.

/// Whether model providers accept `name` as a tool name: 1 to 64 ASCII letters, digits, `_` or
/// `-` (`^[a-zA-Z0-9_-]{1,64}$`, the rule OpenAI, Anthropic and Gemini share).
///
/// ```
/// use toolkit_syntax::is_valid_tool_name;
///
/// assert!(is_valid_tool_name("stats_word_count"));
/// assert!(!is_valid_tool_name("word count"));
/// assert!(!is_valid_tool_name(&"a".repeat(65)));
/// ```
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::is_valid_tool_name;

    /// The names of tests/fixtures/tool_names.txt, one `valid <name>` or `invalid <name>` a line.
    #[test]
    fn tool_names_follow_the_providers_rule() {
        let table = include_str!("../../tests/fixtures/tool_names.txt");
        let wrong: Vec<(&str, &str)> = table
            .lines()
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(|line| line.split_once(' ').unwrap_or((line, "")))
            .filter(|&(verdict, name)| match verdict {
                "valid" => !is_valid_tool_name(name),
                "invalid" => is_valid_tool_name(name),
                _ => true,
            })
            .collect();
        assert_eq!(wrong, [], "judged wrongly: (expected verdict, name)");
    }
}
