//! The tools, resources and prompts of the MCP conformance suite's reference "everything"
//! server (`@modelcontextprotocol/conformance` 0.1.16, its server scenarios), written with
//! toolkit's public API only: `#[toolset]` methods, a `ctx: &ToolContext` parameter for the
//! ones that talk back, `Image`, `Audio`, `Resource` and `ToolOutput` results, and
//! `ResourceProxy`, `ResourceTemplateProxy` and `PromptProxy` for the rest. No rmcp type
//! appears here. `scripts/conformance` builds it, starts it and runs the suite against it.
//!
//! ```text
//! cargo run --example conformance_server -- --http 127.0.0.1:3001 [--stateless]
//! cargo run --example conformance_server -- --stdio
//! ```
//!
//! Over HTTP the endpoint is `http://ADDR/mcp`. Ctrl-C shuts the server down gracefully.

#[path = "conformance_server/asking.rs"]
mod asking;

use std::time::Duration;

use serde::{Deserialize, Serialize};
use toolkit::completion::Completer;
use toolkit::context::{ContextError, SamplingRequest};
use toolkit::mcp::{HttpOptions, McpServer};
use toolkit::prelude::*;
use toolkit::prompts::{PromptArgument, PromptDefinition};
use toolkit::resources::{RequestError, ResourceDefinition, ResourceTemplateDefinition, arg};
use toolkit::schemars::JsonSchema;
use toolkit::{PromptProxy, ResourceContents, ResourceProxy, ResourceTemplateProxy};

/// A 1x1 red PNG, the suite's own test image.
const TEST_IMAGE_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file, the suite's own test audio.
const TEST_AUDIO_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The reference server's pause between two notifications: long enough that a client sees
/// them arrive one by one during the call.
const STEP: Duration = Duration::from_millis(50);

#[derive(Default)]
struct Everything;

// The toolset's name prefixes each method's: `simple_text` is served as `test_simple_text`,
// the name the suite calls.
#[toolset(name = "test")]
impl Everything {
    /// Tests simple text content response
    #[tool]
    fn simple_text(&self) -> String {
        "This is a simple text response for testing.".to_owned()
    }

    /// Tests image content response
    #[tool]
    fn image_content(&self) -> Image {
        Image::from_base64(TEST_IMAGE_BASE64, "image/png")
    }

    /// Tests audio content response
    #[tool]
    fn audio_content(&self) -> Audio {
        Audio::from_base64(TEST_AUDIO_BASE64, "audio/wav")
    }

    /// Tests embedded resource content response
    #[tool]
    fn embedded_resource(&self) -> Resource {
        Resource::text(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        )
    }

    /// Tests response with multiple content types (text, image, resource)
    #[tool]
    fn multiple_content_types(&self) -> ToolOutput {
        let data = serde_json::json!({"test": "data", "value": 123}).to_string();
        ToolOutput::new()
            .with("Multiple content types test:")
            .with(Image::from_base64(TEST_IMAGE_BASE64, "image/png"))
            .with(Resource::text(
                "test://mixed-content-resource",
                "application/json",
                data,
            ))
    }

    /// Tests tool that emits log messages during execution
    #[tool]
    async fn tool_with_logging(&self, ctx: &ToolContext) -> String {
        ctx.info("Tool execution started");
        tokio::time::sleep(STEP).await;
        ctx.info("Tool processing data");
        tokio::time::sleep(STEP).await;
        ctx.info("Tool execution completed");
        "Tool with logging executed successfully".to_owned()
    }

    /// Logs one message: a 2026-07-28 request that names no `logLevel` in its `_meta` hears
    /// none of it
    #[tool]
    async fn logging_tool(&self, ctx: &ToolContext) -> String {
        ctx.info("Logging tool called");
        "Logging tool executed".to_owned()
    }

    /// Tests tool that reports progress notifications
    #[tool]
    async fn tool_with_progress(&self, ctx: &ToolContext) -> String {
        for (step, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
            if step > 0 {
                tokio::time::sleep(STEP).await;
            }
            ctx.progress(done, Some(100.0), format!("Completed step {done} of 100"));
        }
        "Tool with progress executed successfully".to_owned()
    }

    /// Tests error response handling
    #[tool]
    fn error_handling(&self) -> Result<String, String> {
        Err("This tool intentionally returns an error for testing".to_owned())
    }

    /// Tests server-initiated sampling (LLM completion request)
    ///
    /// # Arguments
    /// * `prompt` - The prompt to send to the LLM
    #[tool]
    async fn sampling(&self, ctx: &ToolContext, prompt: String) -> Result<String, String> {
        let request = SamplingRequest::new(prompt).max_tokens(100);
        let reply = ctx.sample(request).await.map_err(|err| err.to_string())?;
        Ok(format!(
            "LLM response: {}",
            reply.text().unwrap_or("No response")
        ))
    }

    /// Tests server-initiated elicitation (user input request)
    ///
    /// # Arguments
    /// * `message` - The message to show the user
    #[tool]
    async fn elicitation(&self, ctx: &ToolContext, message: String) -> Result<String, String> {
        let answer = ctx.elicit::<Contact>(message).await;
        Ok(format!("User response: {}", described(answer)?))
    }

    /// Tests elicitation with default values per SEP-1034
    #[tool]
    async fn elicitation_sep1034_defaults(&self, ctx: &ToolContext) -> Result<String, String> {
        let asked = "Please review and update the form fields with defaults";
        let answer = ctx.elicit::<Profile>(asked).await;
        Ok(format!("Elicitation completed: {}", described(answer)?))
    }

    /// Tests elicitation with enum schema improvements per SEP-1330
    #[tool]
    async fn elicitation_sep1330_enums(&self, ctx: &ToolContext) -> Result<String, String> {
        let answer = ctx
            .elicit::<Choices>("Please select options from the enum fields")
            .await;
        Ok(format!("Elicitation completed: {}", described(answer)?))
    }

    /// Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)
    #[tool(name = "json_schema_2020_12_tool")]
    fn json_schema_2020_12(&self, name: Option<String>, address: Option<Address>) -> String {
        let args = serde_json::json!({"name": name, "address": address});
        format!("JSON Schema 2020-12 tool called with: {args}")
    }
}

/// `action=<accept/decline/cancel>, content={...}`, as the reference server words an answer.
fn described<T: Serialize>(answer: Result<Elicited<T>, ContextError>) -> Result<String, String> {
    let (action, content) = match answer.map_err(|err| err.to_string())? {
        Elicited::Accepted(value) => (
            "accept",
            serde_json::to_value(value).map_err(|err| err.to_string())?,
        ),
        Elicited::Declined => ("decline", serde_json::json!({})),
        Elicited::Cancelled => ("cancel", serde_json::json!({})),
    };
    Ok(format!("action={action}, content={content}"))
}

/// A postal address: the `$defs` entry of the 2020-12 tool's schema, named `address` there as
/// the suite expects (schemars names a definition after its type unless told).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "address")]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

// The forms the tools ask the user to fill (`elicitation/create`): plain structs whose
// schemas schemars derives, as a user of toolkit writes them.
/// `test_elicitation`: who the user is.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// `test_elicitation_sep1034_defaults`: every primitive type, each with a default (SEP-1034).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Profile {
    /// User name
    #[serde(default = "default_name")]
    name: String,
    /// User age
    #[serde(default = "default_age")]
    age: i64,
    /// User score
    #[serde(default = "default_score")]
    score: f64,
    /// User status
    #[serde(default)]
    status: Status,
    /// Verification status
    #[serde(default = "default_verified")]
    verified: bool,
}

fn default_name() -> String {
    "John Doe".to_owned()
}

fn default_age() -> i64 {
    30
}

fn default_score() -> f64 {
    95.5
}

fn default_verified() -> bool {
    true
}

/// A user's status.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

/// `test_elicitation_sep1330_enums`: the five enum shapes of SEP-1330.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Choices {
    /// Select one option
    untitled_single: Option<Plain>,
    /// Select one option with titles
    titled_single: Option<Titled>,
    /// Select one option (legacy)
    legacy_enum: Option<Legacy>,
    /// Select multiple options
    #[schemars(length(min = 1, max = 3))]
    untitled_multi: Option<Vec<Plain>>,
    /// Select multiple options with titles
    #[schemars(length(min = 1, max = 3))]
    titled_multi: Option<Vec<TitledChoice>>,
}

/// Options without titles: a plain `enum`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Plain {
    Option1,
    Option2,
    Option3,
}

/// Options with titles: `oneOf` of `const`/`title`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(extend("type" = "string"))]
enum Titled {
    #[schemars(title = "First Option")]
    Value1,
    #[schemars(title = "Second Option")]
    Value2,
    #[schemars(title = "Third Option")]
    Value3,
}

/// Options titled the legacy way, `enumNames` beside `enum`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
enum Legacy {
    Opt1,
    Opt2,
    Opt3,
}

/// Choices with titles, for a multi-select.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    #[schemars(title = "First Choice")]
    Value1,
    #[schemars(title = "Second Choice")]
    Value2,
    #[schemars(title = "Third Choice")]
    Value3,
}

/// The reference server's resources: a text one, a binary one, a templated one and one to
/// subscribe to.
fn with_resources(server: McpServer) -> Result<McpServer, Box<dyn std::error::Error>> {
    let text = ResourceDefinition::new("test://static-text", "Static Text Resource")
        .description("A static text resource for testing")
        .mime_type("text/plain");
    let binary = ResourceDefinition::new("test://static-binary", "Static Binary Resource")
        .description("A static binary resource (image) for testing")
        .mime_type("image/png");
    let watched = ResourceDefinition::new("test://watched-resource", "Watched Resource")
        .description("A resource that can be subscribed to")
        .mime_type("text/plain");
    let template =
        ResourceTemplateDefinition::new("test://template/{id}/data", "Resource Template")?
            .description("A resource template with parameter substitution")
            .mime_type("application/json");
    let template = ResourceTemplateProxy::from_fn(template, |params| {
        let id: String = arg(&params, "id")?;
        let data = serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
        Ok::<_, RequestError>(data)
    })
    .with_completer("id", Completer::values(["1", "2", "3", "123"]));
    Ok(server
        .with_resource(ResourceProxy::from_fn(
            text,
            || "This is the content of the static text resource.",
        ))
        .with_resource(ResourceProxy::from_fn(binary, || ResourceContents {
            uri: "test://static-binary".into(),
            mime_type: Some("image/png".into()),
            text: None,
            blob: Some(TEST_IMAGE_BASE64.into()),
        }))
        .with_resource(ResourceProxy::from_fn(
            watched,
            || "Watched resource content",
        ))
        .with_resource_template(template))
}

/// The reference server's prompts: a simple one, one with arguments, one embedding a resource
/// and one with an image.
fn with_prompts(server: McpServer) -> McpServer {
    let simple = PromptDefinition::new("test_simple_prompt")
        .description("A simple prompt without arguments");
    let with_args = PromptDefinition::new("test_prompt_with_arguments")
        .description("A prompt with required arguments")
        .argument(PromptArgument::required("arg1").description("First test argument"))
        .argument(PromptArgument::required("arg2").description("Second test argument"));
    let embedded = PromptDefinition::new("test_prompt_with_embedded_resource")
        .description("A prompt that includes an embedded resource")
        .argument(
            PromptArgument::required("resourceUri").description("URI of the resource to embed"),
        );
    let image = PromptDefinition::new("test_prompt_with_image")
        .description("A prompt that includes image content");
    let text = |args: &serde_json::Map<String, Value>, name: &str| {
        args.get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    server
        .with_prompt(PromptProxy::from_fn(
            simple,
            |_| "This is a simple prompt for testing.",
        ))
        .with_prompt(
            PromptProxy::from_fn(with_args, move |args| {
                let (arg1, arg2) = (text(&args, "arg1"), text(&args, "arg2"));
                format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
            })
            .with_completer("arg1", Completer::values(["paris", "park", "party"])),
        )
        .with_prompt(PromptProxy::from_fn(embedded, move |args| {
            let uri = text(&args, "resourceUri");
            let resource =
                Resource::text(uri, "text/plain", "Embedded resource content for testing.");
            vec![
                PromptMessage::user(resource),
                PromptMessage::user("Please process the embedded resource above."),
            ]
        }))
        .with_prompt(PromptProxy::from_fn(image, |_| {
            vec![
                PromptMessage::user(Image::from_base64(TEST_IMAGE_BASE64, "image/png")),
                PromptMessage::user("Please analyze the image above."),
            ]
        }))
}

// The fixtures of the 0.2 suite's Tasks extension and header scenarios, named as it calls them.

/// Greets someone by name
#[tool]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

/// Waits `seconds`, then answers; a client with tasks gets a task to poll
#[tool(task = "optional")]
async fn slow_compute(seconds: f64, label: Option<String>) -> String {
    let wait = Duration::try_from_secs_f64(seconds.clamp(0.0, 600.0)).unwrap_or_default();
    tokio::time::sleep(wait).await;
    format!(
        "{} done after {seconds} s",
        label.as_deref().unwrap_or("job")
    )
}

/// Fails after a second; runs as a task only
#[tool(task)]
async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err("the job failed, as it always does".into())
}

/// Panics; runs as a task only, which then ends `failed` with an internal error
#[tool(task)]
async fn protocol_error_job() -> String {
    panic!("protocol_error_job always fails this way")
}

/// Answers with the region a gateway routes the call to (the `Mcp-Param-Region` header)
#[tool]
fn routed_echo(#[arg(header = "Region")] region: String) -> String {
    format!("routed to {region}")
}

const USAGE: &str = "usage: conformance_server --stdio | --http ADDR [--stateless]";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let fixtures = [
        greet_tool(),
        slow_compute_tool(),
        failing_job_tool(),
        protocol_error_job_tool(),
        routed_echo_tool(),
        asking::confirm_delete_tool(),
        asking::multi_input_tool(),
    ];
    let tools = Everything::to_tools()
        .into_iter()
        .chain(asking::Asking::to_tools())
        .chain(fixtures);
    let server = McpServer::new(tools).with_name("toolkit-conformance", env!("CARGO_PKG_VERSION"));
    let server = with_prompts(with_resources(server)?).with_prompt(asking::prompt());
    match args.first().map(String::as_str) {
        Some("--stdio") => server.serve_stdio().await?,
        Some("--http") => {
            let addr = args.get(1).ok_or(USAGE)?;
            let stateless = args.iter().any(|arg| arg == "--stateless");
            let options = HttpOptions::default().stateless(stateless);
            let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
            // The resolved address, for a caller that asked for port 0.
            println!("listening on http://{}/mcp", listener.local_addr()?);
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            server.serve_http(listener, options, shutdown).await?;
        }
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
