//! The type mapping of `docs/types.md`, row by row: for each Rust parameter type, the exact JSON
//! Schema a model sees, a call that reaches the method with the right Rust value, and a call
//! that is refused with the exact error text the model reads.
//!
//! Every tool answers with the `Debug` form of what it received, so a successful call shows the
//! Rust value itself (`None` versus `Some("")`, `5` versus `5.0`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::schemars::{self, JsonSchema};

/// A postal address.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Address {
    /// The city
    city: String,
    zip: Option<String>,
}

/// Someone to greet.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Profile {
    /// The full name
    full_name: String,
    #[serde(rename = "years")]
    age: u8,
    /// Whether to shout
    #[serde(default)]
    loud: bool,
    #[serde(skip)]
    cache: Option<String>,
    #[serde(flatten)]
    address: Address,
}

/// Externally tagged (serde's default).
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Shape {
    Circle { radius: f64 },
    Square(f64),
    Empty,
}

/// Internally tagged.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Event {
    Click { x: i32, y: i32 },
    KeyPress { key: char },
}

/// Adjacently tagged.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", content = "args")]
enum Command {
    Move { dx: i32 },
    Say(String),
    Stop,
}

/// Untagged.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Id {
    Number(u64),
    Name(String),
}

/// How urgent something is.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    Medium,
    High,
}

/// A tree: the one truly recursive type.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Node {
    name: String,
    children: Vec<Node>,
}

#[derive(Default)]
struct Types;

#[toolset(name = "t")]
impl Types {
    #[tool(description = "Echo a string")]
    fn string(&self, value: String) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a str_ref")]
    fn str_ref(&self, value: &str) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a char")]
    fn char(&self, value: char) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a bool")]
    fn bool(&self, value: bool) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a i8")]
    fn i8(&self, value: i8) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a i16")]
    fn i16(&self, value: i16) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a i32")]
    fn i32(&self, value: i32) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a i64")]
    fn i64(&self, value: i64) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a i128")]
    fn i128(&self, value: i128) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a isize")]
    fn isize(&self, value: isize) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a u8")]
    fn u8(&self, value: u8) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a u16")]
    fn u16(&self, value: u16) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a u32")]
    fn u32(&self, value: u32) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a u64")]
    fn u64(&self, value: u64) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a u128")]
    fn u128(&self, value: u128) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a usize")]
    fn usize(&self, value: usize) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a f32")]
    fn f32(&self, value: f32) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a f64")]
    fn f64(&self, value: f64) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a vec")]
    fn vec(&self, value: Vec<u32>) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a vec_deque")]
    fn vec_deque(&self, value: VecDeque<String>) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a hash_set")]
    fn hash_set(&self, value: HashSet<String>) -> String {
        let sorted: BTreeSet<_> = value.into_iter().collect();
        format!("{sorted:?}")
    }
    #[tool(description = "Echo a btree_set")]
    fn btree_set(&self, value: BTreeSet<u32>) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a array")]
    fn array(&self, value: [u8; 3]) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a hash_map")]
    fn hash_map(&self, value: HashMap<String, u32>) -> String {
        let sorted: BTreeMap<_, _> = value.into_iter().collect();
        format!("{sorted:?}")
    }
    #[tool(description = "Echo a btree_map")]
    fn btree_map(&self, value: BTreeMap<String, bool>) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a tuple")]
    fn tuple(&self, value: (String, u32)) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a profile")]
    fn profile(&self, value: Profile) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a shape")]
    fn shape(&self, value: Shape) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a event")]
    fn event(&self, value: Event) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a command")]
    fn command(&self, value: Command) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a id")]
    fn id(&self, value: Id) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a priority")]
    fn priority(&self, value: Priority) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a json")]
    fn json(&self, value: Value) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a option")]
    fn option(&self, value: Option<String>) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a default_trait")]
    fn default_trait(&self, #[arg(default)] value: u32) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a default_expr")]
    fn default_expr(&self, #[arg(default = 10)] value: u32) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a required_option")]
    fn required_option(&self, #[arg(required)] value: Option<String>) -> String {
        format!("{value:?}")
    }
    #[tool(description = "Echo a tree")]
    fn tree(&self, value: Node) -> String {
        format!("{value:?}")
    }
}

#[test]
fn dump() {
    let calls: &[(&str, Value)] = &[
        ("t_string", json!({"value": "hi"})),
        ("t_string", json!({"value": 5})),
        ("t_str_ref", json!({"value": "héllo"})),
        ("t_str_ref", json!({"value": null})),
        ("t_char", json!({"value": "é"})),
        ("t_char", json!({"value": "ab"})),
        ("t_bool", json!({"value": true})),
        ("t_bool", json!({"value": "yes"})),
        ("t_i8", json!({"value": -128})),
        ("t_i8", json!({"value": 128})),
        ("t_i32", json!({"value": 2147483648u64})),
        ("t_i64", json!({"value": 9223372036854775808u64})),
        ("t_i128", json!({"value": -9223372036854775808i64})),
        ("t_i128", json!({"value": 18446744073709551615u64})),
        ("t_i128", json!({"value": 1e20})),
        ("t_u64", json!({"value": -1})),
        ("t_u64", json!({"value": 1e20})),
        ("t_u64", json!({"value": 18446744073709551616.0})),
        ("t_u32", json!({"value": 4294967296u64})),
        ("t_f32", json!({"value": 2.5})),
        ("t_f32", json!({"value": 1e39})),
        ("t_f64", json!({"value": "abc"})),
        ("t_vec", json!({"value": [1, -2]})),
        ("t_vec_deque", json!({"value": "a"})),
        ("t_hash_set", json!({"value": ["a", "a"]})),
        ("t_btree_set", json!({"value": [3, 1]})),
        ("t_btree_set", json!({"value": [1, 1]})),
        ("t_array", json!({"value": [1, 2, 3]})),
        ("t_array", json!({"value": [1, 2]})),
        ("t_hash_map", json!({"value": {"a": 1}})),
        ("t_hash_map", json!({"value": {"a": "x"}})),
        ("t_btree_map", json!({"value": {"b": true, "a": false}})),
        ("t_btree_map", json!({"value": {"a": 1}})),
        ("t_tuple", json!({"value": ["a", 1]})),
        ("t_tuple", json!({"value": ["a", 1, 2]})),
        ("t_tuple", json!({"value": [1, "a"]})),
        (
            "t_profile",
            json!({"value": {"fullName": "Ada", "years": 36, "city": "London"}}),
        ),
        (
            "t_profile",
            json!({"value": {"fullName": "Ada", "years": 300}}),
        ),
        (
            "t_profile",
            json!({"value": {"full_name": "Ada", "years": 3, "city": "x", "cache": "y"}}),
        ),
        ("t_shape", json!({"value": {"Circle": {"radius": 1.5}}})),
        ("t_shape", json!({"value": "Empty"})),
        ("t_shape", json!({"value": {"Square": 2}})),
        ("t_shape", json!({"value": {"Triangle": {}}})),
        ("t_shape", json!({"value": "empty"})),
        (
            "t_event",
            json!({"value": {"kind": "click", "x": 1, "y": 2}}),
        ),
        ("t_event", json!({"value": {"kind": "scroll"}})),
        ("t_command", json!({"value": {"op": "Say", "args": "hi"}})),
        ("t_command", json!({"value": {"op": "Stop"}})),
        (
            "t_command",
            json!({"value": {"op": "Move", "args": {"dx": "far"}}}),
        ),
        ("t_id", json!({"value": 7})),
        ("t_id", json!({"value": "abc"})),
        ("t_id", json!({"value": true})),
        ("t_priority", json!({"value": "HIGH"})),
        ("t_priority", json!({"value": "urgent"})),
        ("t_json", json!({"value": {"a": [1, null]}})),
        ("t_json", json!({})),
        ("t_option", json!({})),
        ("t_option", json!({"value": null})),
        ("t_option", json!({"value": "x"})),
        ("t_option", json!({"value": 1})),
        ("t_default_trait", json!({})),
        ("t_default_trait", json!({"value": null})),
        ("t_default_expr", json!({})),
        ("t_default_expr", json!({"value": 3})),
        ("t_required_option", json!({"value": null})),
        ("t_required_option", json!({})),
        (
            "t_tree",
            json!({"value": {"name": "a", "children": [{"name": "b", "children": []}]}}),
        ),
        (
            "t_tree",
            json!({"value": {"name": "a", "children": [{"name": "b", "children": [{"name": 1, "children": []}]}]}}),
        ),
    ];
    let tools = Types::to_tools();
    for (name, args) in calls {
        let tool = tools.iter().find(|t| t.name() == *name).unwrap();
        println!("{name} {args} => {}", tool.dynamic_call(args.clone()));
    }
    for tool in Types::to_tools() {
        println!(
            "{} {}",
            tool.name(),
            serde_json::to_string(&tool.parameters()).unwrap()
        );
    }
}
