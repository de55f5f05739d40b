//! The path from an annotated impl block to a tool a model can call.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use toolkit::ArgumentProblem;
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

#[derive(Default)]
struct TextStatsToolsetUnnamed;

#[derive(Default)]
struct WordToolset;

#[toolset]
impl WordToolset {
    /// Shout the text
    #[tool]
    fn shout(&self, text: &str) -> String {
        text.to_uppercase()
    }

    /// Look up an item in the product catalog
    #[tool(name = "catalog_lookup")]
    fn search(&self, #[arg(description = "The item's SKU")] sku: String) -> String {
        format!("item {sku}")
    }

    /// Repeat a word
    #[tool]
    fn repeat(
        &self,
        /// The word to repeat
        word: String,
        #[arg(default = 2)] times: usize,
        separator: Option<String>,
    ) -> String {
        vec![word; times].join(&separator.unwrap_or_else(|| " ".into()))
    }
}

#[test]
fn toolset_name_defaults_to_the_type_name_in_snake_case_without_toolset() {
    let names: Vec<_> = WordToolset::to_tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["word_shout", "catalog_lookup", "word_repeat"]);
    assert_eq!(WordToolset::NAME, "word");
    let _ = TextStatsToolsetUnnamed;
}

#[test]
fn an_explicit_tool_name_replaces_the_whole_name() {
    let tool = WordToolset::to_tools().remove(1);
    assert_eq!(tool.name(), "catalog_lookup");
    assert_eq!(tool.dynamic_call(json!({"sku": "A-1"})), json!("item A-1"));
}

#[test]
fn parameter_descriptions_reach_the_schema_unchanged() {
    let tools = WordToolset::to_tools();
    assert_eq!(
        tools[1].parameters()["properties"]["sku"]["description"],
        json!("The item's SKU")
    );
    assert_eq!(
        tools[2].parameters(),
        &json!({
            "type": "object",
            "properties": {
                "word": {"type": "string", "description": "The word to repeat"},
                "times": {"type": "integer", "minimum": 0, "maximum": u64::MAX, "default": 2},
                "separator": {"type": ["string", "null"]}
            },
            "required": ["word"],
            "additionalProperties": false
        })
    );
}

#[test]
fn optional_and_defaulted_parameters_may_be_omitted() {
    let repeat = WordToolset::to_tools().remove(2);
    assert_eq!(
        repeat.dynamic_call(json!({"word": "hey"})),
        json!("hey hey")
    );
    assert_eq!(
        repeat.dynamic_call(json!({"word": "hey", "times": 3, "separator": "-"})),
        json!("hey-hey-hey")
    );
    assert_eq!(
        repeat.dynamic_call(json!({"word": "hey", "separator": null})),
        json!("hey hey")
    );
}

#[test]
fn str_parameters_are_accepted() {
    let shout = WordToolset::to_tools().remove(0);
    assert_eq!(
        shout.parameters()["properties"]["text"],
        json!({"type": "string"})
    );
    assert_eq!(shout.dynamic_call(json!({"text": "hi"})), json!("HI"));
}

#[test]
fn arguments_may_arrive_as_a_json_string() {
    let tool = TextStatsToolset::to_tools().remove(0);
    assert_eq!(tool.dynamic_call(r#"{"text": "a b c"}"#), json!(3));
    assert_eq!(
        tool.dynamic_call(String::from(r#"{"text": "a"}"#)),
        json!(1)
    );
}

#[test]
fn each_kind_of_bad_input_gets_its_own_message_naming_the_argument() {
    let tool = TextStatsToolset::to_tools().remove(0);
    assert_eq!(
        tool.dynamic_call(json!({})),
        json!(r#"Error: missing required argument "text" for stats_word_count"#)
    );
    assert_eq!(
        tool.dynamic_call(json!({"text": "a", "txt": "b"})),
        json!(r#"Error: unknown argument "txt" for stats_word_count"#)
    );
    assert_eq!(
        tool.dynamic_call(json!({"text": 5})),
        json!(
            "Error: invalid arguments for stats_word_count: text: expected a string, got the number 5"
        )
    );
    assert_eq!(
        tool.dynamic_call(r#"{"text": "a""#),
        json!(
            "Error: arguments for stats_word_count were not valid JSON: EOF while parsing an object at line 1 column 12"
        )
    );
    assert_eq!(
        tool.dynamic_call(json!([1, 2])),
        json!(
            "Error: arguments for stats_word_count must be a JSON object of named arguments, got an array of 2 items"
        )
    );
}

#[test]
fn call_returns_typed_errors_and_dynamic_call_their_model_strings() {
    let tool = TextStatsToolset::to_tools().remove(0);
    let err = tool.call(json!({"txt": "a"})).unwrap_err();
    let ToolError::InvalidArguments {
        tool: name,
        problems,
    } = &err
    else {
        panic!("expected InvalidArguments, got {err:?}");
    };
    assert_eq!(name, "stats_word_count");
    // A typo for a missing argument is one problem, not "missing" plus "unknown".
    assert_eq!(
        problems,
        &[ArgumentProblem::Unknown {
            name: "txt".into(),
            suggestion: Some("text".into())
        }]
    );
    assert_eq!(
        tool.dynamic_call(json!({"txt": "a"})),
        json!(err.to_model_string())
    );
}

#[derive(Default)]
struct Outcomes;

#[derive(Debug)]
struct Refused(&'static str);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refused: {}", self.0)
    }
}

#[toolset]
impl Outcomes {
    /// Divide a by b
    #[tool]
    fn divide(&self, a: f64, b: f64) -> Result<f64, String> {
        if b == 0.0 {
            Err("division by zero".into())
        } else {
            Ok(a / b)
        }
    }

    /// Refuse politely
    #[tool]
    fn refuse(&self) -> Result<(), Refused> {
        Err(Refused("not today"))
    }

    /// Do nothing
    #[tool]
    fn nothing(&self) {}

    /// Panic with a message
    #[tool]
    fn explode(&self, message: String) -> usize {
        panic!("{message}")
    }
}

#[test]
fn ok_results_are_their_json_and_errors_are_the_tools_own_message() {
    let tools = Outcomes::to_tools();
    assert_eq!(tools[0].dynamic_call(json!({"a": 1, "b": 4})), json!(0.25));
    assert_eq!(
        tools[0].dynamic_call(json!({"a": 1, "b": 0})),
        json!("Error: division by zero")
    );
    assert_eq!(
        tools[1].dynamic_call(json!({})),
        json!("Error: refused: not today")
    );
    assert_eq!(
        tools[1].call(json!({})),
        Err(ToolError::Failed {
            tool: "outcomes_refuse".into(),
            message: "refused: not today".into()
        })
    );
}

#[test]
fn unit_results_are_null() {
    let nothing = Outcomes::to_tools().remove(2);
    assert_eq!(nothing.dynamic_call(json!({})), Value::Null);
    assert_eq!(nothing.dynamic_call(Value::Null), Value::Null);
    assert_eq!(nothing.dynamic_call(""), Value::Null);
}

#[test]
fn a_panicking_tool_becomes_an_error_and_the_host_keeps_running() {
    let tools = Outcomes::to_tools();
    let explode = &tools[3];
    assert_eq!(
        explode.dynamic_call(json!({"message": "boom"})),
        json!("Error: tool outcomes_explode panicked: boom")
    );
    // The proxy (and its shared instance) still works afterwards.
    assert_eq!(
        explode.dynamic_call(json!({"message": "again"})),
        json!("Error: tool outcomes_explode panicked: again")
    );
    assert_eq!(tools[0].dynamic_call(json!({"a": 6, "b": 3})), json!(2.0));
}

mod renamed {
    // A user who renamed the dependency points the macro at it.
    pub(crate) use ::toolkit as tk;
}

#[derive(Default)]
struct Renamed;

#[toolset(name = "renamed", crate = "crate::renamed::tk")]
impl Renamed {
    /// Say hi
    #[tool]
    fn hi(&self) -> &'static str {
        "hi"
    }
}

#[test]
fn the_crate_path_can_be_overridden() {
    use toolkit::Toolset as _;
    assert_eq!(Renamed::to_tools()[0].dynamic_call(json!({})), json!("hi"));
}

/// Say hello
#[tool(crate = "crate::renamed::tk")]
fn hello(name: String) -> String {
    format!("hello {name}")
}

#[test]
fn the_crate_path_of_a_free_function_tool_can_be_overridden() {
    assert_eq!(
        hello_tool().dynamic_call(json!({"name": "Ada"})),
        json!("hello Ada")
    );
}
