//! A model's regular expression, compiled with bounded work: the regex crate matches in time
//! linear in the input, and size limits bound what compiling a pathological pattern can cost.

use regex::{Regex, RegexBuilder};

use super::{MAX_PATTERN_BYTES, REGEX_SIZE_LIMIT, check_size};
use crate::builtin::BuiltinError;

/// Compiles a model's pattern with bounded size: the regex crate matches in linear time, and the
/// size limit bounds the memory and compile time a pathological pattern (`a{1000}{1000}`) takes.
pub(super) fn compile(
    tool: &'static str,
    pattern: &str,
    ignore_case: bool,
) -> Result<Regex, BuiltinError> {
    check_size(tool, "pattern", pattern, MAX_PATTERN_BYTES)?;
    RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(2 * REGEX_SIZE_LIMIT)
        .build()
        .map_err(|err| BuiltinError::InvalidPattern {
            pattern: pattern.into(),
            reason: describe_regex_error(&err),
        })
}

/// The regex crate's syntax errors span several lines (the pattern, a caret, the reason); a
/// model needs only the reason.
fn describe_regex_error(err: &regex::Error) -> String {
    match err {
        regex::Error::Syntax(text) => text
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix("error: "))
            .unwrap_or(text)
            .trim()
            .to_owned(),
        regex::Error::CompiledTooBig(limit) => format!(
            "the compiled pattern is larger than the {limit}-byte limit; use a simpler pattern"
        ),
        other => other.to_string(),
    }
}
