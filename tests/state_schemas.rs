//! State-filled parameters are hidden from every schema the model sees.

mod common;

use common::formats::every_format;
use common::golden::assert_golden_json;
use serde_json::json;
use toolkit::ToolDefinition;
use toolkit::prelude::*;
use toolkit::state::StateWiring;

fn search_tool() -> ToolProxy {
    let schema = json!({
        "type": "object",
        "properties": {
            "repository": {"type": "string", "description": "the repository"},
            "query": {"type": "string", "description": "what to look for"}
        },
        "required": ["repository", "query"],
        "additionalProperties": false
    });
    let definition = ToolDefinition::new("repo_search", "Search the repository", schema);
    ToolProxy::from_fn(definition, |args| Ok::<_, String>(args["query"].clone()))
        .with_state(StateWiring::new().input("repository"))
        .expect("repository is a parameter")
}

#[test]
fn state_filled_parameters_are_absent_from_all_six_formats_and_mcp_tools_list() {
    let toolbox = Toolbox::builder().tool(search_tool()).build().unwrap();
    let all = every_format(&toolbox, "repo_search");
    assert!(!all.to_string().contains("\"repository\""), "{all}");
    assert_golden_json("state/hidden_parameters.json", &all);
}

#[test]
fn wiring_a_parameter_the_tool_does_not_have_is_an_error() {
    let tool = search_tool();
    let err = tool
        .with_state(StateWiring::new().input("owner"))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"tool repo_search cannot be built: the state wiring fills "owner", which is not a parameter"#
    );
}
