//! What a hostile or broken peer can send, and what the host does about it: each test is one of
//! the defects found when the project was tried as an attacker would (issue 14), kept fixed.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;
use toolkit::prelude::*;
use toolkit::schema::{InlineError, inline_refs};
use toolkit::schemars::{self, JsonSchema};

/// A tool whose closure panics while it makes its future, before `async move`.
fn panics_before_its_future() -> ToolProxy {
    ToolBuilder::new("early")
        .description("Panics before it returns a future")
        .parameters(json!({"type": "object", "properties": {"n": {"type": "integer"}}}))
        .build_async(|args| {
            let n = args
                .get("n")
                .and_then(Value::as_i64)
                .expect("the model sent no n");
            async move { Ok::<_, String>(n) }
        })
        .unwrap()
}

#[tokio::test]
async fn an_async_closure_that_panics_before_its_future_is_an_error_result() {
    let tool = panics_before_its_future();
    assert_eq!(
        tool.dynamic_acall(json!({})).await,
        json!("Error: tool early panicked: the model sent no n")
    );
    let toolbox = Toolbox::builder().tool(tool.clone()).build().unwrap();
    let result = toolbox.acall(&ToolCall::new("early", json!({}))).await;
    assert!(result.is_error);
    assert_eq!(tool.dynamic_acall(json!({"n": 4})).await, json!(4));
}

#[test]
fn the_same_panic_through_the_sync_bridge_is_an_error_result() {
    let tool = panics_before_its_future();
    let value = toolkit::allow_async_to_sync(|| tool.dynamic_call(json!({})));
    assert_eq!(
        value,
        json!("Error: tool early panicked: the model sent no n")
    );
}

#[test]
fn a_deadline_is_kept_on_a_runtime_built_without_timers() {
    let tool = ToolBuilder::new("forever")
        .description("Never answers")
        .build_async(|_| std::future::pending::<Result<Value, String>>())
        .unwrap()
        .with_options(|o| o.limits.timeout = Some(Duration::from_millis(50)));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let value = runtime.block_on(tool.dynamic_acall(json!({})));
    assert_eq!(
        value,
        json!(
            "Error: tool forever did not finish within its time limit of 50 ms and the call was \
             abandoned; try a smaller request or a different approach"
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_all_answers_every_call_when_one_panics() {
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    let counted = ToolBuilder::new("counted")
        .description("Counts its calls")
        .build_async(move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            async move { Ok::<_, String>("done") }
        })
        .unwrap();
    let toolbox = Toolbox::builder()
        .tool(counted)
        .tool(panics_before_its_future())
        .concurrency(1)
        .build()
        .unwrap();
    let calls: Vec<ToolCall> = (0..12)
        .map(|i| match i {
            5 => ToolCall::new("early", json!({})).with_id(format!("c{i}")),
            _ => ToolCall::new("counted", json!({})).with_id(format!("c{i}")),
        })
        .collect();
    let results = toolbox.call_all(calls).await;
    assert_eq!(results.len(), 12);
    assert_eq!(ran.load(Ordering::SeqCst), 11);
    for (i, result) in results.iter().enumerate() {
        assert_eq!(result.call_id.as_deref(), Some(format!("c{i}").as_str()));
        assert_eq!(result.is_error, i == 5, "{result:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_calls_abandoned_at_their_deadline_cannot_take_every_thread() {
    let slow = ToolBuilder::new("slow")
        .description("Takes two seconds")
        .build(|_| {
            std::thread::sleep(Duration::from_secs(2));
            Ok::<_, String>("late")
        })
        .unwrap()
        .with_options(|o| {
            o.limits.timeout = Some(Duration::from_millis(20));
            o.limits.max_threads = Some(4);
        });
    let calls = (0..10).map(|_| {
        let slow = slow.clone();
        async move { slow.dynamic_acall(json!({})).await }
    });
    let answers = futures_join(calls).await;
    // Six calls waited for a place until their own deadline: the four places were held by
    // calls that then ran past theirs.
    let busy = answers
        .iter()
        .filter(|a| {
            a.as_str()
                .is_some_and(|t| t.contains("is busy") || t.contains("is unavailable"))
        })
        .count();
    let timed_out = answers
        .iter()
        .filter(|a| a.as_str().is_some_and(|t| t.contains("did not finish")))
        .count();
    assert_eq!((timed_out, busy), (4, 6), "{answers:?}");
    // With every place held by an abandoned call, the next call is refused at once.
    let began = Instant::now();
    assert_eq!(
        slow.dynamic_acall(json!({})).await,
        json!(
            "Error: tool slow is unavailable: all 4 of its places are held by calls past their \
             time limit that are still running; try again later, or with a smaller request"
        )
    );
    assert!(began.elapsed() < Duration::from_secs(1));
    // Other tools still get threads at once.
    let quick = ToolBuilder::new("quick")
        .description("Answers at once")
        .build(|_| Ok::<_, String>("now"))
        .unwrap()
        .with_options(|o| o.limits.timeout = Some(Duration::from_secs(1)));
    assert_eq!(quick.dynamic_acall(json!({})).await, json!("now"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_beyond_the_thread_places_wait_for_one_instead_of_being_refused() {
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    let tool = ToolBuilder::new("count_words")
        .description("Counts words, slowly")
        .parameters(json!({"type": "object", "properties": {"text": {"type": "string"}}}))
        .build(move |args| {
            counter.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(5));
            let text = args.get("text").and_then(Value::as_str).unwrap_or("");
            Ok::<_, String>(text.split_whitespace().count())
        })
        .unwrap()
        .with_options(|o| {
            o.blocking = true;
            o.limits.max_threads = Some(2);
        });
    // 100 calls at once for 2 places, none with a deadline: each waits its turn.
    let calls = (0..100).map(|n| {
        let tool = tool.clone();
        async move {
            let text = vec!["word"; n % 7 + 1].join(" ");
            let answer = tool.dynamic_acall(json!({ "text": text })).await;
            json!([n % 7 + 1, answer])
        }
    });
    let answers = futures_join(calls).await;
    let wrong: Vec<&Value> = answers.iter().filter(|a| a[0] != a[1]).collect();
    assert!(wrong.is_empty(), "{wrong:?}");
    assert_eq!(ran.load(Ordering::SeqCst), 100);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_waits_too_long_for_a_place_says_how_long_it_waited() {
    let slow = ToolBuilder::new("slow")
        .description("Takes a second")
        .build(|_| {
            std::thread::sleep(Duration::from_secs(1));
            Ok::<_, String>("done")
        })
        .unwrap()
        .with_options(|o| {
            o.blocking = true;
            o.limits.max_threads = Some(1);
            o.limits.max_thread_wait = Some(Duration::from_millis(100));
        });
    let first = tokio::spawn({
        let slow = slow.clone();
        async move { slow.dynamic_acall(json!({})).await }
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    let refused = slow.acall(json!({})).await;
    let Err(ToolError::Busy {
        limit,
        running,
        overdue,
        waited,
        ..
    }) = refused
    else {
        panic!("expected a busy error: {refused:?}");
    };
    assert_eq!((limit, running, overdue), (1, 1, 0));
    assert!(waited >= Duration::from_millis(100), "{waited:?}");
    assert_eq!(first.await.unwrap(), json!("done"));
}

#[test]
fn argument_checks_of_sync_tools_run_on_the_pool_and_leave_the_async_thread_free() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tool = ToolBuilder::new("rows")
        .description("Counts rows")
        .parameters(json!({
            "type": "object",
            "properties": {"rows": {"type": "array", "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
                "required": ["id", "name"]
            }}},
            "required": ["rows"]
        }))
        .build(|args| Ok::<_, String>(args["rows"].as_array().map_or(0, Vec::len)))
        .unwrap()
        .with_options(|o| {
            o.blocking = true;
            o.limits.max_threads = Some(4);
        });
    // About 700 KB of arguments a call: tens of milliseconds to parse and check.
    let rows: Vec<Value> = (0..20_000)
        .map(|id| json!({"id": id, "name": "row"}))
        .collect();
    let text = json!({ "rows": rows }).to_string();
    runtime.block_on(async {
        let calls: Vec<_> = (0..24)
            .map(|_| {
                let (tool, text) = (tool.clone(), text.clone());
                tokio::spawn(async move { tool.dynamic_acall(Value::String(text)).await })
            })
            .collect();
        // The runtime's only thread, asked to wake up every millisecond meanwhile.
        let (mut longest, mut last) = (Duration::ZERO, Instant::now());
        while !calls.iter().all(|call| call.is_finished()) {
            tokio::time::sleep(Duration::from_millis(1)).await;
            longest = longest.max(last.elapsed());
            last = Instant::now();
        }
        for call in calls {
            assert_eq!(call.await.unwrap(), json!(20_000));
        }
        // Checked on that thread, the 24 checks kept it from waking for 1.9-2.3 s (debug
        // build); on the pool, it wakes within 14-28 ms. About 10x headroom either way.
        assert!(longest < Duration::from_millis(300), "{longest:?}");
    });
}

/// Awaits every future, in order (the tests avoid a dependency on `futures` for one join).
async fn futures_join<F: std::future::Future<Output = Value> + Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<Value> {
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

#[derive(Default)]
struct Shapes;

#[toolset(name = "shapes")]
impl Shapes {
    /// Count the items
    #[tool]
    fn count(&self, items: Vec<Value>) -> usize {
        items.len()
    }

    /// Echo the text
    #[tool(max_output_bytes = 200)]
    fn capped(&self, text: String) -> String {
        text
    }

    /// Echo the text
    #[tool(max_output_bytes = 10)]
    fn tiny(&self, text: String) -> String {
        text
    }
}

fn shapes(name: &str) -> ToolProxy {
    let tool = Shapes::to_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap();
    tool.with_options(|o| o.limits.max_depth = Some(8))
}

#[test]
fn max_depth_holds_for_arrays_sent_as_json_text() {
    let deep = format!("{}{}", "[".repeat(120), "]".repeat(120));
    assert_eq!(
        shapes("shapes_count").dynamic_call(json!({"items": deep})),
        json!(
            "Error: the arguments for shapes_count nest arrays or objects more than 8 levels \
             deep; send a flatter structure"
        )
    );
    assert_eq!(
        shapes("shapes_count").dynamic_call(json!({"items": "[[1], [2]]"})),
        json!(2)
    );
}

#[test]
fn error_results_are_cut_to_the_output_limit_too() {
    let mut arguments = serde_json::Map::new();
    for i in 0..20_000 {
        arguments.insert(format!("unknown_{i}"), json!(i));
    }
    let error = shapes("shapes_capped").dynamic_call(Value::Object(arguments));
    let text = error.as_str().unwrap();
    assert!(text.len() <= 200, "{} bytes", text.len());
    assert!(text.starts_with("Error: 21 problems with the arguments for shapes_capped:"));
    assert!(text.ends_with("bytes]"), "{text}");

    let tiny = shapes("shapes_tiny");
    assert_eq!(
        tiny.dynamic_call(json!({"text": "a".repeat(50)})),
        json!("aaaaaaaaaa")
    );
    let error = tiny.dynamic_call(json!({}));
    assert_eq!(error, json!("Error: mis"));
}

#[test]
fn a_huge_unknown_key_is_named_briefly() {
    let key = "k".repeat(900_000);
    let error = shapes("shapes_capped").dynamic_call(json!({"text": "x", key: 1}));
    assert_eq!(
        error,
        json!(format!(
            "Error: unknown argument \"{}...\" for shapes_capped",
            "k".repeat(60)
        ))
    );
}

#[test]
fn one_nameless_call_in_a_batch_does_not_stop_the_others() {
    let calls = ToolCalls::parse(&json!([
        {"name": "shapes_tiny", "arguments": {"text": "hi"}},
        {"id": "c2", "name": "", "arguments": {}},
        {"name": 7, "arguments": {}}
    ]))
    .unwrap();
    assert_eq!(calls.len(), 3);
    let toolbox = Toolbox::builder().toolset::<Shapes>().build().unwrap();
    let results: Vec<ToolCallResult> = calls.iter().map(|c| toolbox.call(c)).collect();
    assert_eq!(results[0].value, json!("hi"));
    assert_eq!(results[1].call_id.as_deref(), Some("c2"));
    assert_eq!(
        results[1].value,
        json!(
            "Error: could not read a tool call: a call names no tool; send \"name\" with one of: \
             shapes_count, shapes_capped, shapes_tiny"
        )
    );
    assert!(results[2].is_error);
    // Alone, a nameless call is still the parse error it always was.
    assert!(ToolCalls::parse(&json!({"name": 7, "args": {}})).is_err());
}

/// A tree whose nodes are one of two shapes, both with children: schemars writes an untagged
/// enum as `anyOf`, and a validator tries both branches at every level.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Node {
    Named { name: String, children: Vec<Node> },
    Numbered { number: i64, children: Vec<Node> },
}

#[derive(Default)]
struct Trees;

#[toolset(name = "trees")]
impl Trees {
    /// Count the nodes of a tree
    #[tool]
    fn size(&self, root: Node) -> usize {
        fn count(node: &Node) -> usize {
            match node {
                Node::Named { children, .. } | Node::Numbered { children, .. } => {
                    1 + children.iter().map(count).sum::<usize>()
                }
            }
        }
        count(&root)
    }
}

fn chain(depth: usize, leaf: Value) -> Value {
    let mut node = leaf;
    for _ in 0..depth {
        node = json!({"mislabelled": true, "children": [node]});
    }
    node
}

#[test]
fn nested_alternatives_are_refused_before_they_take_seconds() {
    let size = Trees::to_tools().remove(0);
    let started = Instant::now();
    assert_eq!(
        size.dynamic_call(json!({"root": chain(30, json!({"name": "leaf", "children": []}))})),
        json!(
            "Error: the arguments for trees_size are too complex to check: alternatives nest \
             too deeply in them; send a flatter structure"
        )
    );
    // A hang guard, not a speed measurement: unbounded, this takes hours.
    assert!(started.elapsed() < Duration::from_secs(20));
    let mut tree = json!({"name": "leaf", "children": []});
    for level in 0..6 {
        tree = json!({"number": level, "children": [tree.clone(), tree]});
    }
    assert_eq!(size.dynamic_call(json!({"root": tree})), json!(127));
}

#[test]
fn alternatives_nested_just_under_the_budget_are_reported_in_milliseconds() {
    let size = Trees::to_tools().remove(0);
    // 306 bytes, 13 levels of nodes that are neither form: within the budget of the check, and
    // its full error report doubles at every level (290 ms and 104 MB in a release build).
    let mut root = json!({"x": 1, "children": []});
    for _ in 0..13 {
        root = json!({"x": 1, "children": [root]});
    }
    let started = Instant::now();
    for _ in 0..5 {
        assert_eq!(
            size.dynamic_call(json!({ "root": root })),
            json!(
                "Error: invalid arguments for trees_size: root: expected one of: an object, an \
                 object; got an object with the keys \"x\", \"children\""
            )
        );
    }
    // Five reports in well under a second even in a debug build (each takes about a
    // millisecond); the full reports took seconds.
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "{:?}",
        started.elapsed()
    );
}

/// Definitions each pointing at the next, `count` deep.
fn reference_chain(count: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..count {
        defs.insert(
            format!("D{i}"),
            json!({"$ref": format!("#/$defs/D{}", i + 1)}),
        );
    }
    defs.insert(format!("D{count}"), json!({"type": "string"}));
    json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs})
}

#[test]
fn a_chain_of_thousands_of_references_is_an_error_not_a_crash() {
    // A small stack proves the inliner does not recurse once per reference.
    let inlined = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| inline_refs(&reference_chain(3_000)))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(inlined, Err(InlineError::TooDeep { limit: 128 }));
    assert_eq!(
        inline_refs(&reference_chain(10)).unwrap()["properties"]["x"],
        json!({"type": "string"})
    );
}

#[test]
fn a_schema_that_doubles_at_every_reference_is_refused_before_it_grows() {
    let mut defs = serde_json::Map::new();
    for i in 0..20 {
        let next = json!({"$ref": format!("#/$defs/D{}", i + 1)});
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"a": next, "b": next}}),
        );
    }
    defs.insert("D20".into(), json!({"type": "string"}));
    let schema = json!({"properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs});
    assert_eq!(
        inline_refs(&schema),
        Err(InlineError::TooLarge { limit: 100_000 })
    );
}
