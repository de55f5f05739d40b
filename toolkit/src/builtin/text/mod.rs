//! `TextProcessingToolset`: the eight `text_*` tools of DSPy.rb's text-processing toolset,
//! name-compatible, in pure Rust: no shell, no processes, no temporary files, and bounded work.
//!
//! Patterns are compiled by the `regex` crate, whose matching time is linear in the input, with
//! a cap on the compiled size; text larger than the toolset's limit is refused, never truncated.

mod lines;
mod pattern;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;

use super::BuiltinError;
use lines::{join_lines, leading_number, split_lines};
use pattern::compile;

/// The largest `text` a tool accepts by default: 1 MiB.
pub const DEFAULT_MAX_TEXT_BYTES: usize = 1 << 20;
/// The longest `pattern` a tool accepts, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1024;
/// The most lines `text_rg` prints; a note saying how many matches were left out follows them.
pub const RG_MAX_LINES: usize = 1000;
/// The most bytes of lines `text_rg` prints, as [`RG_MAX_LINES`].
pub const RG_MAX_OUTPUT_BYTES: usize = 64 << 10;
/// The largest compiled form of a pattern (`regex::RegexBuilder::size_limit`), in bytes.
pub const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Text tools for a model: search, count, slice, filter, deduplicate, sort and summarize.
///
/// Exports exactly `text_grep`, `text_wc`, `text_rg`, `text_extract_lines`, `text_filter_lines`,
/// `text_unique_lines`, `text_sort_lines` and `text_summarize_text`, with DSPy.rb's parameters
/// and output formats. Lines are numbered from 1; a tool that returns lines ends each one with
/// `\n`. An invalid pattern is an error (`Error: invalid pattern ...`), never "No matches".
///
/// ```
/// use toolkit::builtin::TextProcessingToolset;
/// use toolkit::prelude::*;
///
/// let tools = TextProcessingToolset::to_tools();
/// let wc = tools.iter().find(|t| t.name() == "text_wc").unwrap();
/// assert_eq!(
///     wc.dynamic_call(json!({"text": "one two\nthree"})),
///     json!("Lines: 2, Words: 3, Characters: 13")
/// );
///
/// let grep = tools.iter().find(|t| t.name() == "text_grep").unwrap();
/// assert_eq!(
///     grep.dynamic_call(json!({"text": "a", "pattern": "("})),
///     json!("Error: invalid pattern '(': unclosed group")
/// );
/// ```
///
/// The built-ins are not in [`registry`](crate::registry): a program gets them only by asking.
#[derive(Debug, Clone)]
pub struct TextProcessingToolset {
    max_text_bytes: usize,
}

impl Default for TextProcessingToolset {
    fn default() -> Self {
        TextProcessingToolset {
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
        }
    }
}

impl TextProcessingToolset {
    /// The toolset with the default input limit ([`DEFAULT_MAX_TEXT_BYTES`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// The same toolset refusing `text` longer than `limit` bytes.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolkit::builtin::TextProcessingToolset;
    /// use toolkit::prelude::*;
    ///
    /// let tools = Arc::new(TextProcessingToolset::new().with_max_text_bytes(4)).into_tools();
    /// assert_eq!(
    ///     tools[1].dynamic_call(json!({"text": "12345"})),
    ///     json!("Error: text is 5 bytes, more than the 4-byte limit of text_wc; send a smaller piece")
    /// );
    /// ```
    pub fn with_max_text_bytes(mut self, limit: usize) -> Self {
        self.max_text_bytes = limit;
        self
    }

    /// The largest `text` accepted, in bytes.
    pub fn max_text_bytes(&self) -> usize {
        self.max_text_bytes
    }

    fn check_text(&self, tool: &'static str, text: &str) -> Result<(), BuiltinError> {
        check_size(tool, "text", text, self.max_text_bytes)
    }
}

// Not registered: a built-in must not appear in every program's `registry::all_tools()` (nor
// clash with a user's own `text` toolset) just because the program links toolkit.
#[crate::toolset(name = "text", register = false)]
impl TextProcessingToolset {
    /// Search text for lines matching a regular expression (case-insensitive by default) and
    /// return them, or only their count.
    ///
    /// # Arguments
    /// * `text` - the text to search
    /// * `pattern` - a regular expression (Rust regex syntax, like grep -E)
    /// * `ignore_case` - match regardless of letter case
    /// * `count_only` - return "Found N matches for pattern 'P'" instead of the lines
    #[tool(read_only, idempotent, open_world = false)]
    pub fn grep(
        &self,
        text: &str,
        pattern: &str,
        #[arg(default = true)] ignore_case: bool,
        #[arg(default = false)] count_only: bool,
    ) -> Result<String, BuiltinError> {
        self.check_text("text_grep", text)?;
        let regex = compile("text_grep", pattern, ignore_case)?;
        let matching: Vec<&str> = split_lines(text)
            .filter(|line| regex.is_match(line))
            .collect();
        if count_only {
            Ok(format!(
                "Found {} matches for pattern '{pattern}'",
                matching.len()
            ))
        } else if matching.is_empty() {
            Ok(no_matches(pattern))
        } else {
            Ok(join_lines(matching))
        }
    }

    /// Count the lines, words and characters of a text.
    ///
    /// # Arguments
    /// * `text` - the text to count
    /// * `lines_only` - report only the line count
    /// * `words_only` - report only the word count
    /// * `chars_only` - report only the character count
    #[tool(name = "text_wc", read_only, idempotent, open_world = false)]
    pub fn word_count(
        &self,
        text: &str,
        #[arg(default = false)] lines_only: bool,
        #[arg(default = false)] words_only: bool,
        #[arg(default = false)] chars_only: bool,
    ) -> Result<String, BuiltinError> {
        self.check_text("text_wc", text)?;
        let all = !(lines_only || words_only || chars_only);
        let mut parts = Vec::with_capacity(3);
        if all || lines_only {
            parts.push(format!("Lines: {}", split_lines(text).count()));
        }
        if all || words_only {
            parts.push(format!("Words: {}", text.split_whitespace().count()));
        }
        if all || chars_only {
            parts.push(format!("Characters: {}", text.chars().count()));
        }
        Ok(parts.join(", "))
    }

    /// Search text like ripgrep: matching lines with their line numbers (`N:line`), and
    /// `context` lines around each match (`N-line`), with `--` between separate groups.
    /// Case-sensitive.
    ///
    /// # Arguments
    /// * `text` - the text to search
    /// * `pattern` - a regular expression (Rust regex syntax, like ripgrep)
    /// * `context` - how many lines to show before and after each match
    #[tool(name = "text_rg", read_only, idempotent, open_world = false)]
    pub fn ripgrep(
        &self,
        text: &str,
        pattern: &str,
        #[arg(default = 0)] context: usize,
    ) -> Result<String, BuiltinError> {
        self.check_text("text_rg", text)?;
        let regex = compile("text_rg", pattern, false)?;
        let lines: Vec<&str> = split_lines(text).collect();
        let matched: Vec<bool> = lines.iter().map(|line| regex.is_match(line)).collect();
        let mut out = String::new();
        let mut printed = 0;
        // The index one past the last line printed, so overlapping windows print each line once.
        let mut printed_to: Option<usize> = None;
        for hit in (0..lines.len()).filter(|&i| matched[i]) {
            let start = hit.saturating_sub(context);
            let end = hit.saturating_add(context).min(lines.len() - 1);
            let from = match printed_to {
                Some(next) if next >= start => next,
                Some(_) if context > 0 => {
                    out.push_str("--\n");
                    start
                }
                _ => start,
            };
            for (i, line) in lines.iter().enumerate().take(end + 1).skip(from) {
                let separator = if matched[i] { ':' } else { '-' };
                let row = format!("{}{separator}{line}\n", i + 1);
                if printed == RG_MAX_LINES || out.len() + row.len() > RG_MAX_OUTPUT_BYTES {
                    let more = matched[i..].iter().filter(|&&m| m).count();
                    let _ = write!(
                        out,
                        "... {more} more matches (output stops at {RG_MAX_LINES} lines or \
                         {RG_MAX_OUTPUT_BYTES} bytes; narrow the pattern)"
                    );
                    return Ok(out);
                }
                out.push_str(&row);
                printed += 1;
            }
            printed_to = Some(printed_to.map_or(end + 1, |next| next.max(end + 1)));
        }
        if printed_to.is_none() {
            return Ok(no_matches(pattern));
        }
        Ok(out)
    }

    /// Return a range of lines. `start_line` below 1 counts as 1 and `end_line` past the end as
    /// the last line; without `end_line`, only `start_line` is returned.
    ///
    /// # Arguments
    /// * `text` - the text to take lines from
    /// * `start_line` - the first line to return (1-based)
    /// * `end_line` - the last line to return (inclusive)
    #[tool(read_only, idempotent, open_world = false)]
    pub fn extract_lines(
        &self,
        text: &str,
        start_line: i64,
        end_line: Option<i64>,
    ) -> Result<String, BuiltinError> {
        self.check_text("text_extract_lines", text)?;
        let lines: Vec<&str> = split_lines(text).collect();
        let count = i64::try_from(lines.len()).unwrap_or(i64::MAX);
        let start = start_line.max(1);
        if start > count {
            return Err(BuiltinError::StartPastEnd {
                start: start_line,
                lines: lines.len(),
            });
        }
        let end = match end_line {
            None => start,
            Some(end) if end < start => return Err(BuiltinError::EndBeforeStart { start, end }),
            Some(end) => end.min(count),
        };
        // Both bounds are in 1..=count here, so they fit in usize.
        let (first, last) = (start as usize - 1, end as usize);
        Ok(join_lines(lines[first..last].iter().copied()))
    }

    /// Keep the lines that match a regular expression (case-insensitive), or with
    /// `invert`, the lines that do not. No line left gives an empty string.
    ///
    /// # Arguments
    /// * `text` - the text to filter
    /// * `pattern` - a regular expression (Rust regex syntax), matched regardless of case
    /// * `invert` - keep the lines that do not match instead
    #[tool(read_only, idempotent, open_world = false)]
    pub fn filter_lines(
        &self,
        text: &str,
        pattern: &str,
        #[arg(default = false)] invert: bool,
    ) -> Result<String, BuiltinError> {
        self.check_text("text_filter_lines", text)?;
        let regex = compile("text_filter_lines", pattern, true)?;
        Ok(join_lines(
            split_lines(text).filter(|line| regex.is_match(line) != invert),
        ))
    }

    /// Remove duplicate lines, keeping each line's first occurrence in place, or with
    /// `preserve_order` false, returning the distinct lines sorted.
    ///
    /// # Arguments
    /// * `text` - the text to deduplicate
    /// * `preserve_order` - keep first occurrences in their original order instead of sorting
    #[tool(read_only, idempotent, open_world = false)]
    pub fn unique_lines(
        &self,
        text: &str,
        #[arg(default = true)] preserve_order: bool,
    ) -> Result<String, BuiltinError> {
        self.check_text("text_unique_lines", text)?;
        if preserve_order {
            let mut seen = HashSet::new();
            Ok(join_lines(
                split_lines(text).filter(|line| seen.insert(*line)),
            ))
        } else {
            Ok(join_lines(split_lines(text).collect::<BTreeSet<_>>()))
        }
    }

    /// Sort lines, as text (byte order) or by the number each line starts with. In a numeric
    /// sort, lines that do not start with a number keep their original order after all the
    /// numbered lines, whatever the direction; equal numbers keep their original order.
    ///
    /// # Arguments
    /// * `text` - the text whose lines to sort
    /// * `reverse` - sort in descending order
    /// * `numeric` - sort by the leading number of each line (like `sort -n`)
    #[tool(read_only, idempotent, open_world = false)]
    pub fn sort_lines(
        &self,
        text: &str,
        #[arg(default = false)] reverse: bool,
        #[arg(default = false)] numeric: bool,
    ) -> Result<String, BuiltinError> {
        self.check_text("text_sort_lines", text)?;
        if !numeric {
            let mut lines: Vec<&str> = split_lines(text).collect();
            if reverse {
                lines.sort_by(|a, b| b.cmp(a));
            } else {
                lines.sort();
            }
            return Ok(join_lines(lines));
        }
        let (mut numbered, mut other) = (Vec::new(), Vec::new());
        for line in split_lines(text) {
            match leading_number(line) {
                Some(number) => numbered.push((number, line)),
                None => other.push(line),
            }
        }
        // Stable sorts: equal keys keep their input order in both directions.
        if reverse {
            numbered.sort_by(|a, b| b.0.total_cmp(&a.0));
        } else {
            numbered.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        other.splice(0..0, numbered.into_iter().map(|(_, line)| line));
        Ok(join_lines(other))
    }

    /// Summarize a text: its line, word and character counts, average line and word length,
    /// and its five most frequent words of three or more letters.
    ///
    /// # Arguments
    /// * `text` - the text to summarize
    #[tool(read_only, idempotent, open_world = false)]
    pub fn summarize_text(&self, text: &str) -> Result<String, BuiltinError> {
        self.check_text("text_summarize_text", text)?;
        let lines = split_lines(text).count();
        let words: Vec<&str> = text.split_whitespace().collect();
        let chars = text.chars().count();
        let average_line = ratio(chars, lines);
        let word_chars = words.iter().map(|w| w.chars().count()).sum();
        let average_word = ratio(word_chars, words.len());

        let frequent = frequent_words(&words);

        let mut out = String::from("Text Summary:\n");
        let _ = writeln!(out, "  Lines: {lines}");
        let _ = writeln!(out, "  Words: {}", words.len());
        let _ = writeln!(out, "  Characters: {chars}");
        let _ = writeln!(out, "  Average line length: {average_line:.2}");
        let _ = write!(out, "  Average word length: {average_word:.2}");
        if !frequent.is_empty() {
            out.push_str("\n  Most frequent words:");
            for (word, count) in frequent.iter().take(5) {
                let _ = write!(out, "\n    {word}: {count}");
            }
        }
        Ok(out)
    }
}

fn check_size(
    tool: &'static str,
    argument: &str,
    value: &str,
    limit: usize,
) -> Result<(), BuiltinError> {
    if value.len() > limit {
        return Err(BuiltinError::TooLarge {
            tool,
            argument: argument.into(),
            actual: value.len(),
            limit,
        });
    }
    Ok(())
}

fn no_matches(pattern: &str) -> String {
    format!("No matches found for pattern '{pattern}'")
}

fn ratio(total: usize, count: usize) -> f64 {
    if count == 0 {
        0.0
    } else {
        total as f64 / count as f64
    }
}

/// Words of three or more letters (lowercased, punctuation dropped) with their counts, most
/// frequent first; ties rank by which word came first.
fn frequent_words(words: &[&str]) -> Vec<(String, usize)> {
    let mut order: Vec<(String, usize)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for word in words {
        let key: String = word
            .chars()
            .flat_map(char::to_lowercase)
            .filter(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if key.chars().count() < 3 {
            continue;
        }
        match index.get(&key) {
            Some(&at) => order[at].1 += 1,
            None => {
                index.insert(key.clone(), order.len());
                order.push((key, 1));
            }
        }
    }
    // A stable sort: equal counts keep their order of first appearance.
    order.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
    order
}
