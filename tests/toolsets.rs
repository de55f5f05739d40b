//! The path from an annotated impl block to a tool a model can call.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use toolkit::prelude::*;

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
    fn helper(&self) {}
}

#[test]
fn exported_methods_become_prefixed_tools_in_declaration_order() {
    let tools = TextStatsToolset::to_tools();
    let names: Vec<_> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["stats_word_count", "stats_line_count"]);
    assert_eq!(tools[0].dynamic_call(json!({"text": "one two"})), json!(2));
    assert_eq!(tools[1].dynamic_call(json!({"text": "a\nb\nc"})), json!(3));
}

#[test]
fn descriptions_come_from_the_attribute_or_the_doc_comment() {
    let tools = TextStatsToolset::to_tools();
    assert_eq!(tools[0].description(), "Count whitespace-separated words");
    assert_eq!(tools[1].description(), "Count lines");
}

#[test]
fn schema_holds_name_description_and_parameters() {
    let tool = TextStatsToolset::to_tools().remove(0);
    assert_eq!(
        tool.schema(),
        json!({
            "name": "stats_word_count",
            "description": "Count whitespace-separated words",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": false
            }
        })
    );
}

struct Counter {
    calls: AtomicUsize,
    step: usize,
}

#[toolset]
impl Counter {
    /// Add the step to the counter and return the total
    #[tool]
    fn bump(&self) -> usize {
        self.calls.fetch_add(self.step, Ordering::SeqCst) + self.step
    }

    /// Read the counter
    #[tool]
    fn read(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

#[test]
fn a_configured_instance_is_shared_by_all_its_proxies() {
    let tools = Arc::new(Counter {
        calls: AtomicUsize::new(0),
        step: 5,
    })
    .into_tools();
    assert_eq!(tools[0].name(), "counter_bump");
    tools[0].dynamic_call(json!({}));
    tools[0].clone().dynamic_call(json!({}));
    assert_eq!(tools[1].dynamic_call(json!({})), json!(10));
}

#[test]
fn proxies_are_send_sync_and_cheap_to_clone() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<ToolProxy>();
    let tool = TextStatsToolset::to_tools().remove(0);
    let copy = tool.clone();
    assert!(
        std::ptr::eq(tool.parameters(), copy.parameters()),
        "clones share one schema"
    );
}
