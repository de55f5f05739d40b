//! `ToolCalls::parse` and the JSON repair of argument strings, on any text.
//!
//! Invariants: nothing panics; every parsed call's arguments are an object or a string; the
//! repair answers an object, valid JSON objects as they are, or else the text unchanged;
//! a repairable argument string inside an OpenAI call reaches the call as its repair; and parsing
//! the calls written back out gives the same calls.

use serde_json::{Value, json};
use toolkit::ToolCalls;
use toolkit::providers::repair_arguments;

pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let repaired = repair_arguments(text);
    check_repair(text, &repaired);
    check_wrapped(text, &repaired);
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        check_parse(&value);
    }
}

fn check_repair(text: &str, repaired: &Value) {
    if let Ok(Value::Object(object)) = serde_json::from_str::<Value>(text) {
        assert_eq!(
            repaired,
            &Value::Object(object),
            "repair changed valid JSON"
        );
    }
    match repaired {
        Value::Object(_) => {}
        Value::String(kept) => assert_eq!(kept, text, "an unrepaired text did not come back whole"),
        other => panic!("the repair answered {other}, neither an object nor the text"),
    }
}

fn check_wrapped(text: &str, repaired: &Value) {
    let wrapped = json!({"type": "function", "function": {"name": "f", "arguments": text}});
    let Ok(calls) = ToolCalls::parse(&wrapped) else {
        return;
    };
    assert_eq!(calls.len(), 1, "one OpenAI call parsed as {calls:?}");
    assert_eq!(calls[0].name, "f");
    if repaired.is_object() {
        assert_eq!(
            &calls[0].args, repaired,
            "the call's arguments are not the repair"
        );
    }
}

fn check_parse(value: &Value) {
    let Ok(calls) = ToolCalls::parse(value) else {
        return;
    };
    for call in &calls {
        assert!(
            call.args.is_object() || call.args.is_string(),
            "call {:?} has arguments that are neither an object nor a string",
            call.name
        );
    }
    // Written back in the DSPy shape, the named calls with object arguments parse the same.
    let named: Vec<_> = calls
        .iter()
        .filter(|call| !call.name.is_empty() && call.args.is_object())
        .collect();
    let written: Vec<Value> = named
        .iter()
        .map(|call| json!({"name": call.name, "arguments": call.args}))
        .collect();
    let again = ToolCalls::parse(&Value::Array(written))
        .unwrap_or_else(|err| panic!("calls written back do not parse: {err}"));
    assert_eq!(again.len(), named.len());
    for (first, second) in named.iter().zip(&again) {
        assert_eq!((&first.name, &first.args), (&second.name, &second.args));
    }
}
