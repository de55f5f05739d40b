//! The built-in text toolset with any pattern, text and numbers. The input is a selector byte
//! (tool and flags), then the pattern, a NUL byte, the text, a NUL byte and a number.
//!
//! Invariants: nothing panics; every call answers a string within 2 s (a hostile pattern
//! included); the line tools keep only lines of the text (filtered, deduplicated or sorted as
//! asked), `invert` splits the lines in two, and a count never exceeds the lines searched.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::builtin::TextProcessingToolset;
use toolkit::{ToolProxy, Toolset};

use super::input::{split_first, split_nul, within};

const LIMIT: Duration = Duration::from_secs(2);

fn tools() -> &'static BTreeMap<String, ToolProxy> {
    static TOOLS: OnceLock<BTreeMap<String, ToolProxy>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        Arc::new(TextProcessingToolset::new())
            .into_tools()
            .into_iter()
            .map(|tool| (tool.name().to_owned(), tool))
            .collect()
    })
}

/// Calls `name`; the answer must be a string, which is returned with `Error: ` answers as `Err`.
fn call(name: &str, args: Value) -> Result<String, String> {
    let tool = tools()
        .get(name)
        .unwrap_or_else(|| panic!("the text toolset has no {name}"));
    match within(name, LIMIT, || tool.dynamic_call(args)) {
        Value::String(text) if text.starts_with("Error: ") => Err(text),
        Value::String(text) => Ok(text),
        other => panic!("{name} answered {other}, not a string"),
    }
}

pub fn run(data: &[u8]) {
    let Some((selector, rest)) = split_first(data) else {
        return;
    };
    let (pattern, rest) = split_nul(rest);
    let (text, number) = split_nul(rest);
    let pattern = String::from_utf8_lossy(pattern);
    let text = String::from_utf8_lossy(text);
    let number: i64 = String::from_utf8_lossy(number).trim().parse().unwrap_or(1);
    let flag = |bit: u8| selector & (1 << bit) != 0;
    // A line ending in a lone `\r`, written back followed by `\n`, reads back without it.
    let lines: Vec<&str> = text
        .lines()
        .map(|line| line.trim_end_matches('\r'))
        .collect();
    match selector % 8 {
        0 => {
            let args = json!({"text": text, "pattern": pattern, "ignore_case": flag(3), "count_only": true});
            if let Ok(answer) = call("text_grep", args) {
                let count = answer
                    .strip_prefix("Found ")
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or_else(|| panic!("text_grep counted {answer:?}"));
                assert!(
                    count <= lines.len(),
                    "{count} matches in {} lines",
                    lines.len()
                );
            }
        }
        1 => drop(call(
            "text_grep",
            json!({"text": text, "pattern": pattern, "ignore_case": flag(3)}),
        )),
        2 => drop(call(
            "text_wc",
            json!({"text": text, "lines_only": flag(3), "words_only": flag(4), "chars_only": flag(5)}),
        )),
        3 => drop(call(
            "text_rg",
            json!({"text": text, "pattern": pattern, "context": number.rem_euclid(5)}),
        )),
        4 => drop(call(
            "text_extract_lines",
            json!({"text": text, "start_line": number, "end_line": if flag(3) { json!(number.saturating_add(3)) } else { Value::Null }}),
        )),
        5 => check_filter(&text, &pattern, &lines),
        6 => check_unique(&text, &lines, flag(3)),
        _ => check_sort(&text, &lines, flag(3), flag(4)),
    }
    drop(call("text_summarize_text", json!({"text": text})));
}

fn check_filter(text: &str, pattern: &str, lines: &[&str]) {
    let kept = call(
        "text_filter_lines",
        json!({"text": text, "pattern": pattern}),
    );
    let dropped = call(
        "text_filter_lines",
        json!({"text": text, "pattern": pattern, "invert": true}),
    );
    if let (Ok(kept), Ok(dropped)) = (kept, dropped) {
        let all: HashSet<&str> = lines.iter().copied().collect();
        for line in kept.lines().chain(dropped.lines()).map(trim_cr) {
            assert!(
                all.contains(line),
                "filter_lines answered a line not in the text: {line:?}"
            );
        }
    }
}

fn check_unique(text: &str, lines: &[&str], preserve_order: bool) {
    let Ok(answer) = call(
        "text_unique_lines",
        json!({"text": text, "preserve_order": preserve_order}),
    ) else {
        return;
    };
    let mut seen = HashSet::new();
    let all: HashSet<&str> = lines.iter().copied().collect();
    for line in answer.lines().map(trim_cr) {
        assert!(seen.insert(line), "unique_lines repeated {line:?}");
        assert!(
            all.contains(line),
            "unique_lines answered a line not in the text: {line:?}"
        );
    }
}

fn check_sort(text: &str, lines: &[&str], reverse: bool, numeric: bool) {
    let args = json!({"text": text, "reverse": reverse, "numeric": numeric});
    let Ok(answer) = call("text_sort_lines", args) else {
        return;
    };
    if !numeric && !lines.is_empty() {
        let mut sorted: Vec<&str> = answer.lines().map(trim_cr).collect();
        let mut expected = lines.to_vec();
        expected.sort();
        if reverse {
            sorted.reverse();
        }
        // Lines ending in `\r` or blank lines may be written differently; compare the rest.
        sorted.retain(|line| !line.trim().is_empty());
        expected.retain(|line| !line.trim().is_empty());
        assert_eq!(
            sorted.len(),
            expected.len(),
            "sort_lines lost or added lines"
        );
    }
}

fn trim_cr(line: &str) -> &str {
    line.trim_end_matches('\r')
}
