//! The typed path with state: a `#[toolset(state = T)]` tool called with a derived `T` reads its
//! state-filled parameters from the fields of `T` and merges its result into one, with no JSON
//! between them, and decides every call exactly as the JSON path does.

use std::cell::Cell;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Value, json};
use toolkit::prelude::*;

thread_local! {
    /// How often an `Owner` was serialised on this thread: the JSON path reads a state key by
    /// serialising it, the typed path clones it.
    static SERIALISED: Cell<usize> = const { Cell::new(0) };
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
struct Owner(String);

impl Serialize for Owner {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SERIALISED.with(|count| count.set(count.get() + 1));
        self.0.serialize(serializer)
    }
}

fn keep_max(current: &mut f64, new: f64) {
    *current = current.max(new);
}

#[derive(AgentState, Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Desk {
    owner: Owner,
    topic: Option<String>,
    notes: Vec<String>,
    #[state(replace)]
    latest: Vec<String>,
    #[state(merge = keep_max)]
    best: f64,
    count: u32,
    extra: Value,
}

#[derive(Default)]
struct Clerk;

#[toolset(name = "clerk", state = Desk)]
impl Clerk {
    /// Write a note in the owner's name
    #[tool(outputs_to_state(notes))]
    fn note(
        &self,
        #[arg(from_state)] owner: Owner,
        #[arg(from_state)] topic: Option<String>,
        text: String,
    ) -> String {
        format!("{}: {text} ({})", owner.0, topic.unwrap_or_default())
    }

    /// Add notes
    #[tool(outputs_to_state(notes))]
    fn notes(&self, texts: Vec<String>) -> Vec<String> {
        texts
    }

    /// Set the latest notes
    #[tool(outputs_to_state(latest))]
    fn latest(&self, texts: Vec<String>) -> Vec<String> {
        texts
    }

    /// Offer a score
    #[tool(outputs_to_state(best))]
    fn score(&self, score: f64) -> f64 {
        score
    }

    /// Count the topic's letters
    #[tool(outputs_to_state(count))]
    fn topic_length(&self, #[arg(from_state = "topic")] topic: String) -> u32 {
        topic.len() as u32
    }

    /// Read the extra value
    #[tool]
    fn extra(&self, #[arg(from_state)] extra: Value) -> Value {
        extra
    }

    /// Set the topic (an `Option` key takes a value of its inner type)
    #[tool(outputs_to_state(topic))]
    fn set_topic(&self, topic: String) -> String {
        topic
    }

    /// Remember any value
    #[tool(outputs_to_state(extra))]
    fn remember(&self, value: Value) -> Value {
        value
    }

    /// Refuse
    #[tool(outputs_to_state(count))]
    fn refuse(&self, #[arg(from_state)] count: u32) -> Result<u32, String> {
        Err(format!("refused at {count}"))
    }

    /// Panic
    #[tool(outputs_to_state(count))]
    fn explode(&self, #[arg(from_state)] count: u32) -> u32 {
        panic!("boom at {count}")
    }
}

/// The toolbox whose calls take the typed path.
fn typed() -> Toolbox {
    Toolbox::builder().toolset::<Clerk>().build().unwrap()
}

/// The same tools on the JSON path: a hook sees what that path fills, so with one every call
/// takes it.
fn json_path() -> Toolbox {
    Toolbox::builder()
        .toolset::<Clerk>()
        .before_call(|_, _| Ok(()))
        .build()
        .unwrap()
}

fn desk() -> Desk {
    Desk {
        owner: Owner("ada".into()),
        topic: Some("maths".into()),
        best: 0.5,
        ..Desk::default()
    }
}

#[test]
fn the_typed_path_reads_fields_without_serialising_them_and_merges_by_each_rule() {
    let toolbox = typed();
    let mut state = desk();
    let before = SERIALISED.with(Cell::get);
    let note = toolbox.call_with_state(
        &mut state,
        &ToolCall::new("clerk_note", json!({"text": "hello"})),
    );
    assert_eq!(note.value, json!("ada: hello (maths)"));
    assert_eq!(
        SERIALISED.with(Cell::get),
        before,
        "the owner was serialised"
    );

    for (tool, args) in [
        ("clerk_notes", json!({"texts": ["b", "c"]})),
        ("clerk_latest", json!({"texts": ["x"]})),
        ("clerk_latest", json!({"texts": ["y", "z"]})),
        ("clerk_score", json!({"score": 0.25})),
        ("clerk_score", json!({"score": 0.75})),
        ("clerk_topic_length", json!({})),
    ] {
        let result = toolbox.call_with_state(&mut state, &ToolCall::new(tool, args));
        assert!(!result.is_error, "{tool}: {}", result.value);
    }
    assert_eq!(state.notes, ["ada: hello (maths)", "b", "c"]);
    assert_eq!(state.latest, ["y", "z"]);
    assert_eq!((state.best, state.count), (0.75, 5));

    // The JSON path, for comparison, serialises the owner to read it.
    json_path().call_with_state(
        &mut state,
        &ToolCall::new("clerk_note", json!({"text": "again"})),
    );
    assert!(SERIALISED.with(Cell::get) > before);
}

#[test]
fn every_call_is_decided_as_the_json_path_decides_it() {
    let calls = [
        ("clerk_note", json!({"text": "hi"})),
        ("clerk_note", json!(r#"{"text": "as text"}"#)),
        ("clerk_note", json!({"text": "hi", "owner": "mallory"})),
        ("clerk_note", json!({"text": 5})),
        ("clerk_note", json!({"text": "hi", "other": 1})),
        ("clerk_note", json!({})),
        ("clerk_note", json!("{not json")),
        ("clerk_note", json!("  ")),
        ("clerk_note", json!(null)),
        ("clerk_note", json!([1])),
        ("clerk_notes", json!({"texts": "one"})),
        ("clerk_notes", json!({"texts": ["one", "two"]})),
        ("clerk_score", json!({"score": "0.9"})),
        ("clerk_score", json!({"score": 0.1})),
        ("clerk_topic_length", json!({})),
        ("clerk_extra", json!({})),
        ("clerk_set_topic", json!({"topic": "physics"})),
        ("clerk_topic_length", json!({})),
        ("clerk_note", json!({"text": "on topic"})),
        ("clerk_remember", json!({"value": null})),
        ("clerk_extra", json!({})),
        ("clerk_remember", json!({"value": [1, {"a": 2}]})),
        ("clerk_extra", json!({})),
        ("clerk_refuse", json!({})),
        ("clerk_explode", json!({})),
        ("clerk_unknown", json!({})),
    ];
    let states = [
        desk(),
        Desk::default(),
        Desk {
            topic: None,
            extra: json!({"k": 1}),
            count: 7,
            ..desk()
        },
    ];
    let (typed, json_path) = (typed(), json_path());
    for start in states {
        let (mut fast, mut slow) = (start.clone(), start.clone());
        for (tool, args) in &calls {
            let call = ToolCall::new(*tool, args.clone());
            let (a, b) = (
                typed.call_with_state(&mut fast, &call),
                json_path.call_with_state(&mut slow, &call),
            );
            assert_eq!((&a.value, a.is_error), (&b.value, b.is_error), "{call:?}");
            assert_eq!(fast, slow, "state after {call:?}");
        }
    }
}

#[tokio::test]
async fn the_async_call_with_state_takes_the_same_path() {
    let toolbox = typed();
    let mut state = desk();
    let before = SERIALISED.with(Cell::get);
    let call = ToolCall::new("clerk_note", json!({"text": "async"}));
    let result = toolbox.acall_with_state(&mut state, &call).await;
    assert_eq!(result.value, json!("ada: async (maths)"));
    assert_eq!(SERIALISED.with(Cell::get), before);
    assert_eq!(state.notes, ["ada: async (maths)"]);
}
