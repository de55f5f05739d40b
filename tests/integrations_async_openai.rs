//! toolkit::integrations::async_openai: round trips through async-openai's own typed values.
#![cfg(feature = "async-openai")]

use async_openai::types::chat::{
    ChatCompletionMessageToolCallChunk, ChatCompletionMessageToolCalls,
    ChatCompletionRequestMessage, ChatCompletionRequestToolMessageContent, ChatCompletionTools,
    CreateChatCompletionResponse, FunctionCallStream,
};
use toolkit::integrations::async_openai::{
    assemble_tool_calls, chat_tool, chat_tool_strict, chat_tools_strict, request_message,
    tool_calls, tool_message,
};
use toolkit::prelude::*;
use toolkit::providers::Format;

/// Add two numbers
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Greet someone
#[tool]
fn greet(name: String, title: Option<String>) -> String {
    format!("Hello {}{name}", title.map(|t| t + " ").unwrap_or_default())
}

/// Count the keys of any map
#[tool]
fn count_keys(map: std::collections::HashMap<String, i64>) -> usize {
    map.len()
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(add_tool())
        .tool(greet_tool())
        .build()
        .expect("distinct names")
}

fn response_with_calls(calls: serde_json::Value) -> CreateChatCompletionResponse {
    serde_json::from_value(json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null,
            "message": {"role": "assistant", "content": null, "refusal": null, "tool_calls": calls}}]
    }))
    .expect("a response in the API's shape")
}

#[test]
fn a_typed_definition_serializes_exactly_as_our_own_openai_json() {
    let typed = serde_json::to_value(chat_tool(&add_tool())).unwrap();
    assert_eq!(typed, add_tool().definition_in(Format::OpenAi).unwrap());
}

#[test]
fn a_strict_typed_definition_serializes_exactly_as_our_own_strict_json() {
    let typed = serde_json::to_value(chat_tool_strict(&greet_tool()).unwrap()).unwrap();
    assert_eq!(
        typed,
        greet_tool().definition_in(Format::OpenAiStrict).unwrap()
    );
    assert_eq!(typed["function"]["strict"], true);
    assert_eq!(
        typed["function"]["parameters"]["required"],
        json!(["name", "title"])
    );
}

#[test]
fn a_schema_strict_mode_cannot_express_is_an_error_naming_the_tool() {
    let err = chat_tools_strict(&[add_tool(), count_keys_tool()]).unwrap_err();
    assert_eq!(err.tool(), "count_keys");
    assert!(
        matches!(err, ToolError::UnsupportedSchema { .. }),
        "{err:?}"
    );
}

#[test]
fn a_typed_definition_deserializes_back_into_the_same_value() {
    let typed = chat_tool(&greet_tool());
    let json = serde_json::to_string(&typed).unwrap();
    let back: ChatCompletionTools = serde_json::from_str(&json).unwrap();
    assert_eq!(back, typed);
}

#[test]
fn tool_calls_of_a_typed_response_run_through_our_pipeline() {
    let response = response_with_calls(json!([
        {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": \"3\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "greet", "arguments": "{\"name\": \"Ada\"}"}}
    ]));
    let message = &response.choices[0].message;
    let calls = tool_calls(message.tool_calls.as_deref().unwrap());
    assert_eq!(
        calls[0],
        ToolCall::new("add", json!("{\"a\": 2, \"b\": \"3\"}")).with_id("call_1")
    );
    let toolbox = toolbox();
    let texts: Vec<_> = calls.iter().map(|c| toolbox.call(c).text()).collect();
    assert_eq!(texts, ["5", "Hello Ada"]);
}

#[test]
fn custom_tool_calls_are_left_out() {
    let response = response_with_calls(json!([
        {"id": "call_1", "type": "custom", "custom_tool": {"name": "sql", "input": "select 1"}},
        {"id": "call_2", "type": "function", "function": {"name": "add", "arguments": "{}"}}
    ]));
    let raw = response.choices[0].message.tool_calls.clone().unwrap();
    assert!(matches!(raw[0], ChatCompletionMessageToolCalls::Custom(_)));
    let names: Vec<_> = tool_calls(&raw).into_iter().map(|c| c.name).collect();
    assert_eq!(names, ["add"]);
}

#[test]
fn malformed_arguments_reach_the_model_as_our_error_string() {
    let response = response_with_calls(json!([
        {"id": "call_9", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 1"}}
    ]));
    let calls = tool_calls(response.choices[0].message.tool_calls.as_deref().unwrap());
    let result = toolbox().call(&calls[0]);
    assert!(result.is_error);
    let ChatCompletionRequestToolMessageContent::Text(text) = tool_message(&result).content else {
        panic!("a text message");
    };
    assert!(
        text.starts_with("Error: arguments for add were not valid JSON: "),
        "{text}"
    );
}

fn chunk(
    index: u32,
    id: Option<&str>,
    name: Option<&str>,
    args: &str,
) -> ChatCompletionMessageToolCallChunk {
    ChatCompletionMessageToolCallChunk {
        index,
        id: id.map(str::to_string),
        r#type: None,
        function: Some(FunctionCallStream {
            name: name.map(str::to_string),
            arguments: Some(args.to_string()),
        }),
    }
}

#[test]
fn streamed_chunks_assemble_into_calls_by_index() {
    let chunks = [
        chunk(0, Some("call_a"), Some("add"), ""),
        chunk(1, Some("call_b"), Some("greet"), "{\"na"),
        chunk(0, None, None, "{\"a\": 1,"),
        chunk(1, None, None, "me\": \"Bo\"}"),
        chunk(0, None, None, " \"b\": 2}"),
    ];
    let calls = assemble_tool_calls(&chunks).unwrap();
    assert_eq!(
        calls,
        [
            ToolCall::new("add", json!("{\"a\": 1, \"b\": 2}")).with_id("call_a"),
            ToolCall::new("greet", json!("{\"name\": \"Bo\"}")).with_id("call_b"),
        ]
    );
    let toolbox = toolbox();
    assert_eq!(toolbox.call(&calls[0]).text(), "3");
    assert_eq!(toolbox.call(&calls[1]).text(), "Hello Bo");
}

#[test]
fn streamed_chunks_deserialized_from_the_wire_assemble_the_same_way() {
    let chunks: Vec<ChatCompletionMessageToolCallChunk> = serde_json::from_value(json!([
        {"index": 0, "id": "call_a", "type": "function", "function": {"name": "add", "arguments": ""}},
        {"index": 0, "function": {"arguments": "{\"a\":4,\"b\":5}"}}
    ]))
    .unwrap();
    let calls = assemble_tool_calls(&chunks).unwrap();
    assert_eq!(toolbox().call(&calls[0]).text(), "9");
}

#[test]
fn a_streamed_call_without_a_name_is_an_invalid_call_error() {
    let err = assemble_tool_calls(&[chunk(2, Some("call_x"), None, "{}")]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "could not read a tool call: the streamed tool call at index 2 has no function name"
    );
}

#[test]
fn a_result_becomes_a_typed_tool_message_with_the_call_id() {
    let result = toolbox().call(&ToolCall::new("add", json!({"a": 1, "b": 1})).with_id("call_7"));
    let message = request_message(&result);
    assert_eq!(
        serde_json::to_value(&message).unwrap(),
        json!({"role": "tool", "content": "2", "tool_call_id": "call_7"})
    );
    assert_eq!(serde_json::to_value(&message).unwrap(), {
        let mut ours = result.render(Format::OpenAi);
        ours.as_object_mut().unwrap().sort_keys();
        ours
    });
    assert!(matches!(message, ChatCompletionRequestMessage::Tool(_)));
}
