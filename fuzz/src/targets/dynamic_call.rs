//! `dynamic_call` on a toolset whose parameters cover every supported type, with any JSON (or
//! any text) as arguments.
//!
//! Invariants: nothing panics; a call answers with a value or an `"Error: ..."` string; the
//! answer fits `max_output_bytes`; a call takes well under a second; and the typed fast path
//! answers exactly as the same call forced through the validator (`always_validate`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::OnceLock;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolkit::prelude::*;

use super::input::{assert_within_output_cap, split_first, within};

/// The output cap every tool here has.
const CAP: usize = 2_000;

/// A struct with a rename, a default, a flattened part and an optional field.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    full_name: String,
    #[serde(rename = "years")]
    age: u8,
    #[serde(default)]
    loud: bool,
    #[serde(flatten)]
    address: Address,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Address {
    city: String,
    zip: Option<String>,
}

/// Externally tagged (serde's default).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub enum Shape {
    Circle { radius: f64 },
    Square(f64),
    Empty,
}

/// Internally tagged.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Click { x: i32, y: i32 },
    KeyPress { key: char },
}

/// Adjacently tagged.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", content = "args")]
pub enum Command {
    Move { dx: i32 },
    Say(String),
}

/// Untagged, and recursive through both variants (the case that once took seconds).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Node {
    Branch { children: Vec<Node>, label: String },
    Leaf { children: Vec<Node> },
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    Medium,
    High,
}

#[derive(Default)]
pub struct Everything;

#[toolset(name = "all")]
impl Everything {
    /// Scalars
    #[tool]
    #[allow(clippy::too_many_arguments)]
    fn scalars(
        &self,
        s: String,
        c: char,
        b: bool,
        i8v: i8,
        u16v: u16,
        i64v: i64,
        u64v: u64,
        f32v: f32,
        f64v: f64,
        #[arg(default = 7)] defaulted: i32,
        maybe: Option<String>,
    ) -> String {
        format!("{s:?} {c:?} {b} {i8v} {u16v} {i64v} {u64v} {f32v} {f64v} {defaulted} {maybe:?}")
    }

    /// Collections
    #[tool]
    #[allow(clippy::too_many_arguments)]
    fn collections(
        &self,
        list: Vec<i32>,
        deque: VecDeque<String>,
        set: HashSet<u8>,
        sorted: BTreeSet<i16>,
        map: HashMap<String, i64>,
        sorted_map: BTreeMap<String, Vec<bool>>,
        pair: (u32, String),
        array: [u8; 3],
    ) -> String {
        let set: BTreeSet<_> = set.into_iter().collect();
        let map: BTreeMap<_, _> = map.into_iter().collect();
        format!("{list:?} {deque:?} {set:?} {sorted:?} {map:?} {sorted_map:?} {pair:?} {array:?}")
    }

    /// Structs and enums
    #[tool]
    fn shapes(
        &self,
        profile: Profile,
        shape: Shape,
        event: Event,
        command: Command,
        priority: Priority,
        #[arg(required)] note: Option<Priority>,
    ) -> String {
        format!("{profile:?} {shape:?} {event:?} {command:?} {priority:?} {note:?}")
    }

    /// Recursive and free-form values
    #[tool]
    fn tree(&self, root: Node, extra: Value, #[arg(default)] tags: Vec<String>) -> Value {
        serde_json::json!({"root": format!("{root:?}"), "extra": extra, "tags": tags})
    }

    /// Async, to cover the async bridge
    #[tool]
    async fn later(&self, n: u32, text: Option<String>) -> Result<String, String> {
        if n.is_multiple_of(7) {
            return Err(format!("n is a multiple of 7: {n}"));
        }
        Ok(text.unwrap_or_default().repeat((n % 5) as usize))
    }
}

/// Each tool twice: as it comes, and forced through the validator.
fn tools() -> &'static [(ToolProxy, ToolProxy)] {
    static TOOLS: OnceLock<Vec<(ToolProxy, ToolProxy)>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        Everything::to_tools()
            .into_iter()
            .map(|tool| {
                let tool = tool.with_options(|o| o.limits.max_output_bytes = Some(CAP));
                let validated = tool.clone().with_options(|o| o.always_validate = true);
                (tool, validated)
            })
            .collect()
    })
}

pub fn run(data: &[u8]) {
    let Some((selector, rest)) = split_first(data) else {
        return;
    };
    let tools = tools();
    let (tool, validated) = &tools[selector as usize % tools.len()];
    let text = String::from_utf8_lossy(rest).into_owned();
    // Arguments as JSON text (parsed by the tool) and, where it is JSON, as a parsed value.
    let mut argument_forms = vec![Value::String(text.clone())];
    argument_forms.extend(serde_json::from_str::<Value>(&text).ok());
    for args in argument_forms {
        let answer = within(tool.name(), LIMIT, || dynamic_call(tool, args.clone()));
        assert_within_output_cap(&answer, CAP);
        let checked = within(tool.name(), LIMIT, || call(validated, args));
        match checked {
            // The validated call's value, unless it was too long and the answer is it cut.
            Ok(value) => assert!(
                answer == value || (answer.is_string() && size(&value) > CAP),
                "the fast path answered {answer} where the validator gave {value}"
            ),
            Err(err) => {
                let text = err.to_model_string();
                let Value::String(answer) = answer else {
                    panic!("a call the validator refused ({text}) answered {answer}");
                };
                if text.len() <= CAP {
                    assert_eq!(answer, text, "the fast path and the validator disagree");
                } else {
                    assert!(answer.starts_with("Error: "), "a cut error lost its prefix");
                }
            }
        }
    }
}

/// How long one call may take, on a loaded machine.
const LIMIT: Duration = Duration::from_secs(2);

fn dynamic_call(tool: &ToolProxy, args: Value) -> Value {
    if tool.is_async() {
        super::input::runtime().block_on(tool.dynamic_acall(args))
    } else {
        tool.dynamic_call(args)
    }
}

fn call(tool: &ToolProxy, args: Value) -> Result<Value, ToolError> {
    if tool.is_async() {
        super::input::runtime().block_on(tool.acall(args))
    } else {
        tool.call(args)
    }
}

fn size(value: &Value) -> usize {
    match value {
        Value::String(text) => text.len(),
        other => other.to_string().len(),
    }
}
