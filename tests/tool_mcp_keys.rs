//! `#[tool(title, icon, scopes, task)]`: what an MCP client is shown of a tool, and what it
//! must do to call it, land in the tool's definition.

use toolkit::prelude::*;
use toolkit::{Icon, TaskSupport};

#[derive(Default)]
struct Repo;

#[toolset(name = "repo")]
impl Repo {
    /// Push the current branch
    #[tool(
        title = "Push branch",
        icon = "https://example.com/push.png",
        icon = "data:image/png;base64,AAAA",
        scopes = ["repo:write", "repo:read"],
        task = "optional"
    )]
    fn push(&self, branch: String) -> String {
        branch
    }

    /// Run the whole test suite
    #[tool(task, icon = ["https://example.com/a.svg", "https://example.com/b.svg"], scopes = "ci")]
    async fn test_all(&self) -> usize {
        3
    }

    /// Read a file
    #[tool]
    fn read(&self, path: String) -> String {
        path
    }
}

/// Add two numbers
#[tool(title = "Adder", scopes = ["math"], task = "required")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn tool(name: &str) -> ToolProxy {
    Repo::to_tools()
        .into_iter()
        .find(|t| t.name() == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

#[test]
fn title_icons_scopes_and_task_reach_the_definition() {
    let push = tool("repo_push");
    let def = push.definition();
    assert_eq!(def.title.as_deref(), Some("Push branch"));
    assert_eq!(
        def.icons,
        [
            Icon::new("https://example.com/push.png"),
            Icon::new("data:image/png;base64,AAAA")
        ]
    );
    assert_eq!(def.options.scopes, ["repo:write", "repo:read"]);
    assert_eq!(def.options.task, TaskSupport::Optional);
    assert_eq!(push.dynamic_call(json!({"branch": "main"})), json!("main"));
}

#[test]
fn a_bare_task_requires_one_and_a_single_string_is_a_list_of_one() {
    let def = tool("repo_test_all").definition().clone();
    assert_eq!(def.options.task, TaskSupport::Required);
    assert_eq!(def.options.scopes, ["ci"]);
    assert_eq!(def.icons.len(), 2);
    assert_eq!(def.title, None);
}

#[test]
fn a_tool_without_the_keys_keeps_the_defaults() {
    let def = tool("repo_read").definition().clone();
    assert_eq!(def.title, None);
    assert!(def.icons.is_empty());
    assert!(def.options.scopes.is_empty());
    assert_eq!(def.options.task, TaskSupport::Forbidden);
}

#[test]
fn free_function_tools_take_the_same_keys() {
    let add = add_tool();
    let def = add.definition();
    assert_eq!(def.title.as_deref(), Some("Adder"));
    assert_eq!(def.options.scopes, ["math"]);
    assert_eq!(def.options.task, TaskSupport::Required);
}
