//! `#[derive(AgentState)]` and the state attributes of `#[toolset]`: merge rules per field, keys
//! listed with their schemas, and tools whose wiring the macro wrote.

mod common;

use common::formats::every_format;
use common::golden::assert_golden_json;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolkit::prelude::*;
use toolkit::state::{MergeRule, StateError};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
struct Hit {
    path: String,
    score: f64,
}

fn keep_max(current: &mut f64, new: f64) {
    *current = current.max(new);
}

#[derive(AgentState, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Research {
    repository: String,
    documents: Vec<String>,
    #[state(replace)]
    hits: Vec<Hit>,
    #[state(merge = keep_max)]
    best: f64,
    owner: Option<String>,
}

// --- The derive ---

#[test]
fn a_list_key_concatenates_lists_and_appends_single_items() {
    let mut state = Research::default();
    state.merge("documents", json!(["a", "b"])).unwrap();
    state.merge("documents", json!("c")).unwrap();
    assert_eq!(state.documents, ["a", "b", "c"]);
}

#[test]
fn a_list_marked_replace_is_replaced() {
    let mut state = Research::default();
    let hit = |path: &str| json!({"path": path, "score": 1.0});
    state.merge("hits", json!([hit("a"), hit("b")])).unwrap();
    state.merge("hits", json!([hit("c")])).unwrap();
    assert_eq!(
        state.hits,
        [Hit {
            path: "c".into(),
            score: 1.0
        }]
    );
}

#[test]
fn other_keys_are_replaced_and_a_custom_merge_decides_its_own() {
    let mut state = Research::default();
    state.merge("repository", json!("one")).unwrap();
    state.merge("repository", json!("two")).unwrap();
    state.merge("best", json!(0.7)).unwrap();
    state.merge("best", json!(0.2)).unwrap();
    assert_eq!((state.repository.as_str(), state.best), ("two", 0.7));
}

#[test]
fn a_value_of_the_wrong_type_is_refused_and_leaves_the_key_unchanged() {
    let mut state = Research::default();
    state.merge("documents", json!(["a"])).unwrap();
    for (key, value) in [
        ("documents", json!(3)),
        ("best", json!("high")),
        ("repository", json!([])),
    ] {
        let err = state.merge(key, value).unwrap_err();
        assert!(
            matches!(&err, StateError::Mismatch { key: k, .. } if k == key),
            "{err}"
        );
    }
    assert_eq!(
        state,
        Research {
            documents: vec!["a".into()],
            ..Research::default()
        }
    );
}

#[test]
fn an_unknown_key_is_an_error_naming_the_keys_there_are() {
    let mut state = Research::default();
    let expected =
        "state has no key \"docs\"; declared keys: repository, documents, hits, best, owner";
    assert_eq!(
        state.merge("docs", json!([])).unwrap_err().to_string(),
        expected
    );
    assert_eq!(state.read("docs").unwrap_err().to_string(), expected);
}

#[test]
fn an_empty_option_reads_as_no_value_and_a_set_one_as_its_value() {
    let mut state = Research::default();
    assert_eq!(state.read("owner").unwrap(), None);
    state.merge("owner", json!("octo")).unwrap();
    assert_eq!(state.read("owner").unwrap(), Some(json!("octo")));
    assert_eq!(state.read("best").unwrap(), Some(json!(0.0)));
}

#[test]
fn the_keys_are_listed_with_their_schemas_and_merge_rules() {
    let keys = Research::default().keys();
    let names: Vec<_> = keys.iter().map(|key| key.name.as_str()).collect();
    assert_eq!(names, ["repository", "documents", "hits", "best", "owner"]);
    let rules: Vec<_> = keys.iter().map(|key| key.rule).collect();
    assert!(matches!(
        rules.as_slice(),
        [
            MergeRule::Replace,
            MergeRule::Lists,
            MergeRule::Replace,
            MergeRule::Custom(_),
            MergeRule::Replace
        ]
    ));
    assert_eq!(keys[0].schema["type"], "string");
    assert_eq!(keys[1].schema["type"], "array");
    assert_eq!(keys[3].schema["type"], "number");
}

#[test]
fn the_listed_custom_rule_merges_json_as_the_typed_function_does() {
    let keys = Research::default().keys();
    let mut best = json!(0.5);
    keys[3].rule.merge("best", &mut best, json!(0.9)).unwrap();
    keys[3].rule.merge("best", &mut best, json!(0.1)).unwrap();
    assert_eq!(best, json!(0.9));
    assert!(keys[3].rule.merge("best", &mut best, json!("x")).is_err());
}

#[test]
fn the_json_view_and_a_serde_round_trip_keep_every_key() {
    let mut state = Research::default();
    state.merge("documents", json!(["a"])).unwrap();
    state.merge("best", json!(0.5)).unwrap();
    assert_eq!(
        state.to_json(),
        json!({"repository": "", "documents": ["a"], "hits": [], "best": 0.5, "owner": null})
    );
    let saved = serde_json::to_string(&state).unwrap();
    assert_eq!(serde_json::from_str::<Research>(&saved).unwrap(), state);
}

// --- A toolset wired by the macro ---

#[derive(Default)]
struct RepoToolset;

#[derive(Serialize, JsonSchema)]
struct Found {
    summary: String,
    hits: Vec<Hit>,
    best: f64,
}

// `outputs_to_string(with = ...)` takes a function of a reference to the result type.
#[allow(clippy::ptr_arg)]
fn count(documents: &Vec<String>) -> String {
    format!("{} documents", documents.len())
}

#[toolset(name = "repo", state = Research)]
impl RepoToolset {
    /// Search the repository
    #[tool(outputs_to_state(documents), outputs_to_string(with = count))]
    fn search(
        &self,
        /// the repository
        #[arg(from_state)]
        repository: String,
        /// what to look for
        query: String,
    ) -> Result<Vec<String>, String> {
        if query.is_empty() {
            return Err("the query is empty".into());
        }
        Ok(vec![format!("{repository}/README.md: {query}")])
    }

    /// Rank what was found
    #[tool(
        outputs_to_state(hits = "hits", best = "best"),
        outputs_to_string = "summary"
    )]
    fn rank(
        &self,
        #[arg(from_state = "documents")] found: Vec<String>,
        #[arg(from_state)] owner: Option<String>,
    ) -> Found {
        let hits: Vec<Hit> = found
            .iter()
            .enumerate()
            .map(|(i, path)| Hit {
                path: path.clone(),
                score: 1.0 / (i + 1) as f64,
            })
            .collect();
        Found {
            summary: format!("{} ranked for {}", hits.len(), owner.unwrap_or_default()),
            best: hits.first().map_or(0.0, |hit| hit.score),
            hits,
        }
    }

    /// Report findings as loose JSON
    #[tool(outputs_to_state(documents = "documents", best = "best"))]
    fn report(&self, best: Option<f64>) -> Value {
        json!({"documents": ["found"], "best": best})
    }
}

fn toolbox() -> Toolbox {
    Toolbox::builder().toolset::<RepoToolset>().build().unwrap()
}

fn research() -> Research {
    Research {
        repository: "toolkit".into(),
        ..Research::default()
    }
}

#[test]
fn parameters_filled_from_state_are_hidden_from_every_format_the_model_sees() {
    let toolbox = toolbox();
    let all = every_format(&toolbox, "repo_search");
    for hidden in ["repository", "found", "owner"] {
        assert!(
            !all.to_string().contains(&format!("\"{hidden}\"")),
            "{hidden}: {all}"
        );
    }
    assert_golden_json("state/hidden_parameters_derived.json", &all);
}

#[tokio::test]
async fn a_batch_reads_state_merges_results_and_shows_what_the_wiring_says() {
    let toolbox = toolbox();
    let mut state = research();
    state.owner = Some("octo".into());
    let calls = vec![
        ToolCall::new("repo_search", json!({"query": "state"})),
        ToolCall::new("repo_search", json!({"query": "merge"})),
        ToolCall::new("repo_rank", json!({})),
    ];
    let results = toolbox.call_all_with_state(&mut state, calls).await;
    let shown: Vec<&Value> = results.iter().map(|result| &result.value).collect();
    assert_eq!(
        shown,
        [
            &json!("1 documents"),
            &json!("1 documents"),
            &json!("2 ranked for octo")
        ]
    );
    assert_eq!(
        state.documents,
        ["toolkit/README.md: state", "toolkit/README.md: merge"]
    );
    assert_eq!(state.hits.len(), 2);
    assert_eq!(state.best, 1.0);
}

#[test]
fn a_model_sending_a_state_filled_argument_is_refused_and_state_is_untouched() {
    let toolbox = toolbox();
    let mut state = research();
    let call = ToolCall::new("repo_search", json!({"repository": "other", "query": "q"}));
    let result = toolbox.call_with_state(&mut state, &call);
    assert!(result.is_error);
    assert_eq!(
        result.value,
        json!(
            "Error: do not send \"repository\" to repo_search: it is filled from the agent's state; call again without it"
        )
    );
    assert_eq!(state, research());
}

#[test]
fn a_failed_call_writes_nothing_to_state() {
    let toolbox = toolbox();
    let mut state = research();
    let result = toolbox.call_with_state(
        &mut state,
        &ToolCall::new("repo_search", json!({"query": ""})),
    );
    assert_eq!(result.value, json!("Error: the query is empty"));
    assert_eq!(state, research());
}

#[test]
fn a_result_whose_second_output_does_not_fit_writes_neither() {
    let toolbox = toolbox();
    let mut state = research();
    let bad = toolbox.call_with_state(&mut state, &ToolCall::new("repo_report", json!({})));
    assert!(bad.is_error, "{bad:?}");
    assert!(
        bad.value
            .as_str()
            .unwrap()
            .contains("state key \"best\" does not fit it"),
        "{bad:?}"
    );
    assert_eq!(state, research());
    let good = toolbox.call_with_state(
        &mut state,
        &ToolCall::new("repo_report", json!({"best": 0.5})),
    );
    assert!(!good.is_error, "{good:?}");
    assert_eq!(
        (state.documents.as_slice(), state.best),
        (&["found".to_string()][..], 0.5)
    );
}

#[test]
fn an_optional_parameter_whose_key_is_empty_is_left_out() {
    let toolbox = toolbox();
    let mut state = research();
    state.documents = vec!["a".into()];
    let result = toolbox.call_with_state(&mut state, &ToolCall::new("repo_rank", json!({})));
    assert_eq!(result.value, json!("1 ranked for "));
}

#[test]
fn without_state_a_wired_parameter_is_an_ordinary_required_argument() {
    let toolbox = toolbox();
    let call = ToolCall::new("repo_search", json!({"repository": "r", "query": "q"}));
    assert_eq!(toolbox.call(&call).value, json!(["r/README.md: q"]));
}

#[test]
fn the_state_example_runs_the_batch_and_prints_the_state_it_built() {
    let example = common::examples::build_example("state", false);
    let output = std::process::Command::new(example).output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let last = stdout.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        r#"state after: {"repository":"toolkit","documents":["toolkit/README.md mentions state","toolkit/README.md mentions merge"],"best":0.6666666666666667}"#
    );
    assert!(
        stdout.contains(r#"repo_rank -> "2 documents ranked""#),
        "{stdout}"
    );
}
