//! A toolbox: built from toolsets and single tools, edited, and dispatching calls one at a time
//! or concurrently, with hooks and a tracing span per call.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use toolkit::prelude::*;
use toolkit::providers::Format;
use toolkit::{Limits, ToolboxError};

// Defined here rather than shared from tests/common: the duplicate-name errors below name the
// type by its path, `toolbox::TextStatsToolset`.
#[derive(Default)]
struct TextStatsToolset;

#[toolset(name = "stats")]
impl TextStatsToolset {
    /// Count whitespace-separated words
    #[tool]
    fn word_count(&self, text: String) -> usize {
        text.split_whitespace().count()
    }

    /// Count lines
    #[tool]
    fn line_count(&self, text: String) -> usize {
        text.lines().count()
    }
}

/// Counts how many of its calls run at the same time.
#[derive(Default)]
struct Maths {
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

#[toolset(name = "maths")]
impl Maths {
    /// Double a number, after letting other tasks run
    #[tool]
    async fn double(&self, n: u64) -> u64 {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_in_flight.fetch_max(now, Ordering::SeqCst);
        tokio::task::yield_now().await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        n * 2
    }

    /// Never answer
    #[tool(timeout_ms = 100)]
    async fn hang(&self) -> u64 {
        std::future::pending::<()>().await;
        0
    }

    /// Divide, panicking on zero
    #[tool]
    fn divide(&self, a: u64, b: u64) -> u64 {
        a / b
    }
}

fn single_tool() -> ToolProxy {
    TextStatsToolset::to_tools().remove(1)
}

#[test]
fn a_toolbox_holds_toolsets_and_single_tools_in_order() {
    let toolbox = Toolbox::builder()
        .toolset_instance(Arc::new(Maths::default()))
        .tool(TextStatsToolset::to_tools().remove(0))
        .build()
        .unwrap();
    assert_eq!(
        toolbox.names().collect::<Vec<_>>(),
        [
            "maths_double",
            "maths_hang",
            "maths_divide",
            "stats_word_count"
        ]
    );
    assert_eq!(toolbox.len(), 4);
    assert_eq!(
        toolbox.get("stats_word_count").map(ToolProxy::description),
        Some("Count whitespace-separated words")
    );
    assert!(toolbox.get("stats_line_count").is_none());
    let via_into_iter: Vec<&str> = (&toolbox).into_iter().map(ToolProxy::name).collect();
    assert_eq!(via_into_iter, toolbox.names().collect::<Vec<_>>());
}

#[test]
fn a_duplicate_name_is_an_error_naming_both_sources() {
    let err = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .tools("the MCP server at localhost", vec![single_tool()])
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool \"stats_line_count\" is defined twice: by toolset \"stats\" \
         (toolbox::TextStatsToolset) and by \"the MCP server at localhost\""
    );
    assert_eq!(
        err,
        ToolboxError::DuplicateTool {
            name: "stats_line_count".into(),
            first: "toolset \"stats\" (toolbox::TextStatsToolset)".into(),
            second: "\"the MCP server at localhost\"".into(),
        }
    );
}

#[test]
fn merge_remove_and_select_keep_the_order() {
    let stats = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .build()
        .unwrap();
    let maths = Toolbox::builder().toolset::<Maths>().build().unwrap();
    let mut all = stats.clone().merge(maths).unwrap();
    assert_eq!(
        all.names().collect::<Vec<_>>(),
        [
            "stats_word_count",
            "stats_line_count",
            "maths_double",
            "maths_hang",
            "maths_divide"
        ]
    );
    assert_eq!(
        all.remove("stats_line_count").map(|t| t.name().to_owned()),
        Some("stats_line_count".to_owned())
    );
    assert!(all.remove("stats_line_count").is_none());
    assert_eq!(
        all.get("maths_divide").map(ToolProxy::name),
        Some("maths_divide"),
        "the index follows the removal"
    );
    let subset = all.select(["maths_divide", "stats_word_count"]).unwrap();
    assert_eq!(
        subset.names().collect::<Vec<_>>(),
        ["stats_word_count", "maths_divide"]
    );
    assert_eq!(
        all.select(["maths_double", "web_search", "shell"])
            .unwrap_err()
            .to_string(),
        "no tool named \"web_search\", \"shell\" in this toolbox; it holds: stats_word_count, \
         maths_double, maths_hang, maths_divide"
    );
    assert_eq!(
        stats
            .merge(Toolbox::builder().tool(single_tool()).build().unwrap())
            .unwrap_err(),
        ToolboxError::DuplicateTool {
            name: "stats_line_count".into(),
            first: "toolset \"stats\" (toolbox::TextStatsToolset)".into(),
            second: "a tool added on its own".into(),
        }
    );
}

#[test]
fn an_unknown_tool_is_an_error_result_listing_the_available_names() {
    let toolbox = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .build()
        .unwrap();
    let result = toolbox.call(&ToolCall::new("stats_char_count", json!({})).with_id("call_9"));
    assert_eq!(
        result,
        ToolCallResult::new(
            Some("call_9".into()),
            "stats_char_count",
            json!(
                "Error: Unknown tool: stats_char_count. Available: stats_word_count, \
                 stats_line_count"
            ),
            true,
        )
    );
}

#[tokio::test]
async fn acall_dispatches_to_sync_and_async_tools() {
    let toolbox = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .toolset::<Maths>()
        .build()
        .unwrap();
    let words = toolbox
        .acall(&ToolCall::new("stats_word_count", json!(r#"{"text": "a b c"}"#)).with_id("1"))
        .await;
    assert_eq!(
        (words.call_id.as_deref(), words.value, words.is_error),
        (Some("1"), json!(3), false)
    );
    let doubled = toolbox
        .acall(&ToolCall::new("maths_double", json!({"n": 21})))
        .await;
    assert_eq!((doubled.value, doubled.is_error), (json!(42), false));
}

#[tokio::test]
async fn ten_thousand_calls_run_within_the_concurrency_limit_and_return_in_order() {
    let maths = Arc::new(Maths::default());
    let toolbox = Toolbox::builder()
        .toolset_instance(Arc::clone(&maths))
        .concurrency(8)
        .build()
        .unwrap();
    let calls: Vec<ToolCall> = (0..10_000u64)
        .map(|n| ToolCall::new("maths_double", json!({ "n": n })).with_id(format!("call_{n}")))
        .collect();
    let results = toolbox.call_all(calls).await;
    assert_eq!(results.len(), 10_000);
    for (n, result) in results.iter().enumerate() {
        assert_eq!(result.call_id, Some(format!("call_{n}")));
        assert_eq!((&result.value, result.is_error), (&json!(n * 2), false));
    }
    let most = maths.most_in_flight.load(Ordering::SeqCst);
    assert!(most <= 8, "{most} calls ran at once, over the limit of 8");
    assert!(most > 1, "the calls ran one at a time");
}

/// Records which thread ran each of its calls.
#[derive(Default)]
struct Threads {
    seen: Mutex<HashSet<std::thread::ThreadId>>,
}

#[toolset(name = "threads")]
impl Threads {
    /// Work for a millisecond without yielding
    #[tool]
    fn work(&self, n: u64) -> u64 {
        std::thread::sleep(std::time::Duration::from_millis(1));
        self.seen
            .lock()
            .unwrap()
            .insert(std::thread::current().id());
        n
    }
}

#[test]
fn a_batch_of_sync_calls_spreads_over_both_workers_from_a_task_and_from_block_on() {
    // Called from `block_on`, the calling thread is one of the workers; called from a task it
    // must not be: the worker it spawned last would wait in its thread's LIFO slot, which no
    // other thread steals, and two workers would run the batch on one thread.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let calls: Vec<ToolCall> = (0..100u64)
        .map(|n| ToolCall::new("threads_work", json!({ "n": n })))
        .collect();
    for from_a_task in [true, false] {
        let threads = Arc::new(Threads::default());
        let toolbox = Toolbox::builder()
            .toolset_instance(Arc::clone(&threads))
            .concurrency(2)
            .build()
            .unwrap();
        let batch = calls.clone();
        let run = async move { toolbox.call_all(batch).await };
        let results = if from_a_task {
            runtime.block_on(runtime.spawn(run)).unwrap()
        } else {
            runtime.block_on(run)
        };
        let values: Vec<Value> = results.into_iter().map(|result| result.value).collect();
        assert_eq!(values, (0..100u64).map(|n| json!(n)).collect::<Vec<_>>());
        let threads = threads.seen.lock().unwrap().len();
        assert_eq!(threads, 2, "from a task: {from_a_task}; threads: {threads}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_answers_every_call_by_its_own_id_and_after_hooks_see_each_call_whole() {
    // Calls run in chunks and a result takes its call's id and name when no hook reads them:
    // with a hook, the hook must still see the whole call, and without one every id must come
    // back on its own call, unknown tools (answered before the chunks run) included.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let hooked = Toolbox::builder()
        .toolset::<Maths>()
        .concurrency(4)
        .after_call(move |call, result| {
            let n = &call.args["n"];
            log.lock().unwrap().push((
                call.id.clone(),
                call.name.clone(),
                n.clone(),
                result.value.clone(),
            ));
        })
        .build()
        .unwrap();
    let plain = Toolbox::builder()
        .toolset::<Maths>()
        .concurrency(4)
        .build()
        .unwrap();
    let calls: Vec<ToolCall> = (0..1_000u64)
        .map(|n| {
            let name = if n % 7 == 3 {
                "maths_none"
            } else {
                "maths_double"
            };
            ToolCall::new(name, json!({ "n": n })).with_id(format!("call_{n}"))
        })
        .collect();
    for toolbox in [&plain, &hooked] {
        let results = toolbox.call_all(calls.clone()).await;
        assert_eq!(results.len(), calls.len());
        for (call, result) in calls.iter().zip(&results) {
            assert_eq!((&result.call_id, &result.name), (&call.id, &call.name));
            let n = call.args["n"].as_u64().unwrap();
            if n % 7 == 3 {
                assert!(result.is_error, "{result:?}");
            } else {
                assert_eq!((&result.value, result.is_error), (&json!(n * 2), false));
            }
        }
    }
    let mut seen = std::mem::take(&mut *seen.lock().unwrap());
    seen.sort_by_key(|(_, _, n, _)| n.as_u64());
    assert_eq!(seen.len(), calls.len());
    for ((id, name, n, value), call) in seen.into_iter().zip(&calls) {
        assert_eq!((&id, &name, &n), (&call.id, &call.name, &call.args["n"]));
        if name == "maths_double" {
            assert_eq!(value, json!(n.as_u64().unwrap() * 2));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_tool_times_out_and_a_panicking_one_fails_while_the_others_finish() {
    let toolbox = Toolbox::builder()
        .toolset::<Maths>()
        .concurrency(3)
        .build()
        .unwrap();
    let calls = vec![
        ToolCall::new("maths_double", json!({"n": 1})),
        ToolCall::new("maths_hang", json!({})),
        ToolCall::new("maths_divide", json!({"a": 1, "b": 0})),
        ToolCall::new("maths_divide", json!({"a": 9, "b": 3})),
        ToolCall::new("maths_nothing", json!({})),
        ToolCall::new("maths_double", json!({"n": "oops"})),
        ToolCall::new("maths_double", json!({"n": 4})),
    ];
    let results: Vec<(Value, bool)> = toolbox
        .call_all(calls)
        .await
        .into_iter()
        .map(|result| (result.value, result.is_error))
        .collect();
    assert_eq!(
        results,
        [
            (json!(2), false),
            (
                json!(
                    "Error: tool maths_hang did not finish within its time limit of 100 ms and \
                     the call was abandoned; try a smaller request or a different approach"
                ),
                true
            ),
            (
                json!("Error: tool maths_divide panicked: attempt to divide by zero"),
                true
            ),
            (json!(3), false),
            (
                json!(
                    "Error: Unknown tool: maths_nothing. Available: maths_double, maths_hang, \
                     maths_divide"
                ),
                true
            ),
            (
                json!(
                    "Error: invalid arguments for maths_double: n: expected an integer, got the \
                     string \"oops\""
                ),
                true
            ),
            (json!(8), false),
        ]
    );
}

#[tokio::test]
async fn before_hooks_refuse_calls_and_after_hooks_see_every_result() {
    let audit = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&audit);
    let toolbox = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .before_call(|call, _tool| match call.name.as_str() {
            "stats_word_count" => Ok(()),
            other => Err(format!("{other} is not on this agent's allow-list")),
        })
        .after_call(move |call, result| {
            log.lock()
                .unwrap()
                .push(format!("{} -> {}", call.name, result.value));
        })
        .after_call(|_call, result| {
            if let Value::String(text) = &mut result.value {
                *text = text.replace("secret", "[redacted]");
            }
        })
        .build()
        .unwrap();
    let refused = toolbox.call(&ToolCall::new("stats_line_count", json!({"text": "a"})));
    assert_eq!(
        (refused.value, refused.is_error),
        (
            json!(
                "Error: the call to stats_line_count was refused: stats_line_count is not on \
                 this agent's allow-list"
            ),
            true
        )
    );
    let results = toolbox
        .call_all(vec![
            ToolCall::new("stats_word_count", json!({"text": "one two"})),
            ToolCall::new("secret_tool", json!({})),
        ])
        .await;
    assert_eq!(results[0].value, json!(2));
    assert_eq!(
        results[1].value,
        json!(
            "Error: Unknown tool: [redacted]_tool. Available: stats_word_count, stats_line_count"
        )
    );
    assert_eq!(
        *audit.lock().unwrap(),
        [
            "stats_line_count -> \"Error: the call to stats_line_count was refused: \
             stats_line_count is not on this agent's allow-list\"",
            "secret_tool -> \"Error: Unknown tool: secret_tool. Available: stats_word_count, \
             stats_line_count\"",
            "stats_word_count -> 2",
        ]
    );
}

#[test]
fn a_panicking_hook_becomes_the_calls_error_result() {
    let toolbox = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .before_call(|_, _| panic!("the policy store is down"))
        .build()
        .unwrap();
    let result = toolbox.call(&ToolCall::new("stats_word_count", json!({"text": "a"})));
    assert_eq!(
        result.value,
        json!(
            "Error: tool stats_word_count panicked: the before-call hook panicked: the policy \
             store is down"
        )
    );
}

#[test]
fn toolbox_defaults_apply_to_every_call() {
    let toolbox = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .limits(Limits::default().with_max_input_bytes(10))
        .build()
        .unwrap();
    let result = toolbox.call(&ToolCall::new(
        "stats_word_count",
        json!({"text": "far too long"}),
    ));
    assert_eq!(
        result.value,
        json!(
            "Error: the arguments for stats_word_count are larger than its limit of 10 bytes; \
             send less data, for example a shorter text or fewer items"
        )
    );
}

/// A `tracing` subscriber that keeps the fields of every `tool_call` span.
#[derive(Clone, Default)]
struct SpanRecorder {
    spans: Arc<Mutex<HashMap<u64, HashMap<String, String>>>>,
    next_id: Arc<AtomicU64>,
}

struct FieldVisitor<'a>(&'a mut HashMap<String, String>);

impl tracing::field::Visit for FieldVisitor<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().into(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
}

impl tracing::Subscriber for SpanRecorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        if span.metadata().name() == "tool_call" {
            let mut fields = HashMap::new();
            span.record(&mut FieldVisitor(&mut fields));
            self.spans.lock().unwrap().insert(id, fields);
        }
        tracing::span::Id::from_u64(id)
    }

    fn record(&self, span: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        if let Some(fields) = self.spans.lock().unwrap().get_mut(&span.into_u64()) {
            values.record(&mut FieldVisitor(fields));
        }
    }

    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn every_call_emits_a_span_with_tool_name_duration_and_outcome() {
    let recorder = SpanRecorder::default();
    let toolbox = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .build()
        .unwrap();
    tracing::subscriber::with_default(recorder.clone(), || {
        toolbox.call(&ToolCall::new("stats_word_count", json!({"text": "a b"})).with_id("c1"));
        toolbox.call(&ToolCall::new("stats_word_count", json!({})).with_id("c2"));
        toolbox.call(&ToolCall::new("nope", json!({})));
        single_tool().call(json!({"text": "a"})).unwrap();
    });
    let mut spans: Vec<HashMap<String, String>> = {
        let spans = recorder.spans.lock().unwrap();
        let mut ids: Vec<_> = spans.keys().copied().collect();
        ids.sort();
        ids.into_iter().map(|id| spans[&id].clone()).collect()
    };
    for span in &mut spans {
        let duration = span.remove("duration_us").expect("a duration is recorded");
        assert!(duration.parse::<u64>().is_ok(), "{duration}");
    }
    let described: Vec<(Option<&str>, Option<&str>, Option<&str>)> = spans
        .iter()
        .map(|span| {
            (
                span.get("tool").map(String::as_str),
                span.get("call_id").map(String::as_str),
                span.get("outcome").map(String::as_str),
            )
        })
        .collect();
    assert_eq!(
        described,
        [
            (Some("stats_word_count"), Some("c1"), Some("ok")),
            (
                Some("stats_word_count"),
                Some("c2"),
                Some("invalid_arguments")
            ),
            (Some("nope"), None, Some("unknown_tool")),
            (Some("stats_line_count"), None, Some("ok")),
        ]
    );
}

fn strict_names(toolbox: &Toolbox) -> Vec<String> {
    let tools = toolbox
        .definitions(Format::OpenAiStrict)
        .expect("strict definitions");
    let tools = tools.as_array().expect("an array");
    tools
        .iter()
        .map(|tool| {
            tool["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn provider_definitions_are_rendered_once_and_renewed_when_the_tools_change() {
    let toolbox = Toolbox::builder()
        .toolset::<TextStatsToolset>()
        .build()
        .unwrap();
    // Asked again, and by a clone: the same rendering, not a new one.
    let first = toolbox.definitions(Format::OpenAiStrict).unwrap();
    assert!(std::ptr::eq(
        first,
        toolbox.definitions(Format::OpenAiStrict).unwrap()
    ));
    assert!(std::ptr::eq(
        toolbox.definitions(Format::Mcp).unwrap(),
        toolbox.clone().definitions(Format::Mcp).unwrap()
    ));
    assert_eq!(
        strict_names(&toolbox),
        ["stats_word_count", "stats_line_count"]
    );

    let mut smaller = toolbox.clone();
    smaller.remove("stats_word_count");
    assert_eq!(strict_names(&smaller), ["stats_line_count"]);
    assert_eq!(
        smaller
            .definitions(Format::Anthropic)
            .unwrap()
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    let selected = toolbox.select(["stats_word_count"]).unwrap();
    assert_eq!(strict_names(&selected), ["stats_word_count"]);

    let merged = smaller.merge(selected).unwrap();
    assert_eq!(
        strict_names(&merged),
        ["stats_line_count", "stats_word_count"]
    );
    assert_eq!(
        merged.definitions(Format::Gemini).unwrap()["functionDeclarations"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    // The original is untouched by what was done to its clones.
    assert_eq!(
        strict_names(&toolbox),
        ["stats_word_count", "stats_line_count"]
    );
}

#[test]
fn a_proxy_with_changed_options_renders_its_definitions_afresh() {
    let tool = single_tool();
    assert!(
        tool.definition_in(Format::Mcp)
            .unwrap()
            .get("annotations")
            .is_none()
    );
    let read_only = tool
        .clone()
        .with_options(|o| o.annotations.read_only = Some(true));
    assert_eq!(
        read_only.definition_in(Format::Mcp).unwrap()["annotations"],
        json!({"readOnlyHint": true})
    );
    assert!(
        tool.definition_in(Format::Mcp)
            .unwrap()
            .get("annotations")
            .is_none()
    );
}
