//! The client scenarios of MCP 2026-07-28 (suite 0.2): the client discovers the server and
//! sends its version, capabilities and standard headers on every request; it answers
//! `input_required` through its handlers and echoes `requestState`; it mirrors `x-mcp-header`
//! arguments into `Mcp-Param-*` headers, and leaves out a tool whose annotations are invalid.

use serde_json::{Value, json};
use toolkit::context::{ElicitationAnswer, ElicitationRequest, SamplingReply, SamplingRequest};
use toolkit::mcp::McpClient;

use super::{Failure, client, find};

/// A client that answers every question: an elicitation with `{"confirmed": true}`, a sampling
/// request with a fixed text.
async fn answering(url: &str) -> Result<McpClient, Failure> {
    let client = client(url)
        .on_elicit(|_: ElicitationRequest| async {
            ElicitationAnswer::Accept(json!({"confirmed": true}))
        })
        .on_sampling(|_: SamplingRequest| async {
            serde_json::from_value::<SamplingReply>(json!({
                "role": "assistant",
                "content": {"type": "text", "text": "sampled"},
                "model": "conformance",
            }))
            .map_err(|err| err.to_string())
        })
        .connect()
        .await?;
    Ok(client)
}

/// `request-metadata`, `json-schema-ref-no-deref`: connect and list the tools, with every
/// capability declared.
pub async fn list_tools(url: &str) -> Result<(), Failure> {
    answering(url).await?.refresh().await?;
    Ok(())
}

/// `http-standard-headers`: one request of each kind the scenario checks the headers of.
pub async fn every_request(url: &str) -> Result<(), Failure> {
    let server = answering(url).await?;
    if let Some(tool) = server.tools().first() {
        tool.acall(json!({})).await?;
    }
    if let Some(resource) = server.list_resources().await?.first() {
        server.read_resource(&resource.uri).await?;
    }
    if let Some(prompt) = server.list_prompts().await?.first() {
        server.get_prompt(&prompt.name, Default::default()).await?;
    }
    Ok(())
}

/// `sep-2322-client-request-state`: each multi-round tool, the two that ask at once in
/// parallel.
pub async fn input_required(url: &str) -> Result<(), Failure> {
    let server = answering(url).await?;
    let (echo, unrelated) = (
        find(&server, "test_mrtr_echo_state")?,
        find(&server, "test_mrtr_unrelated")?,
    );
    let (first, second) = tokio::join!(echo.acall(json!({})), unrelated.acall(json!({})));
    first?;
    second?;
    for name in ["test_mrtr_no_state", "test_mrtr_no_result_type"] {
        find(&server, name)?.acall(json!({})).await?;
    }
    Ok(())
}

/// `http-custom-headers`: the calls the scenario's context names, with their arguments.
pub async fn context_calls(url: &str, context: Option<Value>) -> Result<(), Failure> {
    let server = answering(url).await?;
    let calls = context
        .as_ref()
        .and_then(|context| context.get("toolCalls"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for call in calls {
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
        let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
        find(&server, name)?.acall(arguments).await?;
    }
    Ok(())
}

/// `http-invalid-tool-headers`: every tool left listed is called, each required argument
/// given a value of its type; the invalid ones are not listed.
pub async fn call_listed(url: &str) -> Result<(), Failure> {
    let server = answering(url).await?;
    for tool in server.tools() {
        let arguments = required_arguments(&tool.definition().parameters);
        if let Err(err) = tool.acall(arguments).await {
            eprintln!("{}: {err}", tool.name());
        }
    }
    Ok(())
}

/// `json-schema-2020-12-preservation`: the focal tool's input schema, as listed, sent back to
/// the echo tool.
pub async fn echo_schema(url: &str) -> Result<(), Failure> {
    let server = answering(url).await?;
    let schema = find(&server, "json_schema_2020_12_tool")?
        .definition()
        .parameters
        .clone();
    find(&server, "json_schema_echo")?
        .acall(json!({"schema": schema}))
        .await?;
    Ok(())
}

/// A value of its type for each required property of `schema`.
fn required_arguments(schema: &Value) -> Value {
    let required = schema.get("required").and_then(Value::as_array);
    let arguments = required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|name| {
            let kind = schema["properties"][name]["type"]
                .as_str()
                .unwrap_or("string");
            let value = match kind {
                "integer" | "number" => json!(1),
                "boolean" => json!(true),
                _ => json!("us-west1"),
            };
            (name.to_owned(), value)
        });
    Value::Object(arguments.collect())
}
