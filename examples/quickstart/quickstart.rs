//! The quickstart: two toolsets, their schemas, and a few calls as a model would make them.
//!
//! Run it with `cargo run -p quickstart --example quickstart` (a package of its own, so it builds
//! with toolset's default features only: `examples/quickstart/Cargo.toml`).

use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::schemars::JsonSchema;

#[derive(Default)]
struct TextStatsToolset;

#[toolset(name = "stats")]
impl TextStatsToolset {
    /// Count whitespace-separated words
    #[tool]
    fn word_count(&self, text: String) -> usize {
        text.split_whitespace().count()
    }

    #[tool(description = "Count lines")]
    fn line_count(&self, text: String) -> usize {
        text.lines().count()
    }

    #[allow(dead_code)]
    fn helper(&self) {} // no #[tool]: not exported
}

/// How urgent a task is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    High,
}

/// A task to file.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Task {
    /// A short title
    title: String,
    /// Who does it
    assignee: String,
}

#[derive(Default)]
struct TaskToolset;

#[toolset(name = "task")]
impl TaskToolset {
    /// File a task with a priority.
    ///
    /// # Arguments
    /// * `task` - the task to file
    /// * `priority` - how urgent it is
    /// * `note` - an optional note for the assignee
    #[tool]
    fn assign(
        &self,
        task: Task,
        priority: Priority,
        note: Option<String>,
    ) -> Result<String, String> {
        if task.title.trim().is_empty() {
            return Err("the task title is empty".into());
        }
        let note = note.map(|n| format!(" ({n})")).unwrap_or_default();
        Ok(format!(
            "{} -> {} [{priority:?}]{note}",
            task.title, task.assignee
        ))
    }
}

fn main() {
    let mut tools = TextStatsToolset::to_tools();
    tools.extend(TaskToolset::to_tools());

    for tool in &tools {
        let schema = serde_json::to_string_pretty(&tool.schema()).expect("schemas are JSON");
        println!("{schema}\n");
    }

    let calls = [
        ("stats_word_count", json!({"text": "one two three"})),
        ("stats_line_count", json!(r#"{"text": "a\nb"}"#)),
        (
            "task_assign",
            json!({"task": {"title": "Ship it", "assignee": "ada"}, "priority": "HIGH"}),
        ),
        (
            "task_assign",
            json!({"task": {"title": " ", "assignee": "ada"}, "priority": "low"}),
        ),
        ("stats_word_count", json!({"txt": "typo"})),
        ("stats_word_count", json!({"text": 5})),
    ];
    for (name, args) in calls {
        let tool = tools
            .iter()
            .find(|t| t.name() == name)
            .expect("the tool exists");
        println!("{name}({args}) -> {}", tool.dynamic_call(args.clone()));
    }
}
