//! Results that are more than JSON (issue 26): an image result rendered in each provider's
//! documented shape, the flag (not the shape) deciding what is content, the output bound kept
//! without cutting base64, and a `#[tool]` schema listed in MCP with `$schema` and `$defs`.
//!
//! Each expected shape names the page it is documented on.

use toolkit::models::{ChatOptions, ChatRequest, Message};
use toolkit::prelude::*;
use toolkit::providers::{Format, ToolDefinitions, anthropic, openai};
use toolkit::{Limits, ToolError};

/// The first bytes of a PNG, base64: what every rendering below carries unchanged.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUg==";

/// Draw a chart
#[tool]
fn chart() -> Image {
    Image::from_base64(PNG, "image/png")
}

/// Draw a chart, with a caption and its numbers
#[tool]
fn captioned_chart() -> ToolOutput {
    ToolOutput::new()
        .with("Sales by month")
        .with(Image::from_base64(PNG, "image/png"))
        .structured(json!({"months": 2}))
}

/// Return JSON that merely looks like an MCP image
#[tool]
fn lookalike() -> Value {
    json!({"type": "image", "data": PNG, "mimeType": "image/png"})
}

/// Read a report: a PDF, a text file, a recording and a link
#[tool]
fn report() -> Vec<Content> {
    vec![
        Resource::bytes("file:///r/report.pdf", "application/pdf", b"%PDF-1.7").into(),
        Resource::text("file:///r/notes.txt", "text/plain", "two notes").into(),
        Audio::from_base64("UklGRg==", "audio/wav").into(),
        ResourceLink::new("file:///r/data.csv", "data.csv")
            .mime_type("text/csv")
            .into(),
    ]
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .tool(chart_tool())
        .tool(captioned_chart_tool())
        .tool(lookalike_tool())
        .tool(report_tool())
        .build()
        .unwrap()
}

fn called(name: &str) -> ToolCallResult {
    toolbox().call(&ToolCall::new(name, json!({})).with_id("call_1"))
}

// ---------------------------------------------------------------------------------------------
// One image result, each format

/// MCP `CallToolResult`: the image as its content block, `isError` false.
/// <https://modelcontextprotocol.io/specification/2025-11-25/server/tools#image-content>
#[test]
fn an_image_result_is_an_mcp_image_block() {
    let result = called("chart");
    let expected = json!({
        "content": [{"type": "image", "data": PNG, "mimeType": "image/png"}],
        "isError": false
    });
    assert_eq!(result.render(Format::Mcp), expected);
    assert_eq!(chart_tool().mcp_result(result).to_json(), expected);
}

/// MCP with text and structured content beside the image.
/// <https://modelcontextprotocol.io/specification/2025-11-25/server/tools#structured-content>
#[test]
fn a_tool_output_keeps_its_blocks_and_structured_content_in_mcp() {
    let result = called("captioned_chart");
    assert_eq!(
        captioned_chart_tool().mcp_result(result).to_json(),
        json!({
            "content": [
                {"type": "text", "text": "Sales by month"},
                {"type": "image", "data": PNG, "mimeType": "image/png"}
            ],
            "structuredContent": {"months": 2},
            "isError": false
        })
    );
}

/// Anthropic Messages: a `tool_result` whose `content` is a list of blocks; an image block has a
/// base64 `source` with `media_type` and `data`.
/// <https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use#handling-tool-use-and-tool-result-content-blocks>
/// (tool_result `content`: "a string ... or list of nested content blocks (text, image, or
/// document)"), <https://docs.claude.com/en/docs/build-with-claude/vision#base64-encoded-image-example>
#[test]
fn an_image_result_is_an_anthropic_image_block() {
    assert_eq!(
        called("captioned_chart").render(Format::Anthropic),
        json!({
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": [
                {"type": "text", "text": "Sales by month"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
            ],
            "is_error": false
        })
    );
}

/// OpenAI Responses: a `function_call_output` whose `output` is an array of input parts; an
/// image is `input_image` with a base64 data URL in `image_url`.
/// <https://platform.openai.com/docs/api-reference/responses/create> (input item "Function tool
/// call output": `output` is a string or a list of `input_text`, `input_image`, `input_file`),
/// <https://platform.openai.com/docs/guides/function-calling> ("files and images as tool call
/// outputs").
#[test]
fn an_image_result_is_a_responses_input_image() {
    assert_eq!(
        called("captioned_chart").render(Format::OpenAiResponses),
        json!({
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "Sales by month"},
                {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}")}
            ]
        })
    );
}

/// Gemini: a `functionResponse` with the JSON `response` and the media in `parts`, each
/// `{"inlineData": {"mimeType", "data"}}`.
/// <https://ai.google.dev/gemini-api/docs/function-calling#multimodal> ("Multimodal function
/// responses"), <https://ai.google.dev/api/caching#FunctionResponse> (`parts[]`:
/// FunctionResponsePart, `inlineData`: FunctionResponseBlob `{mimeType, data}`).
#[test]
fn an_image_result_is_gemini_inline_data() {
    assert_eq!(
        called("captioned_chart").render(Format::Gemini),
        json!({"functionResponse": {
            "id": "call_1",
            "name": "captioned_chart",
            "response": {"output": "Sales by month", "structuredContent": {"months": 2}},
            "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}]
        }})
    );
}

/// Chat Completions: a tool message's content is text only, so it names the image, and the
/// image goes in the user message after the tool messages as an `image_url` part holding a data
/// URL. <https://platform.openai.com/docs/api-reference/chat/create> (tool message `content`:
/// string or array of text parts; user message content parts `text` and `image_url`),
/// <https://platform.openai.com/docs/guides/images-vision#passing-a-base64-encoded-image>.
#[test]
fn a_chat_completions_tool_message_names_the_image_and_a_user_message_shows_it() {
    let result = called("captioned_chart");
    let note = "[image (image/png), 16 bytes] (shown in the user message after the tool results)";
    for format in [Format::OpenAi, Format::OpenAiStrict] {
        assert_eq!(
            result.render(format),
            json!({
                "role": "tool",
                "tool_call_id": "call_1",
                "content": format!("Sales by month\n{note}")
            })
        );
    }
    assert_eq!(
        openai::tool_images_message([&result]).unwrap(),
        json!({"role": "user", "content": [
            {"type": "text", "text": "The images the tool call call_1 (captioned_chart) returned:"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}}
        ]})
    );
}

/// Resources, audio and links: a PDF is an Anthropic `document` with a base64 source and a
/// text file a `document` with a text source
/// (<https://docs.claude.com/en/docs/build-with-claude/pdf-support>,
/// <https://docs.claude.com/en/docs/build-with-claude/citations#plain-text-documents>); a PDF is
/// a Responses `input_file` with a data URL in `file_data` and a `filename`
/// (<https://platform.openai.com/docs/guides/pdf-files>); Anthropic has no audio block, so audio
/// is text saying so.
#[test]
fn resources_audio_and_links_render_as_each_format_documents_them() {
    let result = called("report");
    let pdf = "JVBERi0xLjc=";
    assert_eq!(
        result.render(Format::Anthropic)["content"],
        json!([
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": pdf}, "title": "file:///r/report.pdf"},
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "two notes"}, "title": "file:///r/notes.txt"},
            {"type": "text", "text": "[audio (audio/wav), 4 bytes] (Anthropic's tool results carry no audio)"},
            {"type": "text", "text": "[resource link: data.csv file:///r/data.csv (text/csv)]"}
        ])
    );
    assert_eq!(
        result.render(Format::OpenAiResponses)["output"],
        json!([
            {"type": "input_file", "filename": "report.pdf", "file_data": format!("data:application/pdf;base64,{pdf}")},
            {"type": "input_text", "text": "[resource file:///r/notes.txt (text/plain)]\ntwo notes"},
            {"type": "input_text", "text": "[audio (audio/wav), 4 bytes]"},
            {"type": "input_text", "text": "[resource link: data.csv file:///r/data.csv (text/csv)]"}
        ])
    );
    assert_eq!(
        result.render(Format::Gemini)["functionResponse"]["parts"],
        json!([{"inlineData": {"mimeType": "application/pdf", "data": pdf}}])
    );
    // MCP carries every block as it is.
    assert_eq!(
        result.render(Format::Mcp)["content"],
        serde_json::to_value(report()).unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// The flag decides, not the shape

/// A tool that returns JSON is rendered as JSON, however much its JSON looks like an image.
#[test]
fn json_that_looks_like_an_image_is_not_rendered_as_one() {
    let result = called("lookalike");
    assert!(result.content().is_none());
    let text = json!({"type": "image", "data": PNG, "mimeType": "image/png"}).to_string();
    assert_eq!(
        result.render(Format::Anthropic),
        json!({"type": "tool_result", "tool_use_id": "call_1", "content": text, "is_error": false})
    );
    assert_eq!(
        result.render(Format::OpenAiResponses),
        json!({"type": "function_call_output", "call_id": "call_1", "output": text})
    );
    assert_eq!(
        result.render(Format::Mcp)["content"],
        json!([{"type": "text", "text": text}])
    );
    assert_eq!(openai::tool_images_message([&result]), None);
}

/// `dynamic_call` still returns JSON: an image as its MCP content object.
#[test]
fn dynamic_call_still_returns_the_image_as_json() {
    assert_eq!(
        chart_tool().dynamic_call(json!({})),
        json!({"type": "image", "data": PNG, "mimeType": "image/png"})
    );
    assert_eq!(called("chart").value, chart_tool().dynamic_call(json!({})));
}

/// A content result written out and read back (a saved conversation) is still content.
#[test]
fn a_content_result_read_back_is_still_content() {
    let result = called("chart");
    let saved = serde_json::to_value(&result).unwrap();
    assert_eq!(saved["is_content"], true);
    let read: ToolCallResult = serde_json::from_value(saved).unwrap();
    assert_eq!(read, result);
    assert!(read.content().is_some());
    // A JSON result is written as before, without the flag.
    let plain = serde_json::to_value(called("lookalike")).unwrap();
    assert!(plain.get("is_content").is_none(), "{plain}");
}

// ---------------------------------------------------------------------------------------------
// The output bound

/// An image over the output bound is replaced by a note, never cut in half; the text before it
/// stays. Figure: a bound of 20 bytes; the caption's 14 bytes are kept, the image's 24 bytes
/// of base64 are left out.
#[test]
fn an_image_over_the_output_bound_becomes_a_note() {
    let toolbox = Toolbox::builder()
        .tool(captioned_chart_tool())
        .limits(Limits::default().with_max_output_bytes(20))
        .build()
        .unwrap();
    let result = toolbox.call(&ToolCall::new("captioned_chart", json!({})));
    let output = result.content().unwrap();
    assert_eq!(
        output,
        ToolOutput::new()
            .with("Sales by month")
            .with("[image (image/png) of 24 bytes left out: over the output limit of 20 bytes]")
            .with("[structured content of 12 bytes left out: over the output limit of 20 bytes]")
    );
    assert!(!result.value.to_string().contains(PNG));
}

// ---------------------------------------------------------------------------------------------
// Requests an agent sends

/// An agent on Anthropic sends the image as an image block in the `tool_result`, not the
/// image's JSON as a 5,500-character string (the issue's `to_anthropic()` point).
#[test]
fn an_anthropic_request_carries_the_tool_result_image_block() {
    let result = called("chart");
    let messages = [
        Message::user("draw it"),
        Message::assistant_calls(
            None,
            vec![ToolCall::new("chart", json!({})).with_id("call_1")],
        ),
        Message::Tool { result },
    ];
    let options = ChatOptions::default();
    let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
    let body = anthropic::request_body(&request, "claude-sonnet-4-5", 1024, false).unwrap();
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [{
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}],
            "is_error": false
        }]})
    );
}

/// An agent on Chat Completions sends the tool messages, then one user message with their
/// images, then the rest of the conversation.
#[test]
fn a_chat_completions_request_sends_the_images_after_the_tool_messages() {
    let calls = vec![
        ToolCall::new("chart", json!({})).with_id("call_1"),
        ToolCall::new("lookalike", json!({})).with_id("call_2"),
    ];
    let messages = [
        Message::user("draw it"),
        Message::assistant_calls(None, calls.clone()),
        Message::Tool {
            result: toolbox().call(&calls[0]),
        },
        Message::Tool {
            result: toolbox().call(&calls[1]),
        },
        Message::user("thanks"),
    ];
    let options = ChatOptions::default();
    let request = ChatRequest::new(&messages, ToolDefinitions::none(), &options);
    let body = openai::request_body(&request, "gpt-4o", false, false).unwrap();
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool", "user", "user"]);
    assert_eq!(
        body["messages"][4]["content"][1],
        json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}})
    );
    assert_eq!(
        body["messages"][5],
        json!({"role": "user", "content": "thanks"})
    );
}

/// An error from a content tool is an error, as for any tool.
#[test]
fn a_content_tool_error_renders_as_an_error() {
    let call = ToolCall::new("chart", json!({})).with_id("call_1");
    let err = ToolError::Failed {
        tool: "chart".into(),
        message: "no data".into(),
    };
    let result = ToolCallResult::from_outcome(&call, Err(err));
    assert!(result.content().is_none());
    assert_eq!(
        chart_tool().mcp_result(result).to_json(),
        json!({"content": [{"type": "text", "text": "no data"}], "isError": true})
    );
}

// ---------------------------------------------------------------------------------------------
// `$schema` and `$defs` for MCP

/// Where a place is on the map.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Geo {
    /// Degrees north
    #[schemars(range(min = -90, max = 90))]
    lat: f64,
    /// Degrees east
    #[schemars(range(min = -180, max = 180))]
    lon: f64,
}

/// A postal address.
#[derive(serde::Deserialize, schemars::JsonSchema)]
// Named `address` in `$defs`, as the conformance scenario expects.
#[schemars(rename = "address")]
#[allow(dead_code)]
struct Address {
    street: Option<String>,
    city: Option<String>,
    geo: Option<Geo>,
}

/// Tool with JSON Schema 2020-12 features
#[tool]
fn json_schema_2020_12_tool(name: Option<String>, address: Option<Address>) -> String {
    let city = address.and_then(|a| a.city).unwrap_or_default();
    format!("{} in {city}", name.unwrap_or_default())
}

/// The MCP conformance suite's `json-schema-2020-12` scenario (`@modelcontextprotocol/conformance`
/// 0.1.16, `src/scenarios/server/json-schema-2020-12.ts`) lists `json_schema_2020_12_tool` and
/// checks its `inputSchema`: `$schema` is `https://json-schema.org/draft/2020-12/schema`, `$defs`
/// has `address`, `additionalProperties` is `false`. A `#[tool]` now lists as schemars wrote it,
/// nested types in `$defs`, while every provider format still gets the inlined schema.
#[test]
fn a_tool_schema_keeps_schema_and_defs_in_mcp_and_is_inlined_for_providers() {
    let tool = json_schema_2020_12_tool_tool();
    let listed = tool.definition_in(Format::Mcp).unwrap();
    let schema = &listed["inputSchema"];
    assert_eq!(
        *schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "name": {"type": ["string", "null"]},
                "address": {"anyOf": [{"$ref": "#/$defs/address"}, {"type": "null"}]}
            },
            "additionalProperties": false,
            "$defs": {
                "address": {
                    "description": "A postal address.",
                    "type": "object",
                    "properties": {
                        "street": {"type": ["string", "null"]},
                        "city": {"type": ["string", "null"]},
                        "geo": {"anyOf": [{"$ref": "#/$defs/Geo"}, {"type": "null"}]}
                    }
                },
                "Geo": {
                    "description": "Where a place is on the map.",
                    "type": "object",
                    "properties": {
                        "lat": {"description": "Degrees north", "type": "number", "minimum": -90, "maximum": 90},
                        "lon": {"description": "Degrees east", "type": "number", "minimum": -180, "maximum": 180}
                    },
                    "required": ["lat", "lon"]
                }
            }
        })
    );
    // The scenario's three checks, as it words them.
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(schema["$defs"].get("address").is_some());
    assert_eq!(schema["additionalProperties"], false);

    // The providers read the inlined schema: no `$ref`, no `$defs`, no `$schema`.
    for format in [
        Format::OpenAi,
        Format::Anthropic,
        Format::Gemini,
        Format::OpenAiStrict,
    ] {
        let text = tool.definition_in(format).unwrap().to_string();
        assert!(
            !text.contains("$ref") && !text.contains("$defs"),
            "{format:?}: {text}"
        );
        assert!(!text.contains("$schema"), "{format:?}: {text}");
    }

    // The listed schema compiles in toolkit's validator and checks what the tool's does.
    let relisted = ToolBuilder::new("relisted")
        .description("The listed schema, as a tool")
        .parameters(schema.clone())
        .build(|_| Ok::<_, String>("ok"))
        .unwrap();
    let good =
        json!({"name": "Ada", "address": {"city": "London", "geo": {"lat": 51.5, "lon": 0.1}}});
    assert_eq!(relisted.call(good.clone()).unwrap(), json!("ok"));
    assert_eq!(tool.call(good).unwrap(), json!("Ada in London"));
    let bad = json!({"address": {"geo": {"lat": 91, "lon": 0}}});
    assert!(relisted.call(bad.clone()).is_err());
    assert!(tool.call(bad).is_err());
}

/// A tool whose parameters have no named types lists exactly as before: no `$schema` added.
#[test]
fn a_schema_without_definitions_lists_as_before() {
    let listed = chart_tool().definition_in(Format::Mcp).unwrap();
    assert_eq!(
        listed["inputSchema"],
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

// ---------------------------------------------------------------------------------------------
// Through the MCP server

/// Our MCP server sends a content tool's blocks as they are, byte-exact, and lists a `#[tool]`
/// schema with `$schema` and `$defs`; an rmcp client in the same process reads both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_server_sends_content_blocks_and_lists_defs() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use toolkit::mcp::McpServer;

    let server = McpServer::new([
        captioned_chart_tool(),
        report_tool(),
        json_schema_2020_12_tool_tool(),
    ]);
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_io);
    let served = tokio::spawn(server.serve_io(read, write));
    let client = ().serve(client_io).await.expect("initialize");

    let tools = client.list_all_tools().await.expect("tools/list");
    let listed = serde_json::to_value(&tools[2]).unwrap();
    assert_eq!(listed["name"], "json_schema_2020_12_tool");
    assert_eq!(
        listed["inputSchema"]["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(listed["inputSchema"]["$defs"].get("address").is_some());
    assert_eq!(listed["inputSchema"]["additionalProperties"], false);

    let call = |name: &str| client.call_tool(CallToolRequestParams::new(name.to_owned()));
    let chart = serde_json::to_value(call("captioned_chart").await.unwrap()).unwrap();
    assert_eq!(
        chart["content"],
        json!([
            {"type": "text", "text": "Sales by month"},
            {"type": "image", "data": PNG, "mimeType": "image/png"}
        ])
    );
    assert_eq!(chart["structuredContent"], json!({"months": 2}));
    assert_eq!(chart["isError"], false);
    let read = serde_json::to_value(call("report").await.unwrap()).unwrap();
    assert_eq!(read["content"], serde_json::to_value(report()).unwrap());

    client.cancel().await.expect("close the client");
    served
        .await
        .expect("the server task")
        .expect("the server ends cleanly");
}
