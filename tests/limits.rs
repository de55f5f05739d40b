//! Limits a schema cannot give: input size checked before parsing, nesting depth bounded without
//! recursion, output cut with a marker, and per-tool settings over toolbox defaults.

use std::time::Duration;

use toolkit::Limits;
use toolkit::prelude::*;

#[derive(Default)]
struct Echo;

#[toolset(name = "echo")]
impl Echo {
    /// Repeat the text
    #[tool(max_input_bytes = 32)]
    fn small(&self, text: String) -> String {
        text
    }

    /// Return the data as sent
    #[tool]
    fn data(&self, data: Value) -> Value {
        data
    }

    /// Repeat a letter
    #[tool(max_output_bytes = 64)]
    fn repeat(&self, letter: String, times: usize) -> String {
        letter.repeat(times)
    }

    /// A list of numbers
    #[tool]
    fn numbers(&self, count: u32) -> Vec<u32> {
        (0..count).collect()
    }
}

fn tool(name: &str) -> ToolProxy {
    Echo::to_tools()
        .into_iter()
        .find(|tool| tool.name() == name)
        .unwrap()
}

#[test]
fn input_at_the_limit_is_accepted_and_one_byte_over_is_rejected_before_parsing() {
    let small = tool("echo_small");
    let at_limit = r#"{"text": "abcdefghijklmnopqrst"}"#;
    assert_eq!(at_limit.len(), 32);
    assert_eq!(small.call(at_limit), Ok(json!("abcdefghijklmnopqrst")));

    // Not JSON at all: had it been parsed, the error would say so.
    let over_limit = "{".repeat(33);
    assert_eq!(
        small.dynamic_call(over_limit.as_str()),
        json!(
            "Error: the arguments for echo_small are larger than its limit of 32 bytes; send less \
             data, for example a shorter text or fewer items"
        )
    );
    let over_by_one = r#"{"text": "abcdefghijklmnopqrstu"}"#;
    assert_eq!(over_by_one.len(), 33);
    assert_eq!(
        small.call(over_by_one),
        Err(ToolError::InputTooLarge {
            tool: "echo_small".into(),
            limit: 32
        })
    );
}

#[test]
fn parsed_input_is_measured_by_its_compact_json() {
    let small = tool("echo_small");
    // {"text":"abcdefghijklmnopqrstu"} is 32 bytes compact, longer as pretty-printed text.
    let at_limit = json!({"text": "abcdefghijklmnopqrstu"});
    assert_eq!(at_limit.to_string().len(), 32);
    assert_eq!(small.call(at_limit), Ok(json!("abcdefghijklmnopqrstu")));
    assert_eq!(
        small.call(json!({"text": "abcdefghijklmnopqrstuv"})),
        Err(ToolError::InputTooLarge {
            tool: "echo_small".into(),
            limit: 32
        })
    );
}

#[test]
fn the_default_input_limit_is_one_mebibyte() {
    let data = tool("echo_data");
    let junk = "x".repeat(Limits::DEFAULT_MAX_INPUT_BYTES + 1);
    assert_eq!(
        data.call(junk.as_str()),
        Err(ToolError::InputTooLarge {
            tool: "echo_data".into(),
            limit: 1 << 20
        })
    );
    let padding = " ".repeat(Limits::DEFAULT_MAX_INPUT_BYTES - 11);
    let at_limit = format!(r#"{{"data": 1}}{padding}"#);
    assert_eq!(at_limit.len(), Limits::DEFAULT_MAX_INPUT_BYTES);
    assert_eq!(data.call(at_limit.as_str()), Ok(json!(1)));
}

/// Runs `body` on a thread with a deliberately small stack: anything recursive over the input
/// would overflow it and abort the test binary.
fn on_a_small_stack<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(body)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn deeply_nested_text_is_rejected_without_recursion() {
    let result = on_a_small_stack(|| {
        let depth = 1_000_000; // just under the 1 MiB input limit
        let nested = format!(r#"{{"data": {}}}"#, "[".repeat(depth));
        tool("echo_data").dynamic_call(nested.as_str())
    });
    assert_eq!(
        result,
        json!(
            "Error: the arguments for echo_data nest arrays or objects more than 64 levels deep; \
             send a flatter structure"
        )
    );
}

#[test]
fn brackets_inside_strings_are_text_not_nesting() {
    let text = "[".repeat(500);
    let toolbox = Toolbox::builder()
        .tool(tool("echo_small").with_options(|o| o.limits.max_input_bytes = None))
        .limits(Limits::default().with_max_depth(1))
        .build()
        .unwrap();
    let args = json!({ "text": text }).to_string();
    let result = toolbox.call(&ToolCall::new("echo_small", Value::String(args)));
    assert_eq!((result.value, result.is_error), (json!(text), false));
}

#[test]
fn nesting_at_the_depth_limit_is_accepted_and_one_level_more_is_not() {
    let toolbox = Toolbox::builder()
        .toolset::<Echo>()
        .limits(Limits::default().with_max_depth(3))
        .build()
        .unwrap();
    // The arguments object is level 1.
    let at_limit = toolbox.call(&ToolCall::new("echo_data", json!({"data": [[1]]})));
    assert_eq!((at_limit.value, at_limit.is_error), (json!([[1]]), false));
    let as_text = toolbox.call(&ToolCall::new(
        "echo_data",
        json!(r#"{"data": [[{"a": 1}]]}"#),
    ));
    assert_eq!(
        as_text.value,
        json!(
            "Error: the arguments for echo_data nest arrays or objects more than 3 levels deep; \
             send a flatter structure"
        )
    );
    let as_value = toolbox.call(&ToolCall::new("echo_data", json!({"data": [[{"a": 1}]]})));
    assert_eq!(as_value.value, as_text.value);
}

#[derive(Default)]
struct Shallow;

#[toolset]
impl Shallow {
    /// Return the data as sent
    #[tool(max_depth = 3)]
    fn data(&self, data: Value) -> Value {
        data
    }
}

#[test]
fn a_tools_own_max_depth_rejects_deeper_arguments_and_accepts_shallow_ones() {
    let tools = Shallow::to_tools();
    let data = &tools[0];
    assert_eq!(data.options().limits.max_depth, Some(3));
    // The arguments object is level 1.
    assert_eq!(data.call(json!({"data": [[1]]})), Ok(json!([[1]])));
    assert_eq!(
        data.call(json!({"data": [[{"a": 1}]]})),
        Err(ToolError::TooDeeplyNested {
            tool: "shallow_data".into(),
            limit: 3
        })
    );
    assert_eq!(
        data.dynamic_call(r#"{"data": [[[1]]]}"#),
        json!(
            "Error: the arguments for shallow_data nest arrays or objects more than 3 levels deep; \
             send a flatter structure"
        )
    );
}

#[test]
fn deeply_nested_parsed_input_is_rejected_by_an_iterative_walk() {
    let mut nested = json!(1);
    for _ in 0..10_000 {
        nested = Value::Array(vec![nested]);
    }
    let toolbox = Toolbox::builder().toolset::<Echo>().build().unwrap();
    let args = Value::Object([("data".to_owned(), nested)].into_iter().collect());
    let call = std::sync::Arc::new(ToolCall::new("echo_data", args));
    let borrowed = std::sync::Arc::clone(&call);
    let result = on_a_small_stack(move || toolbox.call(&borrowed));
    assert_eq!(
        result.value,
        json!(
            "Error: the arguments for echo_data nest arrays or objects more than 64 levels deep; \
             send a flatter structure"
        )
    );
    // serde_json drops a Value recursively; take this one apart by hand.
    let mut call = std::sync::Arc::into_inner(call).unwrap();
    let mut value = call.args["data"].take();
    while let Value::Array(mut items) = value {
        value = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn a_long_text_result_is_cut_to_the_limit_with_a_marker() {
    let repeat = tool("echo_repeat");
    assert_eq!(
        repeat.call(json!({"letter": "ab", "times": 1000})),
        Ok(json!(
            "abababababababab... [output truncated: showing 16 of 2000 bytes]"
        ))
    );
    assert_eq!(
        repeat.call(json!({"letter": "ab", "times": 32})),
        Ok(json!("ab".repeat(32))),
        "64 bytes fit exactly"
    );
}

#[test]
fn a_long_structured_result_becomes_its_cut_json_text() {
    let toolbox = Toolbox::builder()
        .toolset::<Echo>()
        .limits(Limits::default().with_max_output_bytes(70))
        .build()
        .unwrap();
    let result = toolbox.call(&ToolCall::new("echo_numbers", json!({"count": 100})));
    assert_eq!(
        result.value,
        json!("[0,1,2,3,4,5,6,7,8,9,10... [output truncated: showing 23 of 291 bytes]")
    );
    assert!(!result.is_error);
    let short = toolbox.call(&ToolCall::new("echo_numbers", json!({"count": 3})));
    assert_eq!(short.value, json!([0, 1, 2]));
}

#[test]
fn a_tools_own_limits_win_over_the_toolbox_defaults() {
    let toolbox = Toolbox::builder()
        .toolset::<Echo>()
        .limits(
            Limits::default()
                .with_max_input_bytes(30)
                .with_max_output_bytes(1000)
                .with_timeout(Duration::from_secs(5)),
        )
        .build()
        .unwrap();
    // echo_small says 32 bytes; echo_data takes the toolbox's 30.
    let small = toolbox.call(&ToolCall::new(
        "echo_small",
        json!({"text": "twenty-one characters"}),
    ));
    assert_eq!(small.value, json!("twenty-one characters"));
    let data = toolbox.call(&ToolCall::new(
        "echo_data",
        json!({"data": "twenty characters!!!"}),
    ));
    assert_eq!(
        data.value,
        json!(
            "Error: the arguments for echo_data are larger than its limit of 30 bytes; send less \
             data, for example a shorter text or fewer items"
        )
    );
    // echo_repeat's own 64-byte output limit wins over the toolbox's 1000.
    let repeat = toolbox.call(&ToolCall::new(
        "echo_repeat",
        json!({"letter": "x", "times": 100}),
    ));
    assert_eq!(
        repeat.value,
        json!("xxxxxxxxxxxxxxxxx... [output truncated: showing 17 of 100 bytes]")
    );
    let own = toolbox.get("echo_small").unwrap().options().limits;
    let resolved = own.over(*toolbox.limits());
    assert_eq!(
        (
            resolved.max_input_bytes(),
            resolved.max_output_bytes,
            resolved.timeout
        ),
        (32, Some(1000), Some(Duration::from_secs(5)))
    );
}
