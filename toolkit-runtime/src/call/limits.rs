//! Bounds on one tool call that a JSON Schema cannot express: time, input size, nesting depth
//! and output size.
//!
//! Everything a model sends is untrusted. These checks run before the arguments are parsed or
//! walked by anything recursive, so a megabyte of junk or a million open brackets costs one
//! linear scan and never the stack.

use std::io;
use std::time::Duration;

use serde_json::Value;

use crate::error::ToolError;

/// Bounds on one tool call: a deadline, the largest and deepest input accepted, and the largest
/// output returned whole.
///
/// A [`Toolbox`](crate::Toolbox) holds defaults; a tool's own settings
/// (`#[tool(timeout_ms = 500, max_input_bytes = 4096, max_output_bytes = 10_000)]`, or
/// [`ToolOptions::limits`](crate::ToolOptions::limits)) win over them. [`ToolProxy::call`](crate::ToolProxy::call) uses
/// `Limits::default()` under the tool's own settings.
///
/// - `max_input_bytes` (default 1 MiB): arguments sent as JSON text are measured by their length
///   before they are parsed. Arguments already parsed into a `Value` are measured by the length
///   of their compact JSON serialization: the depth walk also sums a cheap upper bound of it
///   (every string byte escaped, every number 24 characters), and only when that bound is over
///   the limit is the exact length counted, without allocating and abandoned as soon as it
///   passes the limit.
/// - `max_depth` (default 64): how deeply arrays and objects may nest; the arguments object
///   itself is level 1. JSON text is scanned without recursion before it is parsed. serde_json's
///   parser stops at 128 levels of its own accord, so a limit above 127 reports such input as
///   invalid JSON instead.
/// - `max_output_bytes` (default none): a longer result is cut to fit, with a marker saying so.
///   A string result is measured by its length; any other result by its compact JSON, and is
///   returned as the cut JSON text.
///   A content result (an image, a `ToolOutput`) is cut block by block and its base64 never in
///   half: an image over the bound is replaced by a note saying so (`docs/providers.md`).
/// - `max_output_bytes` applies to error results too: a model reads both.
/// - `timeout` (default none): the deadline covers the whole call, checking the arguments
///   included. An async tool is cancelled at its deadline. A call with a deadline checks its
///   arguments on a tokio blocking-pool thread, and a sync tool runs its body there too; at the
///   deadline the caller gets [`ToolError::TimedOut`], and that thread runs on to the end of the
///   body on its own (Rust cannot stop a thread), its result dropped. What a timeout cannot
///   stop, then, is a sync body already running: its thread stays busy until the body returns.
///   A runtime built without timers borrows the timer of toolkit's own fallback runtime.
/// - `max_threads` (default 32): how many calls of one tool may hold a blocking-pool thread at
///   once (sync tools marked `blocking` or with a deadline, with their argument checks, and the
///   argument checks of async tools with a deadline), counting calls abandoned at their deadline
///   whose body still runs, so a tool that hangs cannot take every thread of the pool and
///   starve the others. A call that finds every place taken waits for one (see
///   `max_thread_wait`), and is refused at once with [`ToolError::Overdue`] only when every
///   place is held by a call its caller stopped waiting for (past its deadline, or cancelled).
/// - `max_thread_wait` (default 10 s): how long a call waits for a place before it is refused
///   with [`ToolError::Busy`], which says how long it waited and how many calls held the
///   places. A call with a deadline waits at most until its deadline, and its body gets what
///   is left of it. Places of a quick tool free up in milliseconds even under heavy load; the
///   default is long enough to ride out a burst on a starved machine, and well under the 60 s
///   after which MCP clients give up on a request, so a caller gets an answer it can act on.
///
/// The same type holds a toolbox's limits and a tool's own ([`ToolOptions::limits`](crate::ToolOptions::limits)): a field
/// left `None` takes the next level's value (the tool's over the toolbox's over toolkit's
/// defaults), and the methods of the same names read the value that applies.
///
/// ```
/// use std::time::Duration;
/// use toolkit_runtime::Limits;
///
/// let limits = Limits::default().with_timeout(Duration::from_secs(30)).with_max_depth(16);
/// assert_eq!(limits.max_input_bytes(), 1 << 20);
/// assert_eq!(limits.max_depth(), 16);
/// assert_eq!(limits.timeout, Some(Duration::from_secs(30)));
/// assert_eq!(limits.max_thread_wait(), Duration::from_secs(10));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The longest a call may take (default none).
    pub timeout: Option<Duration>,
    /// The largest argument payload accepted, in bytes (default 1 MiB).
    pub max_input_bytes: Option<usize>,
    /// How deeply arrays and objects may nest in the arguments (the arguments object is level 1;
    /// default 64).
    pub max_depth: Option<usize>,
    /// The largest result returned whole, in bytes (default none).
    pub max_output_bytes: Option<usize>,
    /// How many calls of one tool may hold a blocking-pool thread at once (default 32).
    pub max_threads: Option<usize>,
    /// How long a call waits for one of those places before it is refused (default 10 s).
    pub max_thread_wait: Option<Duration>,
}

impl Limits {
    /// The default bound on a call's whole argument text (`max_input_bytes`): 1 MiB. Not to be
    /// confused with the text toolset's bound on one argument, `DEFAULT_MAX_TEXT_BYTES`.
    pub const DEFAULT_MAX_INPUT_BYTES: usize = 1 << 20;
    /// Deep enough for any argument structure a person would design, shallow enough that every
    /// later step may recurse freely.
    pub const DEFAULT_MAX_DEPTH: usize = 64;
    /// Enough for the concurrency of a busy agent, a small share of tokio's 512 blocking threads.
    pub const DEFAULT_MAX_THREADS: usize = 32;
    /// Long enough to ride out a burst of calls on a starved machine, well under the 60 s after
    /// which MCP clients give up on a request.
    pub const DEFAULT_MAX_THREAD_WAIT: Duration = Duration::from_secs(10);

    /// The same limits with a deadline.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// The same limits with another input size bound.
    pub fn with_max_input_bytes(mut self, bytes: usize) -> Self {
        self.max_input_bytes = Some(bytes);
        self
    }

    /// The same limits with another nesting bound.
    pub fn with_max_depth(mut self, depth: usize) -> Self {
        self.max_depth = Some(depth);
        self
    }

    /// The same limits with another bound on the blocking-pool threads one tool may hold.
    pub fn with_max_threads(mut self, threads: usize) -> Self {
        self.max_threads = Some(threads);
        self
    }

    /// The same limits with another bound on how long a call waits for a blocking-pool place.
    pub fn with_max_thread_wait(mut self, wait: Duration) -> Self {
        self.max_thread_wait = Some(wait);
        self
    }

    /// The same limits with an output size bound.
    pub fn with_max_output_bytes(mut self, bytes: usize) -> Self {
        self.max_output_bytes = Some(bytes);
        self
    }

    /// The largest argument payload accepted, in bytes.
    pub fn max_input_bytes(&self) -> usize {
        self.max_input_bytes
            .unwrap_or(Self::DEFAULT_MAX_INPUT_BYTES)
    }

    /// How deeply arrays and objects may nest in the arguments.
    pub fn max_depth(&self) -> usize {
        self.max_depth.unwrap_or(Self::DEFAULT_MAX_DEPTH)
    }

    /// How many calls of one tool may hold a blocking-pool thread at once.
    pub fn max_threads(&self) -> usize {
        self.max_threads.unwrap_or(Self::DEFAULT_MAX_THREADS)
    }

    /// How long a call waits for a blocking-pool place before it is refused.
    pub fn max_thread_wait(&self) -> Duration {
        self.max_thread_wait
            .unwrap_or(Self::DEFAULT_MAX_THREAD_WAIT)
    }

    /// These limits over `defaults`: each field set here wins, each left `None` takes the
    /// default's.
    ///
    /// ```
    /// use toolkit_runtime::Limits;
    ///
    /// let tool = Limits::default().with_max_input_bytes(100);
    /// let limits = tool.over(Limits::default().with_max_depth(8));
    /// assert_eq!((limits.max_input_bytes(), limits.max_depth()), (100, 8));
    /// ```
    pub fn over(self, defaults: Limits) -> Limits {
        Limits {
            timeout: self.timeout.or(defaults.timeout),
            max_input_bytes: self.max_input_bytes.or(defaults.max_input_bytes),
            max_depth: self.max_depth.or(defaults.max_depth),
            max_output_bytes: self.max_output_bytes.or(defaults.max_output_bytes),
            max_threads: self.max_threads.or(defaults.max_threads),
            max_thread_wait: self.max_thread_wait.or(defaults.max_thread_wait),
        }
    }

    /// These limits with the timeout cut to `time`, if given: the shorter of the two, for a call
    /// that must end within the time its caller has left.
    #[inline]
    pub(crate) fn cut_to(self, time: Option<Duration>) -> Limits {
        let Some(time) = time else {
            return self;
        };
        Limits {
            timeout: Some(self.timeout.map_or(time, |own| own.min(time))),
            ..self
        }
    }

    /// How long a call waits for a blocking-pool place: `max_thread_wait`, or its deadline if
    /// sooner.
    pub(crate) fn thread_wait(&self) -> Duration {
        match self.timeout {
            Some(timeout) => timeout.min(self.max_thread_wait()),
            None => self.max_thread_wait(),
        }
    }

    /// Rejects input that is too large or too deeply nested, before anything parses or recurses
    /// into it.
    pub(crate) fn check_input(&self, tool: &str, input: &Value) -> Result<(), ToolError> {
        let too_large = || ToolError::InputTooLarge {
            tool: tool.into(),
            limit: self.max_input_bytes(),
        };
        let too_deep = || ToolError::TooDeeplyNested {
            tool: tool.into(),
            limit: self.max_depth(),
        };
        match input {
            Value::String(text) => {
                if text.len() > self.max_input_bytes() {
                    return Err(too_large());
                }
                if text_nesting_exceeds(text, self.max_depth()) {
                    return Err(too_deep());
                }
            }
            value => {
                // Depth first: serializing (to measure the size exactly) recurses.
                let Some(bound) = measure(value, self.max_depth()) else {
                    return Err(too_deep());
                };
                // The bound is loose; serialize only when it cannot settle the question.
                if bound > self.max_input_bytes()
                    && serialized_len_exceeds(value, self.max_input_bytes())
                {
                    return Err(too_large());
                }
            }
        }
        Ok(())
    }

    /// Rejects arguments that nest too deeply once coercion has parsed JSON sent as strings
    /// (`"[[[...]]]"` for an array parameter): the depth checked before parsing did not see it.
    pub(crate) fn check_depth(&self, tool: &str, arguments: &Value) -> Result<(), ToolError> {
        match measure(arguments, self.max_depth()) {
            Some(_) => Ok(()),
            None => Err(ToolError::TooDeeplyNested {
                tool: tool.into(),
                limit: self.max_depth(),
            }),
        }
    }
}

/// Whether JSON text opens more than `max` arrays or objects inside each other. A linear scan
/// that skips string contents; malformed text is left for the parser to report.
fn text_nesting_exceeds(text: &str, max: usize) -> bool {
    // Fast path, and the common case: too few openers to nest that deep at all. This count
    // vectorizes, counted in `u8`s a chunk at a time (no chunk can overflow one; summed straight
    // into a `usize`, the widening kept it from vectorizing well); the exact scan below does not.
    let openers: usize = text
        .as_bytes()
        .chunks(255)
        .map(|chunk| {
            let count = chunk
                .iter()
                .fold(0u8, |count, &b| count + u8::from((b == b'[') | (b == b'{')));
            usize::from(count)
        })
        .sum();
    if openers <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text.as_bytes() {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// An upper bound on the length of `value`'s compact JSON, or `None` when it nests arrays or
/// objects more than `max_depth` deep. One walk with an explicit stack, no recursion; only
/// arrays and objects go on the stack, so the arguments of a tool whose parameters are all
/// scalars (the common case) are measured without allocating.
fn measure(value: &Value, max_depth: usize) -> Option<usize> {
    let mut bound = 0usize;
    let mut stack = Vec::new();
    let mut next = Some((value, 1usize));
    while let Some((value, depth)) = next.take().or_else(|| stack.pop()) {
        // A scalar inside is counted at once; an array or object inside waits on the stack.
        let mut inside = |item, size: usize| match scalar_len(item) {
            Some(len) => size.saturating_add(len),
            None => {
                stack.push((item, depth + 1));
                size
            }
        };
        let size = match value {
            Value::Array(_) | Value::Object(_) if depth > max_depth => return None,
            // Brackets, and a comma per item.
            Value::Array(items) => items
                .iter()
                .fold(items.len().saturating_add(2), |size, item| {
                    inside(item, size)
                }),
            // Braces, and per entry its key, a colon and a comma.
            Value::Object(map) => map.iter().fold(2usize, |size, (key, item)| {
                inside(item, size.saturating_add(string_len(key)).saturating_add(2))
            }),
            scalar => scalar_len(scalar).unwrap_or(0),
        };
        bound = bound.saturating_add(size);
    }
    Some(bound)
}

/// The longest compact form of a scalar, or `None` for an array or object: a number such as
/// -1.7976931348623157e308, and a string whose every byte is escaped as \u00XX.
fn scalar_len(value: &Value) -> Option<usize> {
    match value {
        Value::Null => Some(4),
        Value::Bool(_) => Some(5),
        Value::Number(_) => Some(24),
        Value::String(text) => Some(string_len(text)),
        Value::Array(_) | Value::Object(_) => None,
    }
}

fn string_len(text: &str) -> usize {
    text.len().saturating_mul(6).saturating_add(2)
}

/// Whether the compact JSON of `value` is longer than `max` bytes. Counts without allocating and
/// stops as soon as the answer is known. Call only on values already known to be shallow.
pub(super) fn serialized_len_exceeds(value: &Value, max: usize) -> bool {
    struct Counter {
        len: usize,
        max: usize,
    }
    impl io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.len += buf.len();
            if self.len > self.max {
                // Abandons the serialization: the answer is known.
                return Err(io::Error::other("over the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { len: 0, max };
    serde_json::to_writer(&mut counter, value).is_err()
}

/// Cuts `text` to at most `max` bytes, marker included, on a character boundary. Under a limit
/// too small for the marker, the text is cut without one: the limit always holds.
pub(super) fn truncate(mut text: String, max: usize) -> String {
    let total = text.len();
    let marker = |kept: usize| format!("... [output truncated: showing {kept} of {total} bytes]");
    // The marker for `max` is at least as long as the one for any smaller `kept`.
    let (mut kept, with_marker) = match max.checked_sub(marker(max).len()) {
        Some(kept) => (kept, true),
        None => (max, false),
    };
    while !text.is_char_boundary(kept) {
        kept -= 1;
    }
    text.truncate(kept);
    if with_marker {
        text.push_str(&marker(kept));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::render::Rendering;
    use serde_json::json;

    #[test]
    fn brackets_inside_strings_do_not_count_as_nesting() {
        assert!(!text_nesting_exceeds(r#"{"a": "[[[[\"[[[["}"#, 1));
        assert!(text_nesting_exceeds(r#"{"a": [[1]]}"#, 2));
        assert!(!text_nesting_exceeds(r#"{"a": [[1]]}"#, 3));
    }

    #[test]
    fn nesting_is_found_past_the_openers_counted_in_one_chunk() {
        // The quick count goes 255 bytes at a time: depths on both sides of a chunk's end.
        for depth in [254, 255, 256, 300, 600] {
            let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            assert!(text_nesting_exceeds(&text, depth - 1), "{depth}");
            assert!(!text_nesting_exceeds(&text, depth), "{depth}");
        }
        let in_a_string = format!(r#"{{"a": "{}"}}"#, "[".repeat(600));
        assert!(!text_nesting_exceeds(&in_a_string, 1));
    }

    #[test]
    fn value_nesting_counts_the_arguments_object_as_level_one() {
        let value = json!({"a": [{"b": 1}]});
        assert!(measure(&value, 3).is_some());
        assert_eq!(measure(&value, 2), None);
        assert!(measure(&json!(5), 0).is_some());
    }

    #[test]
    fn the_size_bound_is_never_below_the_compact_json_length() {
        let samples = [
            json!(null),
            json!({}),
            json!([]),
            json!({"text": "a \"quoted\"\n line\u{1}", "n": -1.7976931348623157e308}),
            json!({"list": [1, 2, [true, false, null]], "é": {"deeper": [u64::MAX, i64::MIN]}}),
            json!(["\\\\", "", {"": ""}]),
        ];
        for sample in samples {
            let exact = sample.to_string().len();
            let bound = measure(&sample, 64).unwrap();
            assert!(bound >= exact, "{sample}: bound {bound} < {exact}");
        }
    }

    #[test]
    fn serialized_length_is_exact_at_the_boundary() {
        let value = json!({"a": "x\n"}); // {"a":"x\n"} is 11 bytes
        assert!(!serialized_len_exceeds(&value, 11));
        assert!(serialized_len_exceeds(&value, 10));
    }

    #[test]
    fn a_limit_smaller_than_the_marker_still_holds() {
        let limits = Limits::default().with_max_output_bytes(10);
        let cut = Rendering::of(&limits).output(Value::String("é".repeat(100)));
        assert_eq!(cut, json!("ééééé"));
        let cut = Rendering::of(&limits).output(json!({"key": "value", "other": 1}));
        assert_eq!(cut, json!("{\"key\":\"va"));
    }

    #[test]
    fn a_truncated_result_fits_the_limit_with_its_marker() {
        let limits = Limits::default().with_max_output_bytes(60);
        let cut = Rendering::of(&limits).output(Value::String("é".repeat(100)));
        let text = cut.as_str().unwrap();
        assert_eq!(
            text,
            "éééééé... [output truncated: showing 12 of 200 bytes]"
        );
        assert!(text.len() <= 60, "{} bytes", text.len());
        assert_eq!(
            Rendering::of(&limits).output(json!({"short": true})),
            json!({"short": true})
        );
    }
}
