//! Elicitation both ways: a server's `elicitation/create` as the runtime's request and the
//! runtime's answer as MCP's result (the client), and a client's answer as the runtime's
//! (the server).

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Value, json};

use crate::context::{ElicitationAnswer, ElicitationRequest};

/// A server's `elicitation/create` as the runtime's request; `None` for a URL elicitation,
/// which the client does not declare.
pub(in crate::mcp) fn elicitation_request(
    params: ElicitRequestParams,
) -> Option<ElicitationRequest> {
    match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => Some(ElicitationRequest {
            message,
            requested_schema: serde_json::to_value(requested_schema).unwrap_or(Value::Null),
            key: None,
        }),
        _ => None,
    }
}

/// The runtime's answer as MCP's `ElicitResult`. An accepted object gets the `default` of
/// each field of `schema` it leaves out (SEP-1034: the client applies the defaults).
pub(in crate::mcp) fn elicit_result(answer: ElicitationAnswer, schema: &Value) -> ElicitResult {
    match answer {
        ElicitationAnswer::Accept(mut value) => {
            apply_defaults(&mut value, schema);
            ElicitResult::new(ElicitationAction::Accept).with_content(value)
        }
        ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
        ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// Fills each property of `schema` that `value` (an object) lacks with the property's `default`.
fn apply_defaults(value: &mut Value, schema: &Value) {
    let (Value::Object(answer), Some(properties)) = (value, schema["properties"].as_object())
    else {
        return;
    };
    for (name, property) in properties {
        if let Some(default) = property.get("default") {
            answer
                .entry(name.clone())
                .or_insert_with(|| default.clone());
        }
    }
}

/// A client's `elicitation/create` answer as the runtime's.
pub(in crate::mcp) fn elicitation_answer(answer: ElicitResult) -> ElicitationAnswer {
    match answer.action {
        ElicitationAction::Accept => {
            ElicitationAnswer::Accept(answer.content.unwrap_or_else(|| json!({})))
        }
        ElicitationAction::Decline => ElicitationAnswer::Decline,
        _ => ElicitationAnswer::Cancel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accepted_answer_gets_the_defaults_it_leaves_out() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "note": {"type": "string"}
        }});
        let answer = ElicitationAnswer::Accept(json!({"name": "Ann"}));
        let result = serde_json::to_value(elicit_result(answer, &schema)).unwrap();
        assert_eq!(result["content"], json!({"name": "Ann", "age": 30}));
    }
}
