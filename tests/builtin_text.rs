//! `toolkit::builtin::TextProcessingToolset`: the eight `text_*` tools, their exact outputs, the
//! DSPy.rb documentation examples, and one test per bad input.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use toolkit::builtin::{BuiltinError, TextProcessingToolset};
use toolkit::prelude::*;

const POEM: &str = "The quick brown fox\njumps over the lazy dog\nThe dog sleeps\nA fox runs\n";

fn tool(name: &str) -> ToolProxy {
    TextProcessingToolset::to_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool named {name}"))
}

fn call(name: &str, args: Value) -> Value {
    tool(name).dynamic_call(args)
}

/// Compares with a file under tests/fixtures/builtin/; `TOOLKIT_BLESS=1` rewrites the file.
fn assert_golden(file: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/builtin")
        .join(file);
    if std::env::var_os("TOOLKIT_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    assert_eq!(actual, expected, "output differs from {}", path.display());
}

// --- The DSPy.rb documentation, reproduced ---

#[test]
fn the_toolset_exports_exactly_the_eight_dspy_rb_names_in_order() {
    let names: Vec<String> = TextProcessingToolset::to_tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(
        names.join(","),
        "text_grep,text_wc,text_rg,text_extract_lines,text_filter_lines,text_unique_lines,\
         text_sort_lines,text_summarize_text"
    );
    assert_eq!(<TextProcessingToolset as Toolset>::NAME, "text");
    assert_eq!(<TextProcessingToolset as Toolset>::TOOL_NAMES.len(), 8);
}

#[test]
fn the_dspy_rb_word_count_example_prints_lines_words_and_characters() {
    // tools.to_h { |tool| [tool.name, tool] }.fetch("text_wc").call(text: "one two\nthree")
    let tools = TextProcessingToolset::to_tools();
    let by_name: HashMap<&str, &ToolProxy> = tools.iter().map(|t| (t.name(), t)).collect();
    let word_count = by_name["text_wc"];
    assert_eq!(
        word_count.call(json!({"text": "one two\nthree"})).unwrap(),
        json!("Lines: 2, Words: 3, Characters: 13")
    );
    // The LLM-usage example: {"action": "text_wc", "action_input": {"text": "one two\nthree"}}
    assert_eq!(
        word_count.dynamic_call(r#"{"text": "one two\nthree"}"#),
        json!("Lines: 2, Words: 3, Characters: 13")
    );
    assert_eq!(
        TextProcessingToolset::new()
            .word_count("one two\nthree", false, false, false)
            .unwrap(),
        "Lines: 2, Words: 3, Characters: 13"
    );
}

#[test]
fn the_default_toolset_is_shared_by_its_proxies_and_kept_out_of_the_registry() {
    let tools = Arc::new(TextProcessingToolset::default()).into_tools();
    assert_eq!(tools.len(), 8);
    assert!(toolkit::registry::find_toolset("text").is_none());
    assert!(toolkit::registry::find_tool("text_wc").is_none());
}

#[test]
fn every_tool_is_annotated_read_only_idempotent_and_closed_world() {
    for tool in TextProcessingToolset::to_tools() {
        let hints = tool.options().annotations;
        assert_eq!(
            (
                hints.read_only,
                hints.idempotent,
                hints.destructive,
                hints.open_world
            ),
            (Some(true), Some(true), None, Some(false)),
            "{}",
            tool.name()
        );
    }
}

#[test]
fn every_tool_schema_matches_the_golden_file() {
    let schemas: Vec<Value> = TextProcessingToolset::to_tools()
        .iter()
        .map(|t| t.schema())
        .collect();
    let pretty = serde_json::to_string_pretty(&schemas).unwrap() + "\n";
    assert_golden("text_schemas.json", &pretty);
}

// --- text_grep ---

#[test]
fn grep_returns_matching_lines_ignoring_case_by_default() {
    assert_eq!(
        call("text_grep", json!({"text": POEM, "pattern": "the"})),
        json!("The quick brown fox\njumps over the lazy dog\nThe dog sleeps\n")
    );
}

#[test]
fn grep_respects_case_when_asked() {
    assert_eq!(
        call(
            "text_grep",
            json!({"text": POEM, "pattern": "The", "ignore_case": false})
        ),
        json!("The quick brown fox\nThe dog sleeps\n")
    );
}

#[test]
fn grep_counts_matching_lines_in_the_dspy_rb_format() {
    assert_eq!(
        call(
            "text_grep",
            json!({"text": POEM, "pattern": "fox", "count_only": true})
        ),
        json!("Found 2 matches for pattern 'fox'")
    );
    assert_eq!(
        call(
            "text_grep",
            json!({"text": POEM, "pattern": "cat", "count_only": true})
        ),
        json!("Found 0 matches for pattern 'cat'")
    );
}

#[test]
fn grep_without_a_match_says_so_in_the_dspy_rb_format() {
    assert_eq!(
        call("text_grep", json!({"text": POEM, "pattern": "cat"})),
        json!("No matches found for pattern 'cat'")
    );
}

#[test]
fn grep_accepts_string_booleans_from_a_model() {
    assert_eq!(
        call(
            "text_grep",
            json!({"text": POEM, "pattern": "fox", "count_only": "true"})
        ),
        json!("Found 2 matches for pattern 'fox'")
    );
}

// --- text_wc ---

#[test]
fn wc_single_flags_give_single_counts() {
    let text = "one two\nthree";
    assert_eq!(
        call("text_wc", json!({"text": text, "lines_only": true})),
        json!("Lines: 2")
    );
    assert_eq!(
        call("text_wc", json!({"text": text, "words_only": true})),
        json!("Words: 3")
    );
    assert_eq!(
        call("text_wc", json!({"text": text, "chars_only": true})),
        json!("Characters: 13")
    );
}

#[test]
fn wc_with_several_flags_reports_each_in_the_usual_order() {
    assert_eq!(
        call(
            "text_wc",
            json!({"text": "one two\nthree", "chars_only": true, "lines_only": true})
        ),
        json!("Lines: 2, Characters: 13")
    );
}

#[test]
fn wc_counts_characters_not_bytes_and_a_final_newline_adds_no_line() {
    assert_eq!(
        call("text_wc", json!({"text": "héllo wörld\n"})),
        json!("Lines: 1, Words: 2, Characters: 12")
    );
    assert_eq!(
        call("text_wc", json!({"text": ""})),
        json!("Lines: 0, Words: 0, Characters: 0")
    );
}

// --- text_rg ---

#[test]
fn rg_prints_matches_with_line_numbers_and_is_case_sensitive() {
    assert_eq!(
        call("text_rg", json!({"text": POEM, "pattern": "dog"})),
        json!("2:jumps over the lazy dog\n3:The dog sleeps\n")
    );
    assert_eq!(
        call("text_rg", json!({"text": POEM, "pattern": "the"})),
        json!("2:jumps over the lazy dog\n")
    );
}

#[test]
fn rg_context_lines_are_marked_with_a_dash_and_groups_separated() {
    let text = "a\nb\nmatch one\nc\nd\ne\nmatch two\nf\n";
    assert_golden(
        "rg_context.txt",
        call(
            "text_rg",
            json!({"text": text, "pattern": "match", "context": 1}),
        )
        .as_str()
        .unwrap(),
    );
    assert_eq!(
        call(
            "text_rg",
            json!({"text": text, "pattern": "match", "context": 1})
        ),
        json!("2-b\n3:match one\n4-c\n--\n6-e\n7:match two\n8-f\n")
    );
}

#[test]
fn rg_merges_overlapping_and_touching_context_windows() {
    let text = "a\nb\nmatch one\nc\nd\nmatch two\ne\n";
    assert_eq!(
        call(
            "text_rg",
            json!({"text": text, "pattern": "match", "context": 2})
        ),
        json!("1-a\n2-b\n3:match one\n4-c\n5-d\n6:match two\n7-e\n")
    );
    assert_eq!(
        call(
            "text_rg",
            json!({"text": "m\nx\ny\nm\n", "pattern": "m", "context": 1})
        ),
        json!("1:m\n2-x\n3-y\n4:m\n")
    );
}

#[test]
fn rg_without_a_match_says_so() {
    assert_eq!(
        call(
            "text_rg",
            json!({"text": POEM, "pattern": "cat", "context": 3})
        ),
        json!("No matches found for pattern 'cat'")
    );
}

#[test]
fn rg_with_a_huge_context_prints_each_line_once() {
    assert_eq!(
        call(
            "text_rg",
            json!({"text": "a\nm\nb\n", "pattern": "m", "context": u64::MAX})
        ),
        json!("1-a\n2:m\n3-b\n")
    );
}

#[test]
fn rg_stops_at_its_line_cap_and_says_how_many_matches_are_left() {
    let text = "x\n".repeat(300_000);
    let out = call("text_rg", json!({"text": text, "pattern": "^"}));
    let out = out.as_str().unwrap();
    let (lines, note) = out.rsplit_once('\n').unwrap();
    assert_eq!(lines.lines().count(), 1000);
    assert_eq!(lines.lines().last(), Some("1000:x"));
    assert_eq!(
        note,
        "... 299000 more matches (output stops at 1000 lines or 65536 bytes; narrow the pattern)"
    );
}

#[test]
fn rg_stops_at_its_byte_cap_and_says_how_many_matches_are_left() {
    let line = "y".repeat(10_000);
    let text = format!("{line}\n").repeat(20);
    let out = call("text_rg", json!({"text": text, "pattern": "y"}));
    let out = out.as_str().unwrap();
    // Six lines of 10,003 bytes fit in 64 KiB; the seventh would not.
    assert_eq!(out.matches(":y").count(), 6);
    assert!(out.len() < 64 << 10, "{}", out.len());
    assert!(out.ends_with(
        "\n... 14 more matches (output stops at 1000 lines or 65536 bytes; narrow the pattern)"
    ));
}

// --- text_extract_lines ---

#[test]
fn extract_lines_returns_an_inclusive_range() {
    assert_eq!(
        call(
            "text_extract_lines",
            json!({"text": POEM, "start_line": 2, "end_line": 3})
        ),
        json!("jumps over the lazy dog\nThe dog sleeps\n")
    );
}

#[test]
fn extract_lines_without_an_end_returns_one_line() {
    assert_eq!(
        call("text_extract_lines", json!({"text": POEM, "start_line": 4})),
        json!("A fox runs\n")
    );
}

#[test]
fn extract_lines_clamps_the_start_to_one_and_the_end_to_the_last_line() {
    assert_eq!(
        call(
            "text_extract_lines",
            json!({"text": POEM, "start_line": -3, "end_line": 1})
        ),
        json!("The quick brown fox\n")
    );
    assert_eq!(
        call("text_extract_lines", json!({"text": POEM, "start_line": 0})),
        json!("The quick brown fox\n")
    );
    assert_eq!(
        call(
            "text_extract_lines",
            json!({"text": POEM, "start_line": 3, "end_line": 99})
        ),
        json!("The dog sleeps\nA fox runs\n")
    );
}

#[test]
fn extract_lines_past_the_end_is_an_error_not_an_empty_string() {
    assert_eq!(
        call("text_extract_lines", json!({"text": POEM, "start_line": 5})),
        json!("Error: start_line 5 is past the end of the text (4 lines)")
    );
    assert_eq!(
        call("text_extract_lines", json!({"text": "", "start_line": 1})),
        json!("Error: start_line 1 is past the end of the text (0 lines)")
    );
}

#[test]
fn extract_lines_with_the_end_before_the_start_is_an_error() {
    assert_eq!(
        call(
            "text_extract_lines",
            json!({"text": POEM, "start_line": 3, "end_line": 2})
        ),
        json!("Error: end_line 2 is before start_line 3")
    );
}

#[test]
fn extract_lines_rejects_a_line_number_that_is_not_a_number() {
    assert_eq!(
        call(
            "text_extract_lines",
            json!({"text": POEM, "start_line": "two"})
        ),
        json!(
            "Error: invalid arguments for text_extract_lines: start_line: expected an integer, got \
             the string \"two\""
        )
    );
}

// --- text_filter_lines ---

#[test]
fn filter_lines_keeps_matching_lines_ignoring_case() {
    assert_eq!(
        call(
            "text_filter_lines",
            json!({"text": POEM, "pattern": "^the"})
        ),
        json!("The quick brown fox\nThe dog sleeps\n")
    );
}

#[test]
fn filter_lines_inverted_keeps_the_other_lines() {
    assert_eq!(
        call(
            "text_filter_lines",
            json!({"text": POEM, "pattern": "^the", "invert": true})
        ),
        json!("jumps over the lazy dog\nA fox runs\n")
    );
}

#[test]
fn filter_lines_with_nothing_left_returns_an_empty_string() {
    assert_eq!(
        call("text_filter_lines", json!({"text": POEM, "pattern": "cat"})),
        json!("")
    );
}

// --- text_unique_lines ---

#[test]
fn unique_lines_keeps_first_occurrences_in_order() {
    assert_eq!(
        call("text_unique_lines", json!({"text": "b\na\nb\nc\na\n"})),
        json!("b\na\nc\n")
    );
}

#[test]
fn a_carriage_return_ending_a_line_is_part_of_its_ending_not_of_the_line() {
    // Kept, `"33\r"` would print as the CRLF line `"33"`: the same line twice to a reader.
    for text in ["33\n33\r", "33\r\r\n33\n", "33\r\n33"] {
        assert_eq!(
            call("text_unique_lines", json!({"text": text})),
            json!("33\n"),
            "{text:?}"
        );
    }
    assert_eq!(
        call("text_sort_lines", json!({"text": "b\r\na\r"})),
        json!("a\nb\n")
    );
}

#[test]
fn unique_lines_unordered_returns_the_distinct_lines_sorted() {
    assert_eq!(
        call(
            "text_unique_lines",
            json!({"text": "b\na\nb\nc\na", "preserve_order": false})
        ),
        json!("a\nb\nc\n")
    );
}

// --- text_sort_lines ---

#[test]
fn sort_lines_sorts_as_text_by_default() {
    assert_eq!(
        call(
            "text_sort_lines",
            json!({"text": "pear\nApple\nbanana\n10\n9\n"})
        ),
        json!("10\n9\nApple\nbanana\npear\n")
    );
    assert_eq!(
        call(
            "text_sort_lines",
            json!({"text": "pear\nApple\nbanana\n", "reverse": true})
        ),
        json!("pear\nbanana\nApple\n")
    );
}

#[test]
fn numeric_sort_orders_by_leading_number_and_puts_other_lines_last_in_input_order() {
    let text = "10 apples\nnone\n9 pears\n-1.5 debt\nzero\n1e2 ants\n9 plums\n";
    assert_eq!(
        call("text_sort_lines", json!({"text": text, "numeric": true})),
        json!("-1.5 debt\n9 pears\n9 plums\n10 apples\n1e2 ants\nnone\nzero\n")
    );
    assert_eq!(
        call(
            "text_sort_lines",
            json!({"text": text, "numeric": true, "reverse": true})
        ),
        json!("1e2 ants\n10 apples\n9 pears\n9 plums\n-1.5 debt\nnone\nzero\n")
    );
}

// --- text_summarize_text ---

#[test]
fn summarize_text_matches_the_golden_summary() {
    assert_golden(
        "summarize_text.txt",
        call("text_summarize_text", json!({"text": POEM}))
            .as_str()
            .unwrap(),
    );
}

#[test]
fn summarize_text_of_nothing_has_zero_averages_and_no_word_list() {
    assert_eq!(
        call("text_summarize_text", json!({"text": ""})),
        json!(
            "Text Summary:\n  Lines: 0\n  Words: 0\n  Characters: 0\n  Average line length: 0.00\n  \
             Average word length: 0.00"
        )
    );
}

#[test]
fn summarize_text_ranks_ties_by_first_appearance_and_ignores_short_words() {
    let text = "an ox, an OX! Zebra zebra; yak. yak a b cc";
    assert_eq!(
        call("text_summarize_text", json!({"text": text})),
        json!(
            "Text Summary:\n  Lines: 1\n  Words: 11\n  Characters: 42\n  Average line length: 42.00\n  \
             Average word length: 2.91\n  Most frequent words:\n    zebra: 2\n    yak: 2"
        )
    );
}

// --- Bad input ---

#[test]
fn an_invalid_pattern_is_an_error_never_no_matches() {
    for name in ["text_grep", "text_rg", "text_filter_lines"] {
        assert_eq!(
            call(name, json!({"text": POEM, "pattern": "(fox"})),
            json!("Error: invalid pattern '(fox': unclosed group"),
            "{name}"
        );
    }
    assert_eq!(
        call(
            "text_grep",
            json!({"text": POEM, "pattern": "[z-a]", "count_only": true})
        ),
        json!(
            "Error: invalid pattern '[z-a]': invalid character class range, the start must be <= the end"
        )
    );
}

#[test]
fn a_pattern_that_compiles_too_large_is_refused() {
    assert_eq!(
        call(
            "text_grep",
            json!({"text": POEM, "pattern": r"\w{500}{500}"})
        ),
        json!(
            r"Error: invalid pattern '\w{500}{500}': the compiled pattern is larger than the 1048576-byte limit; use a simpler pattern"
        )
    );
}

#[test]
fn a_pattern_longer_than_the_limit_is_refused() {
    let pattern = "a".repeat(1025);
    assert_eq!(
        call(
            "text_filter_lines",
            json!({"text": POEM, "pattern": pattern})
        ),
        json!(
            "Error: pattern is 1025 bytes, more than the 1024-byte limit of text_filter_lines; \
             send a smaller piece"
        )
    );
}

#[test]
fn text_larger_than_the_default_limit_is_refused_by_every_tool() {
    let text = "x".repeat((1 << 20) + 1);
    let args = [
        ("text_grep", json!({"text": text, "pattern": "x"})),
        ("text_wc", json!({"text": text})),
        ("text_rg", json!({"text": text, "pattern": "x"})),
        ("text_extract_lines", json!({"text": text, "start_line": 1})),
        ("text_filter_lines", json!({"text": text, "pattern": "x"})),
        ("text_unique_lines", json!({"text": text})),
        ("text_sort_lines", json!({"text": text})),
        ("text_summarize_text", json!({"text": text})),
    ];
    for (name, args) in args {
        assert_eq!(
            call(name, args),
            // The call pipeline's own 1 MiB input limit refuses it before the tool runs.
            json!(format!(
                "Error: the arguments for {name} are larger than its limit of 1048576 bytes; send \
                 less data, for example a shorter text or fewer items"
            ))
        );
    }
}

#[test]
fn a_configured_limit_applies_to_every_call() {
    let tools = Arc::new(TextProcessingToolset::new().with_max_text_bytes(8)).into_tools();
    let wc = tools.iter().find(|t| t.name() == "text_wc").unwrap();
    assert_eq!(
        wc.dynamic_call(json!({"text": "12345678"})),
        json!("Lines: 1, Words: 1, Characters: 8")
    );
    assert_eq!(
        wc.dynamic_call(json!({"text": "123456789"})),
        json!(
            "Error: text is 9 bytes, more than the 8-byte limit of text_wc; send a smaller piece"
        )
    );
}

#[test]
fn a_missing_pattern_is_reported_by_name() {
    assert_eq!(
        call("text_grep", json!({"text": POEM})),
        json!("Error: missing required argument \"pattern\" for text_grep")
    );
}

#[test]
fn shell_syntax_in_a_pattern_is_just_a_pattern() {
    let text = "it's $(whoami); ok\n-e flag\nplain\n";
    assert_eq!(
        call(
            "text_grep",
            json!({"text": text, "pattern": "'; rm -rf / #"})
        ),
        json!("No matches found for pattern ''; rm -rf / #'")
    );
    assert_eq!(
        call(
            "text_grep",
            json!({"text": text, "pattern": r"\$\(whoami\);"})
        ),
        json!("it's $(whoami); ok\n")
    );
    assert_eq!(
        call("text_grep", json!({"text": text, "pattern": "-e"})),
        json!("-e flag\n")
    );
}

#[test]
fn the_direct_method_returns_a_typed_error() {
    let err = TextProcessingToolset::new()
        .grep("a", "(", true, false)
        .unwrap_err();
    assert_eq!(
        err,
        BuiltinError::InvalidPattern {
            pattern: "(".into(),
            reason: "unclosed group".into()
        }
    );
}
