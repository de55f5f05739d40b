//! The typed fast path decides exactly as the full pipeline: for random JSON near each tool's
//! schema (valid arguments, then mutated: a value swapped for an awkward one, a key dropped,
//! added or duplicated), a call that may take the fast path and the same call forced through the
//! validator (`ToolOptions::always_validate`) return the same result or the same error text,
//! from JSON text and from a `Value`. The tools echo their typed parameters, so a value read
//! differently shows too.

use std::collections::{BTreeMap, HashSet};
use std::num::NonZeroU32;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::schemars::{self, JsonSchema};

#[derive(Serialize, Deserialize, JsonSchema)]
struct Order {
    id: u32,
    customer: Customer,
    lines: Vec<Line>,
    priority: Priority,
    note: Option<String>,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Customer {
    name: String,
    vip: bool,
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Line {
    sku: String,
    quantity: u16,
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind")]
enum Shape {
    Circle { r: f64 },
    Square { side: u8 },
}

#[derive(Serialize, Deserialize, JsonSchema)]
enum External {
    A(u32),
    B { x: i8 },
    C,
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Untagged {
    N(i64),
    S(String),
}

#[derive(Default)]
struct Echo;

#[toolset(name = "echo")]
#[allow(clippy::too_many_arguments)]
impl Echo {
    /// Primitive parameters
    #[tool]
    fn primitives(
        &self,
        a: u8,
        b: i16,
        c: u32,
        d: i64,
        e: u64,
        f: usize,
        h: f64,
        j: bool,
        s: &str,
    ) -> Value {
        json!([a, b, c, d, e, f, h, j, s])
    }

    /// Optional, defaulted and required-optional parameters
    #[tool]
    fn optional(
        &self,
        l: Option<u16>,
        #[arg(default = 3)] t: i32,
        #[arg(required)] r: Option<String>,
        v: Option<Value>,
        #[arg(default)] w: Value,
    ) -> Value {
        json!([l, t, r, v, w])
    }

    /// A nested order
    #[tool]
    fn nested(&self, order: Order) -> Order {
        order
    }

    /// Enums of every tagging
    #[tool]
    fn enums(&self, p: Shape, q: External, u: Untagged) -> Value {
        json!([p, q, u])
    }

    /// Maps, nested lists and tuples
    #[tool]
    fn collections(&self, m: BTreeMap<String, i32>, k: Vec<Vec<u8>>, o: (u8, String)) -> Value {
        json!([m, k, o])
    }

    /// No parameters
    #[tool]
    fn nothing(&self) -> &'static str {
        "nothing"
    }

    /// An async tool
    #[tool]
    async fn later(&self, a: u8, s: Option<String>) -> Value {
        json!([a, s])
    }

    /// Types whose schema says more than serde enforces: never on the fast path
    #[tool]
    fn constrained(&self, i: char, n: HashSet<u8>, z: NonZeroU32, g: f32) -> Value {
        let mut n: Vec<u8> = n.into_iter().collect();
        n.sort();
        json!([i, n, z, g])
    }
}

fn tool(name: &str) -> ToolProxy {
    Echo::to_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .expect("tool exists")
}

/// Values that sit on the edges of what the parameters' types accept.
fn awkward() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(255)),
        Just(json!(256)),
        Just(json!(-129)),
        Just(json!(65536)),
        Just(json!(4294967296u64)),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
        Just(json!(5.0)),
        Just(json!(2.5)),
        Just(json!(1e39)),
        Just(json!("21")),
        Just(json!("5.0")),
        Just(json!("true")),
        Just(json!("[1, 2]")),
        Just(json!("")),
        Just(json!("é")),
        Just(json!(true)),
        Just(json!([])),
        Just(json!([1, "a"])),
        Just(json!({})),
        Just(json!({"kind": "Square", "side": 3})),
        Just(json!({"B": {"x": 1}})),
        Just(json!("C")),
    ]
}

/// Replaces a random value somewhere in `value` (a member, an item, or the value itself).
fn replace_somewhere(value: &mut Value, mut pick: usize, with: Value) {
    match value {
        Value::Object(map) if !map.is_empty() && !pick.is_multiple_of(3) => {
            let index = pick % map.len();
            pick /= 7;
            if let Some(inner) = map.values_mut().nth(index) {
                replace_somewhere(inner, pick, with);
            }
        }
        Value::Array(items) if !items.is_empty() && !pick.is_multiple_of(3) => {
            let index = pick % items.len();
            replace_somewhere(&mut items[index], pick / 7, with);
        }
        _ => *value = with,
    }
}

/// A mutation of valid arguments, as a `Value` and as JSON text (which can also repeat a key).
fn mutated(valid: Value) -> impl Strategy<Value = (Value, String)> {
    (0..6u8, any::<usize>(), awkward(), "[a-z]{1,2}").prop_map(move |(kind, pick, with, key)| {
        let mut args = valid.clone();
        let names: Vec<String> = args
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let mut text = None;
        match kind {
            0 => {}
            1 | 2 => replace_somewhere(&mut args, pick, with),
            3 => {
                if let (Some(name), Some(map)) =
                    (names.get(pick % names.len().max(1)), args.as_object_mut())
                {
                    map.remove(name);
                }
            }
            4 => {
                if let Some(map) = args.as_object_mut() {
                    map.insert(key, with);
                }
            }
            _ => {
                if let Some(name) = names.get(pick % names.len().max(1)) {
                    let rest = serde_json::to_string(&args).expect("serializes");
                    text = Some(format!("{{{:?}: {}, {}", name, with, &rest[1..]));
                }
            }
        }
        let text = text.unwrap_or_else(|| serde_json::to_string(&args).expect("serializes"));
        (args, text)
    })
}

fn assert_same(name: &str, args: &Value, text: &str) {
    let fast = tool(name);
    let full = fast.clone().with_options(|o| o.always_validate = true);
    assert!(!full.__takes_fast_path());
    let expected = full.dynamic_call(text);
    assert_eq!(fast.dynamic_call(text), expected, "{name} from text {text}");
    assert_eq!(
        fast.dynamic_call(args.clone()),
        full.dynamic_call(args.clone()),
        "{name} from value {args}"
    );
}

fn valid_primitives() -> Value {
    json!({"a": 7, "b": -300, "c": 70000, "d": -5, "e": 5, "f": 9, "h": 0.5, "j": true, "s": "hé"})
}

fn valid_optional() -> Value {
    json!({"l": 4, "t": 9, "r": "here", "v": {"any": [1]}, "w": "w"})
}

fn valid_nested() -> Value {
    json!({"order": {
        "id": 42,
        "customer": {"name": "Ada", "vip": true},
        "lines": [{"sku": "PEN-1", "quantity": 3}, {"sku": "INK-7", "quantity": 1}],
        "priority": "high",
        "note": null
    }})
}

fn valid_enums() -> Value {
    json!({"p": {"kind": "Circle", "r": 1.5}, "q": {"A": 3}, "u": "text"})
}

fn valid_collections() -> Value {
    json!({"m": {"x": 1, "y": -2}, "k": [[1, 2], []], "o": [3, "three"]})
}

fn valid_constrained() -> Value {
    json!({"i": "c", "n": [1, 2], "z": 4, "g": 1.5})
}

#[test]
fn tools_whose_schema_the_types_enforce_take_the_fast_path_and_others_do_not() {
    for name in [
        "echo_primitives",
        "echo_optional",
        "echo_nested",
        "echo_enums",
        "echo_collections",
        "echo_nothing",
        "echo_later",
    ] {
        assert!(tool(name).__takes_fast_path(), "{name}");
    }
    assert!(!tool("echo_constrained").__takes_fast_path());
}

#[test]
fn valid_arguments_give_the_same_result_on_both_paths() {
    for (name, args) in [
        ("echo_primitives", valid_primitives()),
        ("echo_optional", valid_optional()),
        ("echo_nested", valid_nested()),
        ("echo_enums", valid_enums()),
        ("echo_collections", valid_collections()),
        ("echo_nothing", json!({})),
        ("echo_constrained", valid_constrained()),
    ] {
        let text = args.to_string();
        assert_same(name, &args, &text);
        assert!(
            !tool(name).dynamic_call(text).to_string().contains("Error"),
            "{name}"
        );
    }
}

#[test]
fn an_async_tool_decides_the_same_on_both_paths() {
    let fast = tool("echo_later");
    let full = fast.clone().with_options(|o| o.always_validate = true);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for text in [
        r#"{"a": 1, "s": "x"}"#,
        r#"{"a": 256}"#,
        r#"{"a": "7"}"#,
        r#"{"a": 1, "a": 2}"#,
    ] {
        let (fast, full) = rt.block_on(async {
            (
                fast.dynamic_acall(text).await,
                full.dynamic_acall(text).await,
            )
        });
        assert_eq!(fast, full, "{text}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn primitives_decide_the_same((args, text) in mutated(valid_primitives())) {
        assert_same("echo_primitives", &args, &text);
    }

    #[test]
    fn optional_parameters_decide_the_same((args, text) in mutated(valid_optional())) {
        assert_same("echo_optional", &args, &text);
    }

    #[test]
    fn nested_structs_decide_the_same((args, text) in mutated(valid_nested())) {
        assert_same("echo_nested", &args, &text);
    }

    #[test]
    fn enums_decide_the_same((args, text) in mutated(valid_enums())) {
        assert_same("echo_enums", &args, &text);
    }

    #[test]
    fn collections_decide_the_same((args, text) in mutated(valid_collections())) {
        assert_same("echo_collections", &args, &text);
    }

    #[test]
    fn constrained_types_decide_the_same((args, text) in mutated(valid_constrained())) {
        assert_same("echo_constrained", &args, &text);
    }

    #[test]
    fn any_text_decides_the_same(text in "\\PC{0,40}") {
        for name in ["echo_nothing", "echo_primitives", "echo_optional"] {
            let fast = tool(name);
            let full = fast.clone().with_options(|o| o.always_validate = true);
            prop_assert_eq!(fast.dynamic_call(text.as_str()), full.dynamic_call(text.as_str()));
        }
    }
}
