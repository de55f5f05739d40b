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

fn tool(name: &str) -> ToolProxy {
    Types::to_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .expect("the tool exists")
}

/// The schema of the tool's one parameter `value`, what a successful call shows the method
/// received (its `Debug` form), and the error a bad call gets.
fn check(name: &str, schema: Value, ok: &[(Value, &str)], bad: &[(Value, &str)]) {
    let tool = tool(name);
    assert_eq!(
        tool.parameters()["properties"]["value"],
        schema,
        "schema of {name}"
    );
    for (value, received) in ok {
        let args = json!({ "value": value });
        assert_eq!(
            tool.dynamic_call(args.clone()),
            json!(received),
            "{name}({args})"
        );
    }
    for (value, error) in bad {
        let args = json!({ "value": value });
        assert_eq!(
            tool.dynamic_call(args.clone()),
            json!(error),
            "{name}({args})"
        );
    }
}

#[test]
fn string_is_a_json_string() {
    check(
        "t_string",
        json!({"type": "string"}),
        &[(json!("hi"), r#""hi""#), (json!(""), r#""""#)],
        &[(
            json!(5),
            "Error: invalid arguments for t_string: value: expected a string, got the number 5",
        )],
    );
}

#[test]
fn str_reference_is_accepted_in_signatures_as_a_string() {
    check(
        "t_str_ref",
        json!({"type": "string"}),
        &[(json!("héllo"), r#""héllo""#)],
        &[(
            json!(null),
            "Error: invalid arguments for t_str_ref: value: expected a string, got null",
        )],
    );
}

#[test]
fn char_is_a_string_of_exactly_one_character() {
    check(
        "t_char",
        json!({"type": "string", "minLength": 1, "maxLength": 1}),
        &[(json!("é"), "'é'")],
        &[
            (
                json!("ab"),
                r#"Error: invalid arguments for t_char: value: must be at most 1 character long, got the string "ab""#,
            ),
            (
                json!(""),
                r#"Error: invalid arguments for t_char: value: must be at least 1 character long, got the string """#,
            ),
        ],
    );
}

#[test]
fn bool_is_a_boolean_and_accepts_the_words_true_and_false() {
    check(
        "t_bool",
        json!({"type": "boolean"}),
        &[
            (json!(true), "true"),
            (json!("false"), "false"),
            (json!("True"), "true"),
        ],
        &[(
            json!("yes"),
            r#"Error: invalid arguments for t_bool: value: expected a boolean (true or false), got the string "yes""#,
        )],
    );
}

/// One test per integer type: the schema carries the type's range, the bounds are accepted, and
/// one past a bound is refused by validation (never wrapped or clamped).
macro_rules! integer_rows {
    ($($test:ident: $tool:literal, $min:expr, $max:expr, $below:expr, $above:expr;)*) => {$(
        #[test]
        fn $test() {
            let tool_name = concat!("t_", $tool);
            check(
                tool_name,
                json!({"type": "integer", "minimum": $min, "maximum": $max}),
                &[
                    (json!($min), &format!("{}", $min)),
                    (json!($max), &format!("{}", $max)),
                    (json!(format!("{}", $max)), &format!("{}", $max)),
                ],
                &[
                    (
                        json!($below),
                        &format!(
                            "Error: invalid arguments for {tool_name}: value: must be at least {}, got the number {}",
                            json!($min),
                            json!($below)
                        ),
                    ),
                    (
                        json!($above),
                        &format!(
                            "Error: invalid arguments for {tool_name}: value: must be at most {}, got the number {}",
                            json!($max),
                            json!($above)
                        ),
                    ),
                    (
                        json!("abc"),
                        &format!(
                            "Error: invalid arguments for {tool_name}: value: expected an integer, got the string \"abc\""
                        ),
                    ),
                ],
            );
        }
    )*};
}

integer_rows! {
    i8_carries_its_range: "i8", i8::MIN, i8::MAX, -129, 128;
    i16_carries_its_range: "i16", i16::MIN, i16::MAX, -32769, 32768;
    i32_carries_its_range: "i32", i32::MIN, i32::MAX, -2147483649i64, 2147483648i64;
    i64_carries_its_range: "i64", i64::MIN, i64::MAX, -1e19, 9223372036854775808u64;
    isize_carries_its_range: "isize", isize::MIN as i64, isize::MAX as i64, -1e19, 9223372036854775808u64;
    i128_carries_the_range_json_can_bring_it: "i128", i64::MIN, u64::MAX, -1e19, 1e20;
    u8_carries_its_range: "u8", 0, u8::MAX, -1, 256;
    u16_carries_its_range: "u16", 0, u16::MAX, -1, 65536;
    u32_carries_its_range: "u32", 0, u32::MAX, -1, 4294967296u64;
    u64_carries_its_range: "u64", 0, u64::MAX, -1, 1e20;
    usize_carries_its_range: "usize", 0, usize::MAX as u64, -1, 1e20;
    u128_carries_the_range_json_can_bring_it: "u128", 0, u64::MAX, -1, 1e20;
}

#[test]
fn f32_is_a_number_bounded_by_the_largest_f32() {
    check(
        "t_f32",
        json!({"type": "number", "minimum": -3.4028234663852886e38, "maximum": 3.4028234663852886e38}),
        &[
            (json!(2.5), "2.5"),
            (json!(3), "3.0"),
            (json!("2.5"), "2.5"),
        ],
        &[(
            json!(1e39),
            "Error: invalid arguments for t_f32: value: must be at most 3.4028234663852886e+38, got the number 1e+39",
        )],
    );
}

#[test]
fn f64_is_a_number() {
    check(
        "t_f64",
        json!({"type": "number"}),
        &[
            (json!(-0.125), "-0.125"),
            (json!(7), "7.0"),
            (json!(" 2.5 "), "2.5"),
        ],
        &[(
            json!("abc"),
            r#"Error: invalid arguments for t_f64: value: expected a number, got the string "abc""#,
        )],
    );
}

#[test]
fn vec_is_an_array_of_its_item_schema() {
    check(
        "t_vec",
        json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 4294967295u64}}),
        &[
            (json!([1, 2]), "[1, 2]"),
            (json!([]), "[]"),
            (json!("[3, \"4\"]"), "[3, 4]"),
        ],
        &[(
            json!([1, -2]),
            "Error: invalid arguments for t_vec: value[1]: must be at least 0, got the number -2",
        )],
    );
}

#[test]
fn vec_deque_is_an_array() {
    check(
        "t_vec_deque",
        json!({"type": "array", "items": {"type": "string"}}),
        &[(json!(["a", "b"]), r#"["a", "b"]"#)],
        &[(
            json!("a"),
            r#"Error: invalid arguments for t_vec_deque: value: expected an array, got the string "a""#,
        )],
    );
}

#[test]
fn hash_set_is_an_array_of_unique_items() {
    check(
        "t_hash_set",
        json!({"type": "array", "uniqueItems": true, "items": {"type": "string"}}),
        &[(json!(["b", "a"]), r#"{"a", "b"}"#)],
        &[(
            json!(["a", "a"]),
            "Error: invalid arguments for t_hash_set: value: items must be unique",
        )],
    );
}

#[test]
fn btree_set_is_an_array_of_unique_items() {
    check(
        "t_btree_set",
        json!({"type": "array", "uniqueItems": true, "items": {"type": "integer", "minimum": 0, "maximum": 4294967295u64}}),
        &[(json!([3, 1]), "{1, 3}")],
        &[(
            json!([1, 1]),
            "Error: invalid arguments for t_btree_set: value: items must be unique",
        )],
    );
}

#[test]
fn fixed_size_array_has_exactly_n_items() {
    check(
        "t_array",
        json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}, "minItems": 3, "maxItems": 3}),
        &[(json!([1, 2, 3]), "[1, 2, 3]")],
        &[
            (
                json!([1, 2]),
                "Error: invalid arguments for t_array: value: must have at least 3 items, got an array of 2 items",
            ),
            (
                json!([1, 2, 3, 4]),
                "Error: invalid arguments for t_array: value: must have at most 3 items, got an array of 4 items",
            ),
        ],
    );
}

#[test]
fn hash_map_with_string_keys_is_an_object_of_additional_properties() {
    check(
        "t_hash_map",
        json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 4294967295u64}}),
        &[
            (json!({"a": 1, "b": "2"}), r#"{"a": 1, "b": 2}"#),
            (json!({}), "{}"),
        ],
        &[(
            json!({"a": "x"}),
            r#"Error: invalid arguments for t_hash_map: value.a: expected an integer, got the string "x""#,
        )],
    );
}

#[test]
fn btree_map_with_string_keys_is_an_object_of_additional_properties() {
    check(
        "t_btree_map",
        json!({"type": "object", "additionalProperties": {"type": "boolean"}}),
        &[(
            json!({"b": true, "a": "false"}),
            r#"{"a": false, "b": true}"#,
        )],
        &[(
            json!({"a": 1}),
            "Error: invalid arguments for t_btree_map: value.a: expected a boolean (true or false), got the number 1",
        )],
    );
}

#[test]
fn tuple_is_an_array_with_one_schema_per_position() {
    check(
        "t_tuple",
        json!({
            "type": "array",
            "prefixItems": [{"type": "string"}, {"type": "integer", "minimum": 0, "maximum": 4294967295u64}],
            "minItems": 2,
            "maxItems": 2
        }),
        &[
            (json!(["a", 1]), r#"("a", 1)"#),
            (json!(["a", "1"]), r#"("a", 1)"#),
        ],
        &[
            (
                json!(["a", 1, 2]),
                "Error: invalid arguments for t_tuple: value: must have at most 2 items, got an array of 3 items",
            ),
            (
                json!([1, "a"]),
                "Error: 2 problems with the arguments for t_tuple:\n\
                 - value[0]: expected a string, got the number 1\n\
                 - value[1]: expected an integer, got the string \"a\"",
            ),
        ],
    );
}

#[test]
fn struct_honours_rename_rename_all_default_skip_and_flatten() {
    check(
        "t_profile",
        json!({
            "type": "object",
            "properties": {
                "fullName": {"type": "string", "description": "The full name"},
                "years": {"type": "integer", "minimum": 0, "maximum": 255},
                "loud": {"type": "boolean", "description": "Whether to shout", "default": false},
                "city": {"type": "string", "description": "The city"},
                "zip": {"type": ["string", "null"]}
            },
            "required": ["fullName", "years", "city"],
            "description": "Someone to greet."
        }),
        &[
            (
                json!({"fullName": "Ada", "years": 36, "city": "London"}),
                r#"Profile { full_name: "Ada", age: 36, loud: false, cache: None, address: Address { city: "London", zip: None } }"#,
            ),
            (
                json!({"fullName": "Ada", "years": "36", "loud": "true", "city": "London", "zip": "N1"}),
                r#"Profile { full_name: "Ada", age: 36, loud: true, cache: None, address: Address { city: "London", zip: Some("N1") } }"#,
            ),
        ],
        &[
            (
                json!({"fullName": "Ada", "years": 300}),
                "Error: 2 problems with the arguments for t_profile:\n\
                 - value: missing required field \"city\"\n\
                 - value.years: must be at most 255, got the number 300",
            ),
            (
                json!({"full_name": "Ada", "years": 3, "city": "x"}),
                r#"Error: invalid arguments for t_profile: value: missing required field "fullName" (got "full_name": did you mean "fullName"?)"#,
            ),
        ],
    );
}

#[test]
fn externally_tagged_enum_is_one_of_its_variant_shapes() {
    check(
        "t_shape",
        json!({
            "oneOf": [
                {"type": "string", "enum": ["Empty"]},
                {
                    "type": "object",
                    "properties": {
                        "Circle": {"type": "object", "properties": {"radius": {"type": "number"}}, "required": ["radius"]}
                    },
                    "required": ["Circle"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "properties": {"Square": {"type": "number"}},
                    "required": ["Square"],
                    "additionalProperties": false
                }
            ],
            "description": "Externally tagged (serde's default)."
        }),
        &[
            (json!({"Circle": {"radius": 1.5}}), "Circle { radius: 1.5 }"),
            (json!({"Square": 2}), "Square(2.0)"),
            (json!("Empty"), "Empty"),
            (json!("empty"), "Empty"),
        ],
        &[
            (
                json!({"Triangle": {}}),
                r#"Error: invalid arguments for t_shape: value: expected one of: the string "Empty", an object with the single key "Circle", an object with the single key "Square"; got an object with the key "Triangle""#,
            ),
            (
                json!({"Circle": {"radius": "big"}}),
                r#"Error: invalid arguments for t_shape: value.Circle.radius: expected a number, got the string "big""#,
            ),
        ],
    );
}

#[test]
fn internally_tagged_enum_carries_its_tag_as_a_constant() {
    check(
        "t_event",
        json!({
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "const": "click"},
                        "x": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647},
                        "y": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}
                    },
                    "required": ["kind", "x", "y"]
                },
                {
                    "type": "object",
                    "properties": {
                        "kind": {"type": "string", "const": "key_press"},
                        "key": {"type": "string", "minLength": 1, "maxLength": 1}
                    },
                    "required": ["kind", "key"]
                }
            ],
            "description": "Internally tagged."
        }),
        &[
            (
                json!({"kind": "click", "x": 1, "y": "2"}),
                "Click { x: 1, y: 2 }",
            ),
            (
                json!({"kind": "key_press", "key": "q"}),
                "KeyPress { key: 'q' }",
            ),
        ],
        &[
            (
                json!({"kind": "scroll"}),
                r#"Error: invalid arguments for t_event: value: expected one of: an object with "kind": "click", an object with "kind": "key_press"; got an object with "kind": "scroll""#,
            ),
            (
                json!({"kind": "click", "x": 1}),
                r#"Error: invalid arguments for t_event: value: missing required field "y""#,
            ),
        ],
    );
}

#[test]
fn adjacently_tagged_enum_has_a_tag_and_a_content_field() {
    check(
        "t_command",
        json!({
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string", "const": "Move"},
                        "args": {
                            "type": "object",
                            "properties": {"dx": {"type": "integer", "minimum": -2147483648, "maximum": 2147483647}},
                            "required": ["dx"]
                        }
                    },
                    "required": ["op", "args"]
                },
                {
                    "type": "object",
                    "properties": {"op": {"type": "string", "const": "Say"}, "args": {"type": "string"}},
                    "required": ["op", "args"]
                },
                {
                    "type": "object",
                    "properties": {"op": {"type": "string", "const": "Stop"}},
                    "required": ["op"]
                }
            ],
            "description": "Adjacently tagged."
        }),
        &[
            (json!({"op": "Say", "args": "hi"}), r#"Say("hi")"#),
            (json!({"op": "Move", "args": {"dx": -3}}), "Move { dx: -3 }"),
            (json!({"op": "Stop"}), "Stop"),
        ],
        &[(
            json!({"op": "Move", "args": {"dx": "far"}}),
            r#"Error: invalid arguments for t_command: value.args.dx: expected an integer, got the string "far""#,
        )],
    );
}

#[test]
fn untagged_enum_is_any_of_its_variant_shapes() {
    check(
        "t_id",
        json!({
            "anyOf": [{"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64}, {"type": "string"}],
            "description": "Untagged."
        }),
        &[
            (json!(7), "Number(7)"),
            (json!("abc"), r#"Name("abc")"#),
            (json!("7"), r#"Name("7")"#),
        ],
        &[(
            json!(true),
            "Error: invalid arguments for t_id: value: expected one of: an integer, a string; got the boolean true",
        )],
    );
}

#[test]
fn unit_enum_is_a_string_enum_and_forgives_case() {
    check(
        "t_priority",
        json!({"type": "string", "enum": ["low", "medium", "high"], "description": "How urgent something is."}),
        &[
            (json!("high"), "High"),
            (json!("HIGH"), "High"),
            (json!("Medium"), "Medium"),
        ],
        &[(
            json!("urgent"),
            r#"Error: invalid arguments for t_priority: value: expected one of "low", "medium", "high", got the string "urgent""#,
        )],
    );
}

#[test]
fn json_value_accepts_any_json() {
    check(
        "t_json",
        json!({}),
        &[
            (
                json!({"a": [1, null]}),
                r#"Object {"a": Array [Number(1), Null]}"#,
            ),
            (json!("5"), r#"String("5")"#),
            (json!(null), "Null"),
        ],
        &[],
    );
    assert_eq!(
        tool("t_json").dynamic_call(json!({})),
        json!(r#"Error: missing required argument "value" for t_json"#)
    );
}

#[test]
fn option_is_nullable_and_may_be_left_out() {
    let tool = tool("t_option");
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {"value": {"type": ["string", "null"]}},
            "additionalProperties": false
        })
    );
    assert_eq!(tool.dynamic_call(json!({})), json!("None"));
    assert_eq!(tool.dynamic_call(json!({"value": null})), json!("None"));
    assert_eq!(
        tool.dynamic_call(json!({"value": ""})),
        json!(r#"Some("")"#)
    );
    assert_eq!(
        tool.dynamic_call(json!({"value": 1})),
        json!(
            "Error: invalid arguments for t_option: value: expected a string or null, got the number 1"
        )
    );
}

#[test]
fn default_may_be_left_out_but_is_not_nullable_and_shows_its_value() {
    let trait_default = tool("t_default_trait");
    assert_eq!(
        trait_default.parameters(),
        &json!({
            "type": "object",
            "properties": {"value": {"type": "integer", "minimum": 0, "maximum": 4294967295u64, "default": 0}},
            "additionalProperties": false
        })
    );
    assert_eq!(trait_default.dynamic_call(json!({})), json!("0"));
    assert_eq!(trait_default.dynamic_call(json!({"value": 3})), json!("3"));
    // The schema does not allow null, but null is how an OpenAI strict-mode model says "not
    // given" (strict mode makes every property required): it means the default, not an error.
    assert_eq!(
        trait_default.dynamic_call(json!({"value": null})),
        json!("0")
    );

    let expr_default = tool("t_default_expr");
    assert_eq!(
        expr_default.parameters()["properties"]["value"],
        json!({"type": "integer", "minimum": 0, "maximum": 4294967295u64, "default": 10})
    );
    assert_eq!(expr_default.dynamic_call(json!({})), json!("10"));
    assert_eq!(expr_default.dynamic_call(json!({"value": 3})), json!("3"));
}

#[test]
fn required_option_is_nullable_but_must_be_sent() {
    let tool = tool("t_required_option");
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {"value": {"type": ["string", "null"]}},
            "required": ["value"],
            "additionalProperties": false
        })
    );
    assert_eq!(tool.dynamic_call(json!({"value": null})), json!("None"));
    assert_eq!(
        tool.dynamic_call(json!({"value": "x"})),
        json!(r#"Some("x")"#)
    );
    assert_eq!(
        tool.dynamic_call(json!({})),
        json!(r#"Error: missing required argument "value" for t_required_option"#)
    );
}

#[test]
fn recursive_type_keeps_one_defs_entry_and_everything_else_inline() {
    let node = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        },
        "required": ["name", "children"],
        "description": "A tree: the one truly recursive type."
    });
    let tool = tool("t_tree");
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {"value": node},
            "required": ["value"],
            "additionalProperties": false,
            "$defs": {"Node": node}
        })
    );
    assert_eq!(
        tool.dynamic_call(
            json!({"value": {"name": "a", "children": [{"name": "b", "children": []}]}})
        ),
        json!(r#"Node { name: "a", children: [Node { name: "b", children: [] }] }"#)
    );
    let deep = json!({"value": {"name": "a", "children": [{"name": "b", "children": [{"name": 1, "children": "[]"}]}]}});
    assert_eq!(
        tool.dynamic_call(deep),
        json!(
            "Error: invalid arguments for t_tree: value.children[0].children[0].name: expected a string, got the number 1"
        )
    );
}

#[test]
fn an_integer_beyond_what_json_carries_exactly_is_an_error_not_a_neighbour() {
    // serde_json reads this literal as the float nearest to it, which equals i64::MIN: passing
    // it on would hand the tool a number the model did not write.
    let tool = tool("t_i64");
    assert_eq!(
        tool.dynamic_call(r#"{"value": -9223372036854775809}"#),
        json!(
            "Error: invalid arguments for t_i64: value: expected an integer, got the number \
             -9.223372036854776e+18, which is beyond the integers a JSON number carries exactly"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// The schema rules, coercion and error reporting, beyond single rows.

/// A new account, with constraints schemars expresses and validation enforces.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read through `Debug`
struct Signup {
    /// Shown to other users
    #[schemars(length(min = 3, max = 20))]
    handle: String,
    #[schemars(email)]
    email: String,
    #[schemars(range(min = 13, max = 130))]
    age: u8,
    #[schemars(regex(pattern = r"^[A-Z]{2}$"))]
    country: String,
}

/// A parameter type that is `Deserialize` but not `Serialize`: its default cannot be shown.
#[derive(Debug, Default, Deserialize, JsonSchema)]
enum Manner {
    #[default]
    Polite,
    Blunt,
}

#[derive(Default)]
struct Rules;

#[toolset(name = "rules")]
impl Rules {
    /// Count the words of a text.
    ///
    /// # Arguments
    ///
    /// * `text` - the text to count
    /// * `limit` - stop after this many
    ///   words
    #[tool]
    fn count(&self, text: &str, #[arg(default = 100)] limit: usize) -> usize {
        text.split_whitespace().take(limit).count()
    }

    /// Greet someone, politely by default
    #[tool]
    fn greet(
        &self,
        #[arg(default = "Hello")] greeting: &str,
        #[arg(default)] manner: Manner,
    ) -> String {
        format!("{greeting} {manner:?}")
    }

    /// Register an account
    #[tool]
    fn signup(&self, account: Signup) -> String {
        format!("{account:?}")
    }

    /// Plan a route between two addresses
    #[tool]
    fn route(
        &self,
        /// Where to start
        from: Address,
        #[arg(description = "Where to end")] to: Address,
    ) -> String {
        format!("{} -> {}", from.city, to.city)
    }

    /// Mix every kind of value a model may send as a string
    #[tool]
    fn mix(
        &self,
        count: i64,
        ratio: f64,
        flag: bool,
        items: Vec<u8>,
        address: Address,
        priority: Priority,
    ) -> String {
        format!("{count:?} {ratio:?} {flag:?} {items:?} {address:?} {priority:?}")
    }

    /// The same, without coercion
    #[tool(strict)]
    fn mix_strict(
        &self,
        count: i64,
        ratio: f64,
        flag: bool,
        items: Vec<u8>,
        address: Address,
        priority: Priority,
    ) -> String {
        format!("{count:?} {ratio:?} {flag:?} {items:?} {address:?} {priority:?}")
    }
}

fn rules_tool(name: &str) -> ToolProxy {
    Rules::to_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .expect("the tool exists")
}

fn every_tool() -> Vec<ToolProxy> {
    let mut tools = Types::to_tools();
    tools.extend(Rules::to_tools());
    tools
}

/// Every `$ref` in `schema`, and whether a `$schema` or schemars `title` keyword appears.
fn walk(schema: &Value, refs: &mut Vec<String>, noise: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match key.as_str() {
                    "$ref" => refs.push(value.as_str().unwrap_or_default().to_owned()),
                    "$schema" | "title" => noise.push(key.clone()),
                    // String formats (`email`) are constraints; numeric ones are schemars noise.
                    "format" if map.get("type") != Some(&json!("string")) => {
                        noise.push(key.clone())
                    }
                    _ => {}
                }
                // Property names are names, not keywords.
                if key == "properties" || key == "$defs" {
                    if let Value::Object(children) = value {
                        children.values().for_each(|child| walk(child, refs, noise));
                    }
                } else if key != "enum" && key != "const" && key != "default" {
                    walk(value, refs, noise);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| walk(item, refs, noise)),
        _ => {}
    }
}

#[test]
fn schemas_are_self_contained_with_refs_only_for_true_recursion() {
    for tool in every_tool() {
        let (mut refs, mut noise) = (Vec::new(), Vec::new());
        walk(tool.parameters(), &mut refs, &mut noise);
        assert_eq!(noise, Vec::<String>::new(), "noise in {}", tool.name());
        let expected: Vec<String> = match tool.name() {
            "t_tree" => vec!["#/$defs/Node".into(); 2],
            _ => Vec::new(),
        };
        assert_eq!(refs, expected, "refs in {}", tool.name());
        assert_eq!(
            tool.parameters().get("$defs").is_some(),
            tool.name() == "t_tree",
            "$defs in {}",
            tool.name()
        );
        assert_eq!(
            tool.parameters()["type"],
            json!("object"),
            "{}",
            tool.name()
        );
        assert_eq!(
            tool.parameters()["additionalProperties"],
            json!(false),
            "additionalProperties at the root of {}",
            tool.name()
        );
    }
}

#[test]
fn a_type_used_twice_is_inlined_twice() {
    let address = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city"},
            "zip": {"type": ["string", "null"]}
        },
        "required": ["city"]
    });
    let mut from = address.clone();
    from["description"] = json!("Where to start");
    let mut to = address;
    to["description"] = json!("Where to end");
    assert_eq!(
        rules_tool("rules_route").parameters(),
        &json!({
            "type": "object",
            "properties": {"from": from, "to": to},
            "required": ["from", "to"],
            "additionalProperties": false
        })
    );
}

#[test]
fn schemas_are_the_same_bytes_every_time_and_match_the_golden_file() {
    let render = || -> String {
        let schemas: Vec<Value> = every_tool().iter().map(ToolProxy::schema).collect();
        serde_json::to_string_pretty(&schemas).expect("schemas are JSON") + "\n"
    };
    let first = render();
    assert_eq!(first, render());
    let golden = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/types_schemas.json"
    );
    if std::env::var_os("TOOLKIT_BLESS").is_some() {
        std::fs::write(golden, &first).expect("the fixture is writable");
    }
    let expected = std::fs::read_to_string(golden).expect("run once with TOOLKIT_BLESS=1");
    assert_eq!(
        first, expected,
        "schemas changed: review, then rerun with TOOLKIT_BLESS=1"
    );
}

#[test]
fn arguments_section_describes_parameters_and_leaves_the_description() {
    let tool = rules_tool("rules_count");
    assert_eq!(tool.description(), "Count the words of a text.");
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "the text to count"},
                "limit": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 18446744073709551615u64,
                    "description": "stop after this many words",
                    "default": 100
                }
            },
            "required": ["text"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        tool.dynamic_call(json!({"text": "a b c", "limit": 2})),
        json!(2)
    );
}

#[test]
fn field_doc_comments_and_parameter_docs_become_descriptions() {
    let parameters = rules_tool("rules_signup").parameters().clone();
    assert_eq!(
        parameters["properties"]["account"]["properties"]["handle"],
        json!({"type": "string", "minLength": 3, "maxLength": 20, "description": "Shown to other users"})
    );
    assert_eq!(
        parameters["properties"]["account"]["description"],
        json!("A new account, with constraints schemars expresses and validation enforces.")
    );
    let route = rules_tool("rules_route");
    assert_eq!(
        route.parameters()["properties"]["from"]["description"],
        json!("Where to start")
    );
}

#[test]
fn schemars_constraints_are_enforced_and_every_problem_is_named_at_once() {
    let tool = rules_tool("rules_signup");
    let ok = json!({"account": {"handle": "ada", "email": "ada@example.com", "age": 36, "country": "GB"}});
    assert_eq!(
        tool.dynamic_call(ok),
        json!(r#"Signup { handle: "ada", email: "ada@example.com", age: 36, country: "GB" }"#)
    );
    let bad = json!({
        "account": {"handle": "al", "email": "not-an-email", "age": 7, "country": "gb"},
        "acount": 1
    });
    assert_eq!(
        tool.dynamic_call(bad),
        json!(
            "Error: 5 problems with the arguments for rules_signup:\n\
             - unknown argument \"acount\"\n\
             - account.handle: must be at least 3 characters long, got the string \"al\"\n\
             - account.email: must be a valid email, got the string \"not-an-email\"\n\
             - account.age: must be at least 13, got the number 7\n\
             - account.country: must match the pattern \"^[A-Z]{2}$\", got the string \"gb\""
        )
    );
}

#[test]
fn missing_unknown_and_misspelled_arguments_read_as_one_line_each() {
    let tool = rules_tool("rules_count");
    assert_eq!(
        tool.dynamic_call(json!({})),
        json!(r#"Error: missing required argument "text" for rules_count"#)
    );
    assert_eq!(
        tool.dynamic_call(json!({"txt": "a b"})),
        json!(r#"Error: unknown argument "txt" for rules_count (did you mean "text"?)"#)
    );
    assert_eq!(
        tool.dynamic_call(json!({"text": "a", "verbose": true})),
        json!(r#"Error: unknown argument "verbose" for rules_count"#)
    );
    assert_eq!(
        tool.dynamic_call(json!({"text": 5, "limit": "many", "extra": 1})),
        json!(
            "Error: 3 problems with the arguments for rules_count:\n\
             - unknown argument \"extra\"\n\
             - text: expected a string, got the number 5\n\
             - limit: expected an integer, got the string \"many\""
        )
    );
}

#[test]
fn coercion_repairs_what_models_commonly_send_by_default() {
    let args = json!({
        "count": "5",
        "ratio": "2.5",
        "flag": "true",
        "items": "[1, 2]",
        "address": "{\"city\": \"Oslo\"}",
        "priority": "HIGH"
    });
    assert_eq!(
        rules_tool("rules_mix").dynamic_call(args),
        json!(r#"5 2.5 true [1, 2] Address { city: "Oslo", zip: None } High"#)
    );
    let whole_float = json!({
        "count": 5.0, "ratio": 1, "flag": false, "items": [], "address": {"city": "Rome"}, "priority": "low"
    });
    assert_eq!(
        rules_tool("rules_mix").dynamic_call(whole_float),
        json!(r#"5 1.0 false [] Address { city: "Rome", zip: None } Low"#)
    );
}

#[test]
fn coercion_never_turns_garbage_into_a_value() {
    let args = json!({
        "count": "abc",
        "ratio": "2.5.1",
        "flag": "yes",
        "items": "[1, 2",
        "address": "Oslo",
        "priority": "urgent"
    });
    assert_eq!(
        rules_tool("rules_mix").dynamic_call(args),
        json!(
            "Error: 6 problems with the arguments for rules_mix:\n\
             - count: expected an integer, got the string \"abc\"\n\
             - ratio: expected a number, got the string \"2.5.1\"\n\
             - flag: expected a boolean (true or false), got the string \"yes\"\n\
             - items: expected an array, got the string \"[1, 2\"\n\
             - address: expected an object, got the string \"Oslo\"\n\
             - priority: expected one of \"low\", \"medium\", \"high\", got the string \"urgent\""
        )
    );
    assert_eq!(
        rules_tool("rules_mix").dynamic_call(json!({
            "count": 2.5, "ratio": 1, "flag": true, "items": [], "address": {"city": "x"}, "priority": "low"
        })),
        json!("Error: invalid arguments for rules_mix: count: expected an integer, got the number 2.5")
    );
}

#[test]
fn strict_tools_take_arguments_exactly_as_the_schema_says() {
    let tool = rules_tool("rules_mix_strict");
    assert!(tool.options().strict);
    let lax = json!({
        "count": "5",
        "ratio": "2.5",
        "flag": "true",
        "items": "[1, 2]",
        "address": "{\"city\": \"Oslo\"}",
        "priority": "HIGH"
    });
    assert_eq!(
        tool.dynamic_call(lax),
        json!(
            "Error: 6 problems with the arguments for rules_mix_strict:\n\
             - count: expected an integer, got the string \"5\"\n\
             - ratio: expected a number, got the string \"2.5\"\n\
             - flag: expected a boolean (true or false), got the string \"true\"\n\
             - items: expected an array, got the string \"[1, 2]\"\n\
             - address: expected an object, got the string \"{\\\"city\\\": \\\"Oslo\\\"}\"\n\
             - priority: expected one of \"low\", \"medium\", \"high\", got the string \"HIGH\""
        )
    );
    let exact = json!({
        "count": 5, "ratio": 2.5, "flag": true, "items": [1, 2], "address": {"city": "Oslo"}, "priority": "high"
    });
    assert_eq!(
        tool.dynamic_call(exact),
        json!(r#"5 2.5 true [1, 2] Address { city: "Oslo", zip: None } High"#)
    );
}

#[test]
fn defaults_work_for_str_parameters_and_types_that_cannot_be_serialized() {
    let tool = rules_tool("rules_greet");
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "greeting": {"type": "string", "default": "Hello"},
                "manner": {
                    "type": "string",
                    "enum": ["Polite", "Blunt"],
                    "description": "A parameter type that is `Deserialize` but not `Serialize`: its default cannot be shown."
                }
            },
            "additionalProperties": false
        })
    );
    assert_eq!(tool.dynamic_call(json!({})), json!("Hello Polite"));
    assert_eq!(
        tool.dynamic_call(json!({"greeting": "Hi", "manner": "blunt"})),
        json!("Hi Blunt")
    );
}

#[test]
fn whole_floats_reach_integer_parameters_even_in_strict_mode() {
    // JSON Schema counts 5.0 as an integer, so strict validation lets it through; it must then
    // arrive as 5, not as a deserialization error that names a Rust type.
    let exact = json!({
        "count": 5.0, "ratio": 2.0, "flag": true, "items": [1.0, 2], "address": {"city": "Oslo"}, "priority": "high"
    });
    assert_eq!(
        rules_tool("rules_mix_strict").dynamic_call(exact),
        json!(r#"5 2.0 true [1, 2] Address { city: "Oslo", zip: None } High"#)
    );
}

/// Mutually recursive: a department has teams, a team has sub-departments.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // the names are part of the schema; the tool only counts
struct Department {
    name: String,
    teams: Vec<Team>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // as above
struct Team {
    lead: String,
    departments: Vec<Department>,
}

#[derive(Default)]
struct Org;

#[toolset(name = "org")]
impl Org {
    /// Count the departments of an organisation
    #[tool]
    fn count(&self, root: Department) -> usize {
        fn count(department: &Department) -> usize {
            1 + department
                .teams
                .iter()
                .flat_map(|team| &team.departments)
                .map(count)
                .sum::<usize>()
        }
        count(&root)
    }
}

#[test]
fn mutual_recursion_keeps_one_defs_entry_and_inlines_the_rest() {
    let tool = Org::to_tools().remove(0);
    let department = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "teams": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "lead": {"type": "string"},
                        "departments": {"type": "array", "items": {"$ref": "#/$defs/Department"}}
                    },
                    "required": ["lead", "departments"]
                }
            }
        },
        "required": ["name", "teams"]
    });
    let mut root = department.clone();
    root["description"] =
        json!("Mutually recursive: a department has teams, a team has sub-departments.");
    let mut defined = department;
    defined["description"] = root["description"].clone();
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {"root": root},
            "required": ["root"],
            "additionalProperties": false,
            "$defs": {"Department": defined}
        })
    );
    let org = json!({"root": {"name": "a", "teams": [{"lead": "x", "departments": [
        {"name": "b", "teams": []},
        {"name": "c", "teams": [{"lead": "y", "departments": [{"name": "d", "teams": "[]"}]}]}
    ]}]}});
    assert_eq!(tool.dynamic_call(org), json!(4));
    let bad = json!({"root": {"name": "a", "teams": [{"lead": "x", "departments": [{"name": 7, "teams": []}]}]}});
    assert_eq!(
        tool.dynamic_call(bad),
        json!(
            "Error: invalid arguments for org_count: root.teams[0].departments[0].name: expected a string, got the number 7"
        )
    );
}
