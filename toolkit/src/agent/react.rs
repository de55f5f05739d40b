//! Text ReAct: the tools rendered into the prompt, and the model's JSON reply read back.
//!
//! The reply format is DSPy.rb's: `{"thought", "action", "action_input"}` (or `tool_input`),
//! ending with `{"thought", "final_answer"}` or the action `finish`.

use serde_json::Value;

use crate::providers::repair_arguments;
use crate::{ToolCall, ToolCalls, Toolbox};

/// What a ReAct reply asks for.
pub(super) enum ReactReply {
    /// The run is done.
    Finish {
        thought: Option<String>,
        answer: String,
    },
    /// Call a tool.
    Act {
        thought: Option<String>,
        call: ToolCall,
    },
    /// The reply could not be read; the reason goes back to the model.
    Malformed(String),
}

const FORMAT: &str = r#"Work step by step. Reply with exactly one JSON object and nothing else.
To call a tool:
{"thought": "<your reasoning>", "action": "<tool name>", "action_input": {<arguments>}}
When you know the answer:
{"thought": "<your reasoning>", "final_answer": "<the answer>"}
After each tool call you receive its result as "Observation: ..."."#;

/// The system prompt of a ReAct run: the user's prompt, the tools, then the reply format.
pub(super) fn system_prompt(prompt: Option<&str>, toolbox: &Toolbox) -> String {
    let mut text = String::new();
    if let Some(prompt) = prompt {
        text.push_str(prompt);
        text.push_str("\n\n");
    }
    text.push_str("You can use these tools:\n");
    for tool in toolbox.iter() {
        let schema = serde_json::to_string(tool.parameters()).unwrap_or_default();
        text.push_str(&format!(
            "- {}: {}\n  arguments (JSON Schema): {schema}\n",
            tool.name(),
            tool.description()
        ));
    }
    text.push('\n');
    text.push_str(FORMAT);
    text
}

/// The message that carries a tool's result back.
pub(super) fn observation(result: &str) -> String {
    format!("Observation: {result}")
}

/// The message that tells the model its reply could not be read.
pub(super) fn malformed(problem: &str) -> String {
    format!(
        "Observation: your reply could not be read: {problem}. Reply with one JSON object with \
         \"thought\" and either \"action\" and \"action_input\", or \"final_answer\"."
    )
}

/// Reads a reply, tolerating text or a code fence around the JSON object.
pub(super) fn parse(text: &str) -> ReactReply {
    let Some(object) = json_object(text) else {
        return ReactReply::Malformed("it holds no JSON object".into());
    };
    let Value::Object(map) = &object else {
        return ReactReply::Malformed("it is not a JSON object".into());
    };
    let thought = map.get("thought").map(as_text);
    if let Some(answer) = map.get("final_answer") {
        return ReactReply::Finish {
            thought,
            answer: as_text(answer),
        };
    }
    match map.get("action") {
        Some(Value::String(action)) if action.eq_ignore_ascii_case("finish") => {
            let input = map.get("action_input").or_else(|| map.get("tool_input"));
            ReactReply::Finish {
                thought,
                answer: input.map(as_text).unwrap_or_default(),
            }
        }
        Some(_) => match ToolCalls::parse(&object) {
            Ok(calls) => match calls.into_iter().next() {
                Some(call) => ReactReply::Act { thought, call },
                None => ReactReply::Malformed("it names no tool".into()),
            },
            Err(err) => ReactReply::Malformed(err.to_string()),
        },
        None => ReactReply::Malformed("it has neither \"action\" nor \"final_answer\"".into()),
    }
}

/// The JSON object in `text`: from its first `{` to its last `}`, repaired when needed.
fn json_object(text: &str) -> Option<Value> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    if end < start {
        return None;
    }
    match repair_arguments(&text[start..=end]) {
        object @ Value::Object(_) => Some(object),
        _ => None,
    }
}

fn as_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
