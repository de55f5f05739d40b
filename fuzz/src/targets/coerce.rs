//! Coercion and validation directly: a tool built at run time from any schema, called with any
//! arguments. The input is the schema's JSON, a NUL byte, then the arguments.
//!
//! Invariants: nothing panics and no call takes long; what reaches the body is an object;
//! coercion is idempotent (calling again with what the body got gives the body the same);
//! arguments a strict tool accepts reach a lax tool unchanged (coercion repairs only what would
//! fail); and a refused call is an `Error: ...` string.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};
use toolkit::{ToolBuilder, ToolProxy};

use super::input::{split_nul, within};

const LIMIT: Duration = Duration::from_secs(2);

/// A tool on `schema` whose body records the arguments it was given.
fn recording_tool(schema: &Value, strict: bool) -> Option<(ToolProxy, Arc<Mutex<Option<Value>>>)> {
    let seen = Arc::new(Mutex::new(None));
    let record = Arc::clone(&seen);
    let tool = ToolBuilder::new("probe")
        .description("Records its arguments")
        .parameters(schema.clone())
        .build(move |args: Map<String, Value>| {
            if let Ok(mut seen) = record.lock() {
                *seen = Some(Value::Object(args));
            }
            Ok::<_, String>(Value::Bool(true))
        })
        .ok()?
        .with_options(|o| o.strict = strict);
    Some((tool, seen))
}

/// What the body received from one call, or the error text; `None` when the body never ran.
fn reached(tool: &ToolProxy, seen: &Mutex<Option<Value>>, args: Value) -> Result<Value, String> {
    if let Ok(mut seen) = seen.lock() {
        *seen = None;
    }
    let answer = within("a call", LIMIT, || tool.dynamic_call(args));
    let received = seen.lock().ok().and_then(|mut seen| seen.take());
    match received {
        Some(args) => {
            assert_eq!(
                answer,
                Value::Bool(true),
                "the body ran but the call failed"
            );
            assert!(args.is_object(), "the body got {args}");
            Ok(args)
        }
        None => match answer {
            Value::String(text) if text.starts_with("Error: ") => Err(text),
            other => panic!("the body did not run, yet the call answered {other}"),
        },
    }
}

pub fn run(data: &[u8]) {
    let (schema, args) = split_nul(data);
    let Ok(schema) = serde_json::from_slice::<Value>(schema) else {
        return;
    };
    let args = String::from_utf8_lossy(args).into_owned();
    let args = serde_json::from_str::<Value>(&args).unwrap_or(Value::String(args));
    let Some((lax, lax_seen)) = recording_tool(&schema, false) else {
        return;
    };
    let Some((strict, strict_seen)) = recording_tool(&schema, true) else {
        panic!("a schema built a lax tool but not a strict one");
    };
    let lax_got = reached(&lax, &lax_seen, args.clone());
    if let Ok(got) = &lax_got {
        let again = reached(&lax, &lax_seen, got.clone());
        assert_eq!(
            again.as_ref(),
            Ok(got),
            "coercing coerced arguments changed them"
        );
    }
    if let Ok(got) = reached(&strict, &strict_seen, args) {
        assert_eq!(
            lax_got,
            Ok(got),
            "coercion changed arguments that were already valid"
        );
    }
}
