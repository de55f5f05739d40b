//! Agent state: merge rules, dynamic state, filling parameters from state and writing results.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolkit::ToolDefinition;
use toolkit::prelude::*;
use toolkit::state::{
    AgentState, DynamicState, MergeRule, StateError, StateKey, StateSchema, StateWiring,
    merge_into, merge_list_into,
};

fn keep_max(current: &mut Value, new: Value) -> Result<(), String> {
    let (Some(old), Some(new_number)) = (current.as_f64().or(Some(f64::MIN)), new.as_f64()) else {
        return Err(format!("{new} is not a number"));
    };
    if new_number > old {
        *current = new;
    }
    Ok(())
}

fn research_schema() -> StateSchema {
    StateSchema::new()
        .key("repository", json!({"type": "string"}))
        .key(
            "documents",
            json!({"type": "array", "items": {"type": "string"}}),
        )
        .key_with_rule("hits", json!({"type": "array"}), MergeRule::Replace)
        .key_with_rule(
            "best",
            json!({"type": "number"}),
            MergeRule::Custom(keep_max),
        )
}

fn research() -> DynamicState {
    DynamicState::new(research_schema())
}

// --- Merge rules ---

#[test]
fn a_list_written_to_a_list_key_is_concatenated() {
    let mut state = research();
    state.merge("documents", json!(["a", "b"])).unwrap();
    state.merge("documents", json!(["c"])).unwrap();
    assert_eq!(
        state.read("documents").unwrap(),
        Some(json!(["a", "b", "c"]))
    );
}

#[test]
fn a_single_value_written_to_a_list_key_is_appended() {
    let mut state = research();
    state.merge("documents", json!("a")).unwrap();
    state.merge("documents", json!("b")).unwrap();
    assert_eq!(state.read("documents").unwrap(), Some(json!(["a", "b"])));
}

#[test]
fn a_replace_key_takes_the_new_value_even_for_lists() {
    let mut state = research();
    state.merge("hits", json!([1, 2])).unwrap();
    state.merge("hits", json!([3])).unwrap();
    state.merge("repository", json!("one")).unwrap();
    state.merge("repository", json!("two")).unwrap();
    assert_eq!(state.to_json(), json!({"hits": [3], "repository": "two"}));
}

#[test]
fn a_custom_merge_decides_the_value_and_its_refusal_leaves_state_unchanged() {
    let mut state = research();
    state.merge("best", json!(0.5)).unwrap();
    state.merge("best", json!(0.2)).unwrap();
    assert_eq!(state.read("best").unwrap(), Some(json!(0.5)));
    let err = state.merge("best", json!("high")).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"the value for state key "best" could not be merged: "high" is not a number"#
    );
    assert_eq!(state.read("best").unwrap(), Some(json!(0.5)));
}

#[test]
fn a_value_that_does_not_fit_the_key_schema_is_refused_and_changes_nothing() {
    let mut state = research();
    state.merge("documents", json!("a")).unwrap();
    let err = state.merge("documents", json!(3)).unwrap_err();
    assert!(
        matches!(err, StateError::Mismatch { ref key, .. } if key == "documents"),
        "{err}"
    );
    assert_eq!(state.read("documents").unwrap(), Some(json!(["a"])));
}

#[test]
fn an_undeclared_key_is_an_error_naming_it_and_the_declared_keys() {
    let mut state = research();
    let expected = r#"state has no key "docs"; declared keys: repository, documents, hits, best"#;
    assert_eq!(
        state.merge("docs", json!("a")).unwrap_err().to_string(),
        expected
    );
    assert_eq!(state.read("docs").unwrap_err().to_string(), expected);
}

#[test]
fn dynamic_state_says_whether_a_merge_would_succeed_without_merging() {
    let mut state = research();
    state.merge("documents", json!(["a"])).unwrap();
    assert_eq!(state.accepts("documents", &json!("b")), Ok(()));
    assert!(state.accepts("documents", &json!(3)).is_err());
    assert!(state.accepts("docs", &json!([])).is_err());
    assert_eq!(state.read("documents").unwrap(), Some(json!(["a"])));
}

#[test]
fn the_default_rule_is_lists_for_array_schemas_and_replace_for_the_rest() {
    let keys: Vec<(String, MergeRule)> = research()
        .keys()
        .into_iter()
        .map(|StateKey { name, rule, .. }| (name, rule))
        .collect();
    assert_eq!(
        keys,
        [
            ("repository".to_string(), MergeRule::Replace),
            ("documents".to_string(), MergeRule::Lists),
            ("hits".to_string(), MergeRule::Replace),
            ("best".to_string(), MergeRule::Custom(keep_max)),
        ]
    );
}

#[test]
fn dynamic_state_survives_a_serde_round_trip() {
    let mut state = research();
    state.merge("repository", json!("toolkit")).unwrap();
    state.merge("documents", json!(["a"])).unwrap();
    let saved = serde_json::to_string(&state).unwrap();
    assert_eq!(saved, r#"{"repository":"toolkit","documents":["a"]}"#);
    let restored =
        DynamicState::restore(research_schema(), serde_json::from_str(&saved).unwrap()).unwrap();
    assert_eq!(restored, state);
}

#[test]
fn restoring_saved_state_with_an_undeclared_key_is_refused() {
    let err = DynamicState::restore(research_schema(), json!({"other": 1})).unwrap_err();
    assert!(matches!(err, StateError::UndeclaredKey { ref key, .. } if key == "other"));
}

// --- A typed state, written by hand over `merge_into` ---

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Research {
    repository: String,
    documents: Vec<String>,
}

impl AgentState for Research {
    fn read(&self, key: &str) -> Result<Option<Value>, StateError> {
        match key {
            "repository" => Ok(Some(json!(self.repository))),
            "documents" => Ok(Some(json!(self.documents))),
            other => Err(StateError::UndeclaredKey {
                key: other.into(),
                declared: vec!["repository".into(), "documents".into()],
            }),
        }
    }

    fn merge(&mut self, key: &str, value: Value) -> Result<(), StateError> {
        match key {
            "repository" => merge_into(key, &mut self.repository, MergeRule::Replace, value),
            "documents" => merge_list_into(key, &mut self.documents, value),
            other => Err(StateError::UndeclaredKey {
                key: other.into(),
                declared: self.keys().into_iter().map(|k| k.name).collect(),
            }),
        }
    }

    fn keys(&self) -> Vec<StateKey> {
        let key = |name: &str, schema, rule| StateKey {
            name: name.into(),
            schema,
            rule,
        };
        vec![
            key("repository", json!({"type": "string"}), MergeRule::Replace),
            key("documents", json!({"type": "array"}), MergeRule::Lists),
        ]
    }

    fn to_json(&self) -> Value {
        json!(self)
    }
}

#[test]
fn a_typed_state_merges_lists_and_refuses_values_of_the_wrong_type() {
    let mut state = Research::default();
    state.merge("documents", json!(["a", "b"])).unwrap();
    state.merge("documents", json!("c")).unwrap();
    let err = state
        .merge("documents", json!({"not": "a string"}))
        .unwrap_err();
    assert!(matches!(err, StateError::Mismatch { .. }), "{err}");
    assert_eq!(state.documents, ["a", "b", "c"]);
    let saved = serde_json::to_string(&state).unwrap();
    assert_eq!(serde_json::from_str::<Research>(&saved).unwrap(), state);
}

// --- Tools with state ---

/// `search(repository, owner?, query)` returning what it received, wired as `wiring` says.
fn search(wiring: StateWiring) -> Toolbox {
    let schema = json!({
        "type": "object",
        "properties": {
            "repository": {"type": "string"},
            "owner": {"type": "string"},
            "query": {"type": "string"}
        },
        "required": ["repository", "query"]
    });
    let definition = ToolDefinition::new("search", "Search", schema);
    let tool = ToolProxy::from_fn(definition, |args| {
        if args["query"] == "fail" {
            return Err("the search failed".to_string());
        }
        Ok(json!({"received": args, "found": [format!("{}:{}", args["repository"].as_str().unwrap_or("?"), args["query"].as_str().unwrap_or("?"))]}))
    })
    .with_state(wiring)
    .unwrap();
    Toolbox::builder().tool(tool).build().unwrap()
}

fn with_repository() -> DynamicState {
    let mut state = DynamicState::new(
        StateSchema::new()
            .key("repository", json!({"type": "string"}))
            .key("owner", json!({"type": "string"}))
            .key("documents", json!({"type": "array"})),
    );
    state.merge("repository", json!("toolkit")).unwrap();
    state.merge("owner", json!("state-owner")).unwrap();
    state
}

#[test]
fn a_state_filled_parameter_is_read_from_state_and_a_field_of_the_result_is_merged() {
    let toolbox = search(
        StateWiring::new()
            .input("repository")
            .output_field("found", "documents"),
    );
    let mut state = with_repository();
    let call = ToolCall::new("search", json!({"query": "merge"}));
    let first = toolbox.call_with_state(&mut state, &call);
    let second = toolbox.call_with_state(&mut state, &call);
    assert!(!first.is_error && !second.is_error, "{first:?}");
    assert_eq!(
        first.value["received"],
        json!({"repository": "toolkit", "query": "merge"})
    );
    assert_eq!(
        state.read("documents").unwrap(),
        Some(json!(["toolkit:merge", "toolkit:merge"]))
    );
}

#[test]
fn an_explicit_mapping_fills_only_the_mapped_parameters() {
    // The state has an `owner` key too, but only `repository` is mapped: the model's `owner`
    // is what the tool receives.
    let toolbox = search(StateWiring::new().input_from("repository", "repository"));
    let mut state = with_repository();
    let call = ToolCall::new("search", json!({"query": "q", "owner": "model-owner"}));
    let result = toolbox.call_with_state(&mut state, &call);
    assert_eq!(
        result.value["received"],
        json!({"repository": "toolkit", "owner": "model-owner", "query": "q"})
    );
}

#[test]
fn a_parameter_can_be_filled_from_a_key_of_another_name() {
    let toolbox = search(StateWiring::new().input_from("owner", "repository"));
    let mut state = with_repository();
    let result = toolbox.acall_with_state_blocking(&mut state, json!({"query": "q"}));
    assert_eq!(result["received"]["repository"], "state-owner");
}

#[test]
fn an_absent_state_value_for_a_required_parameter_is_an_error_naming_the_key() {
    let toolbox = search(StateWiring::new().input("repository"));
    let mut state =
        DynamicState::new(StateSchema::new().key("repository", json!({"type": "string"})));
    let result =
        toolbox.call_with_state(&mut state, &ToolCall::new("search", json!({"query": "q"})));
    assert!(result.is_error);
    assert_eq!(
        result.value,
        json!(r#"Error: search cannot run yet: state key "repository" has no value"#)
    );
}

#[test]
fn a_model_sending_a_state_filled_argument_is_refused() {
    let toolbox = search(StateWiring::new().input("repository"));
    let mut state = with_repository();
    let call = ToolCall::new("search", json!({"query": "q", "repository": "other"}));
    let result = toolbox.call_with_state(&mut state, &call);
    assert!(result.is_error);
    assert_eq!(
        result.value,
        json!(
            r#"Error: do not send "repository" to search: it is filled from the agent's state; call again without it"#
        )
    );
}

#[test]
fn a_failed_call_leaves_state_unchanged() {
    let toolbox = search(
        StateWiring::new()
            .input("repository")
            .output_field("found", "documents"),
    );
    let mut state = with_repository();
    let before = state.to_json();
    let result = toolbox.call_with_state(
        &mut state,
        &ToolCall::new("search", json!({"query": "fail"})),
    );
    assert_eq!(result.value, json!("Error: the search failed"));
    assert_eq!(state.to_json(), before);
}

#[test]
fn a_result_that_does_not_fit_its_key_is_an_error_result_and_state_is_untouched() {
    let toolbox = search(StateWiring::new().input("repository").output("repository"));
    let mut state = with_repository();
    let result =
        toolbox.call_with_state(&mut state, &ToolCall::new("search", json!({"query": "q"})));
    assert!(result.is_error, "{result:?}");
    let text = result.value.as_str().unwrap();
    assert!(
        text.starts_with(r#"Error: search: the value for state key "repository" does not fit it"#),
        "{text}"
    );
    assert_eq!(state.read("repository").unwrap(), Some(json!("toolkit")));
}

#[test]
fn outputs_to_string_shows_the_model_one_field_of_the_result() {
    let wiring = StateWiring::new()
        .input("repository")
        .output_field("found", "documents")
        .output_to_string("found");
    let toolbox = search(wiring);
    let mut state = with_repository();
    let result =
        toolbox.call_with_state(&mut state, &ToolCall::new("search", json!({"query": "q"})));
    assert_eq!(result.value, json!(["toolkit:q"]));
}

trait BlockingState {
    fn acall_with_state_blocking(&self, state: &mut DynamicState, args: Value) -> Value;
}

impl BlockingState for Toolbox {
    /// The async form, run to completion: it answers as the sync one does.
    fn acall_with_state_blocking(&self, state: &mut DynamicState, args: Value) -> Value {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime
            .block_on(self.acall_with_state(state, &ToolCall::new("search", args)))
            .value
    }
}
