//! toolkit::integrations::rig: a rig agent calls toolkit tools, and rig tools run in a Toolbox.
//!
//! The agent is rig-agent's own, driven by a scripted completion model: the test's own
//! transport for rig's scripted completion wire (`MockScript`), which answers each request with
//! the next scripted turn and keeps every request, so a test reads exactly what the model was
//! sent (tool definitions, tool results) after a run.
#![cfg(feature = "rig")]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use rig_agent::AgentBuilder;
use rig_core::ProviderError;
use rig_core::completion::{AssistantContent, CompletionRequest, CompletionResponse, Usage};
use rig_core::driver::{Exchange, Model, Opened, Opening, Transport};
use rig_core::message::{Message, Origin, ToolName, ToolResultContent, UserContent};
use rig_core::test_utils::{MOCK_API, MOCK_MODEL, MOCK_PROVIDER, MockFrame, MockScript};
use rig_core::tool::{DynamicTool, PortableTool, ToolExecutionError, ToolOutput};
use toolkit::ToolDefinition;
use toolkit::integrations::rig::{dynamic_tool, dynamic_tools, from_dynamic_tool, from_rig_tool};
use toolkit::prelude::*;

/// Add two numbers
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Divide a by b
#[tool]
fn divide(a: i64, b: i64) -> Result<i64, String> {
    a.checked_div(b)
        .ok_or_else(|| "division by zero".to_string())
}

/// A completion model that answers from a script: each request gets the next turn's content.
#[derive(Clone, Default)]
struct ScriptedModel {
    turns: Arc<Mutex<VecDeque<Vec<AssistantContent>>>>,
    requests: Arc<Mutex<Vec<CompletionRequest>>>,
}

impl ScriptedModel {
    fn new(turns: impl IntoIterator<Item = Vec<AssistantContent>>) -> Self {
        ScriptedModel {
            turns: Arc::new(Mutex::new(turns.into_iter().collect())),
            requests: Arc::default(),
        }
    }

    fn model(&self) -> Model<MockScript, ScriptedModel> {
        Model::new(MockScript::default(), self.clone())
    }

    fn requests(&self) -> Vec<CompletionRequest> {
        self.requests.lock().expect("not poisoned").clone()
    }
}

impl Transport<MockScript> for ScriptedModel {
    fn send(&self, request: CompletionRequest, _exchange: Exchange) -> Opening<MockFrame> {
        self.requests.lock().expect("not poisoned").push(request);
        let Some(choice) = self.turns.lock().expect("not poisoned").pop_front() else {
            return Opening::failed(ProviderError::Provider("the script has ended".into()));
        };
        let origin = Origin::new(MOCK_API, MOCK_PROVIDER, MOCK_MODEL);
        let response = CompletionResponse::new(choice, Usage::default(), origin, json!({}));
        let frame = MockFrame::Response(Box::new(response));
        Opening::ready(Opened::new(futures::stream::iter([Ok(frame)])))
    }
}

fn call(id: &str, name: &str, arguments: Value) -> AssistantContent {
    let name = ToolName::new(name).expect("a name");
    AssistantContent::tool_call(id, name, arguments)
}

/// Every tool result the request carries back to the model: (tool, is_error, content as text).
fn tool_results(request: &CompletionRequest) -> Vec<(String, bool, String)> {
    let contents = request
        .chat_history
        .iter()
        .flat_map(|message| match message {
            Message::User { content } => content.clone(),
            _ => Vec::new(),
        });
    contents
        .filter_map(|content| match content {
            UserContent::ToolResult(result) => Some(result),
            _ => None,
        })
        .map(|result| {
            let text = result.content.iter().map(|part| match part {
                ToolResultContent::Text(text) => text.text.clone(),
                ToolResultContent::Json { value } => value.to_string(),
                ToolResultContent::Image(_) => "<image>".to_string(),
            });
            (result.name.to_string(), result.is_error, text.collect())
        })
        .collect()
}

fn maths() -> Toolbox {
    Toolbox::builder()
        .tool(add_tool())
        .tool(divide_tool())
        .build()
        .expect("distinct names")
}

#[tokio::test]
async fn a_rig_agent_calls_a_toolkit_tool_and_the_model_reads_its_result() {
    let script = ScriptedModel::new([
        vec![call("call_1", "add", json!({"a": 2, "b": "3"}))],
        vec![AssistantContent::text("2 + 3 = 5")],
    ]);
    let tools = dynamic_tools(&maths()).expect("named tools");
    let agent = AgentBuilder::new(script.model())
        .dynamic_tools(tools)
        .build();

    let response = agent.prompt("What is 2 + 3?").max_turns(2).run().await;

    assert_eq!(response.expect("a finished run").output(), "2 + 3 = 5");
    let requests = script.requests();
    assert_eq!(requests.len(), 2);
    let offered: Vec<_> = requests[0]
        .tools
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(offered, ["add", "divide"]);
    assert_eq!(&requests[0].tools[0].parameters, add_tool().parameters());
    // "3" was coerced to 3 by our pipeline before the body ran.
    assert_eq!(
        tool_results(&requests[1]),
        [("add".into(), false, "5".into())]
    );
}

#[tokio::test]
async fn failing_calls_reach_the_model_as_our_error_strings() {
    let script = ScriptedModel::new([
        vec![call("call_1", "add", json!({"a": 2}))],
        vec![call("call_2", "divide", json!({"a": 1, "b": 0}))],
        vec![AssistantContent::text("I could not do it")],
    ]);
    let tools = vec![
        dynamic_tool(&add_tool()).expect("named"),
        dynamic_tool(&divide_tool()).expect("named"),
    ];
    let agent = AgentBuilder::new(script.model())
        .dynamic_tools(tools)
        .build();

    let response = agent
        .prompt("Add 2 and divide 1 by 0")
        .max_turns(3)
        .run()
        .await;

    assert_eq!(
        response.expect("a finished run").output(),
        "I could not do it"
    );
    let results = tool_results(&script.requests()[2]);
    let missing = r#"Error: missing required argument "b" for add"#;
    let expected = [
        ("add".to_string(), true, missing.to_string()),
        (
            "divide".to_string(),
            true,
            "Error: division by zero".to_string(),
        ),
    ];
    assert_eq!(results, expected);
}

#[tokio::test]
async fn a_toolbox_hook_refusal_reaches_the_model_through_rig() {
    let toolbox = Toolbox::builder()
        .tool(add_tool())
        .before_call(|call, _tool| match call.args["a"].as_i64() {
            Some(a) if a < 0 => Err("negative numbers are not allowed".to_string()),
            _ => Ok(()),
        })
        .build()
        .expect("one tool");
    let script = ScriptedModel::new([
        vec![call("call_1", "add", json!({"a": -1, "b": 1}))],
        vec![AssistantContent::text("refused")],
    ]);
    let tools = dynamic_tools(&toolbox).expect("named tools");
    let agent = AgentBuilder::new(script.model())
        .dynamic_tools(tools)
        .build();

    agent
        .prompt("Add -1 and 1")
        .max_turns(2)
        .run()
        .await
        .expect("a finished run");

    let refused = "Error: the call to add was refused: negative numbers are not allowed";
    let results = tool_results(&script.requests()[1]);
    assert_eq!(results, [("add".into(), true, refused.into())]);
}

/// Repeat the text
#[tool]
fn repeat(text: String, times: usize) -> String {
    text.repeat(times)
}

#[tokio::test]
async fn a_single_tool_keeps_its_own_output_limit_in_rig() {
    let limited = repeat_tool().with_options(|o| o.limits.max_output_bytes = Some(50));
    let tool = dynamic_tool(&limited).expect("named");

    let output = tool.execute(json!({"text": "ab", "times": 40})).await;

    let expected = "abab... [output truncated: showing 4 of 80 bytes]";
    assert_eq!(output.expect("a result").as_text(), Some(expected));
}

#[test]
fn a_tool_without_a_name_is_refused_as_rig_refuses_it() {
    let definition = ToolDefinition::new("", "Nameless", json!({"type": "object"}));
    let nameless = ToolProxy::from_fn(definition, |_| Ok::<_, String>(0));

    let error = dynamic_tool(&nameless).expect_err("rig needs a name");

    assert_eq!(
        error.to_string(),
        "tool  cannot be built: a tool name cannot be empty"
    );
}

/// A typed rig tool, as rig users write them.
struct Shout;

impl PortableTool for Shout {
    const NAME: &'static str = "shout";
    type Args = Value;
    type Output = String;
    type Error = ToolExecutionError;

    fn description(&self) -> String {
        "Upper-case the text".into()
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "times": {"type": "integer"}},
            "required": ["text"]
        })
    }

    async fn call(&self, args: Value) -> Result<String, ToolExecutionError> {
        let text = args["text"].as_str().unwrap_or_default();
        if text.is_empty() {
            return Err(ToolExecutionError::invalid_args("nothing to shout"));
        }
        let times = args["times"].as_u64().unwrap_or(1) as usize;
        Ok(text.to_uppercase().repeat(times))
    }
}

fn echo() -> DynamicTool {
    let name = ToolName::new("echo").expect("a name");
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    DynamicTool::new(name, "Echo the text", schema, |args| {
        Box::pin(async move { Ok(ToolOutput::json(args)) })
    })
}

fn rig_toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(from_rig_tool(Shout))
        .tool(from_dynamic_tool(echo()))
        .build()
        .expect("distinct names")
}

fn call_sync(toolbox: &Toolbox, name: &str, args: Value) -> (bool, Value) {
    let result = toolkit::allow_async_to_sync(|| toolbox.call(&ToolCall::new(name, args)));
    (result.is_error, result.value)
}

#[test]
fn rig_tools_in_a_toolbox_are_called_through_toolbox_call() {
    let toolbox = rig_toolbox();
    assert_eq!(toolbox.names().collect::<Vec<_>>(), ["shout", "echo"]);
    assert_eq!(toolbox.tools()[0].parameters(), &Shout.parameters());
    assert_eq!(toolbox.tools()[1].description(), "Echo the text");

    let shout = json!({"text": "hi", "times": "2"}); // coerced to 2 before rig sees it
    assert_eq!(call_sync(&toolbox, "shout", shout), (false, json!("HIHI")));
    let echoed = call_sync(&toolbox, "echo", json!({"text": "same"}));
    assert_eq!(echoed, (false, json!({"text": "same"})));
}

#[test]
fn rig_tools_in_a_toolbox_are_validated_first_and_their_failures_are_our_errors() {
    let toolbox = rig_toolbox();

    let (is_error, value) = call_sync(&toolbox, "shout", json!({}));
    assert!(is_error);
    assert_eq!(
        value,
        json!(r#"Error: missing required argument "text" for shout"#)
    );
    let refused = call_sync(&toolbox, "shout", json!({"text": ""}));
    assert_eq!(refused, (true, json!("Error: nothing to shout")));
}
