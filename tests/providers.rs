//! Every provider's wire format: tool definitions out, tool calls in, tool results out.
//!
//! The golden files under `tests/fixtures/providers/` hold request and response bodies in each
//! provider's documented shape (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini
//! `generateContent`, MCP `tools/list` and `tools/call`). Each round trip sends our definitions,
//! reads the provider's tool calls, dispatches them by name and renders the results, comparing
//! every body field by field with the fixture.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;
use toolkit::providers::Format;

// ---------------------------------------------------------------------------------------------
// The tools of this suite

/// Add two integers
#[tool(read_only, idempotent)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Say hello to someone
#[tool]
pub fn greet(
    /// Who to greet
    name: String,
    /// End with an exclamation mark
    #[arg(default)]
    excited: bool,
) -> String {
    format!("Hello, {name}{}", if excited { "!" } else { "." })
}

/// Fetch the title of a web page
#[tool(name = "fetch_title", open_world)]
async fn fetch(
    /// The page's address
    url: String,
) -> Result<String, String> {
    match url.strip_prefix("https://") {
        Some(host) => Ok(format!("Welcome to {host}")),
        None => Err(format!("{url} is not an https address")),
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    degrees: f64,
    unit: Unit,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Filter {
    /// Words the result must contain
    #[schemars(length(min = 1))]
    words: Vec<String>,
    /// Only results newer than this many days
    max_age_days: Option<u32>,
}

#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema)]
struct Category {
    name: String,
    children: Vec<Category>,
}

#[derive(Default)]
struct WeatherToolset;

#[toolset(name = "weather")]
impl WeatherToolset {
    /// Current temperature in a city
    #[tool(read_only)]
    fn current(
        &self,
        /// City name, e.g. Paris
        city: String,
        /// Temperature unit; Celsius when left out
        unit: Option<Unit>,
    ) -> Forecast {
        let unit = unit.unwrap_or(Unit::Celsius);
        let degrees = match unit {
            Unit::Celsius => 21.0,
            Unit::Fahrenheit => 70.0,
        };
        Forecast {
            city,
            degrees,
            unit,
        }
    }

    /// Search the archive
    #[tool]
    fn search(
        &self,
        /// What to look for
        query: String,
        /// Narrow the results
        filter: Option<Filter>,
        /// Results per page
        #[arg(default = 10)]
        page_size: u32,
    ) -> Vec<String> {
        let words = filter
            .map(|f| {
                let age = f.max_age_days.map(|d| format!("<{d}d")).unwrap_or_default();
                format!("{}{age}", f.words.join("+"))
            })
            .unwrap_or_default();
        vec![format!("{query}:{words}:{page_size}")]
    }

    /// Count the categories in a tree
    #[tool]
    fn count_categories(&self, root: Category) -> usize {
        fn count(c: &Category) -> usize {
            1 + c.children.iter().map(count).sum::<usize>()
        }
        count(&root)
    }
}

/// Sum the values of a map of counters
#[tool]
fn total(counts: HashMap<String, i64>) -> i64 {
    counts.values().sum()
}

/// Split a pair into a sentence
#[tool]
fn pair(pair: (String, i64)) -> String {
    format!("{} = {}", pair.0, pair.1)
}

fn stock_tool() -> ToolProxy {
    ToolBuilder::new("stock_level")
        .description("How many of an item are in stock")
        .parameters(json!({
            "type": "object",
            "properties": {
                "sku": {"type": "string", "minLength": 3},
                "warehouse": {"type": "integer", "enum": [1, 2, 7]}
            },
            "required": ["sku"]
        }))
        .arg_description("sku", "The item's stock-keeping unit")
        .build(|args| {
            let sku = args["sku"].as_str().unwrap_or_default().to_owned();
            let warehouse = args.get("warehouse").and_then(Value::as_i64).unwrap_or(1);
            Ok::<_, String>(json!({"sku": sku, "warehouse": warehouse, "count": 4}))
        })
        .unwrap()
}

/// The tools the golden round trips offer.
fn golden_tools() -> Vec<ToolProxy> {
    let mut tools = vec![greet_tool()];
    tools.extend(
        WeatherToolset::to_tools()
            .into_iter()
            .filter(|t| t.name() == "weather_current"),
    );
    tools
}

/// Every tool of this suite, and the built-in toolsets toolkit ships.
fn all_tools() -> Vec<ToolProxy> {
    let mut tools = vec![
        add_tool(),
        greet_tool(),
        fetch_tool(),
        total_tool(),
        pair_tool(),
        stock_tool(),
    ];
    tools.extend(WeatherToolset::to_tools());
    tools.extend(toolkit::builtin::TextProcessingToolset::to_tools());
    #[cfg(feature = "github")]
    tools.extend(toolkit::builtin::GithubCliToolset::to_tools());
    tools
}

/// Tools whose schema strict mode cannot express, and why.
fn strict_mode_refusals() -> BTreeMap<&'static str, &'static str> {
    #[allow(unused_mut)]
    let mut refusals = BTreeMap::from([
        (
            "total",
            "tool total cannot be sent to OpenAI strict mode: at counts.additionalProperties: an \
             object with arbitrary keys (a map) cannot be expressed in strict mode: every key \
             must be a named property; use a struct or a list of key/value pairs",
        ),
        (
            "pair",
            "tool pair cannot be sent to OpenAI strict mode: at pair.prefixItems: tuples \
             (`prefixItems`) are not supported by strict mode; use a struct",
        ),
    ]);
    // Its `fields` are a map of form fields; non-strict OpenAI, Anthropic, Gemini and MCP take it.
    #[cfg(feature = "github")]
    refusals.insert(
        "github_api_request",
        "tool github_api_request cannot be sent to OpenAI strict mode: at \
         fields.additionalProperties: an object with arbitrary keys (a map) cannot be expressed \
         in strict mode: every key must be a named property; use a struct or a list of \
         key/value pairs",
    );
    refusals
}

// ---------------------------------------------------------------------------------------------
// Dispatch through a toolbox

/// Every tool's definition in `format`, as a toolbox of them renders it for a request.
fn definitions(tools: &[ToolProxy], format: Format) -> Value {
    let toolbox = Toolbox::builder()
        .tools("test tools", tools.iter().cloned())
        .build()
        .expect("tool names are unique");
    toolbox
        .definitions(format)
        .expect("the tools convert")
        .clone()
}

fn dispatch(tools: &[ToolProxy], call: &ToolCall) -> ToolCallResult {
    let toolbox = Toolbox::builder()
        .tools("test tools", tools.iter().cloned())
        .build()
        .expect("tool names are unique");
    toolbox.call(call)
}

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/providers")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// Compares two JSON values field by field, naming the first path where they differ.
fn assert_same(actual: &Value, expected: &Value, path: &str) {
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            let mut a_keys: Vec<&String> = a.keys().collect();
            let mut e_keys: Vec<&String> = e.keys().collect();
            a_keys.sort();
            e_keys.sort();
            assert_eq!(a_keys, e_keys, "keys differ at {path}");
            for (key, value) in e {
                assert_same(&a[key], value, &format!("{path}.{key}"));
            }
        }
        (Value::Array(a), Value::Array(e)) => {
            assert_eq!(a.len(), e.len(), "lengths differ at {path}");
            for (i, (a, e)) in a.iter().zip(e).enumerate() {
                assert_same(a, e, &format!("{path}[{i}]"));
            }
        }
        _ => assert_eq!(actual, expected, "values differ at {path}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Golden round trips: definitions out, the provider's calls in, dispatch, results out

#[test]
fn openai_chat_round_trip_matches_the_documented_bodies() {
    let golden = fixture("openai_chat.json");
    let tools = golden_tools();
    let definitions = definitions(&tools, Format::OpenAiStrict);
    assert_same(&definitions, &golden["request"]["tools"], "tools");

    let calls = ToolCalls::parse(&golden["response"]).unwrap();
    assert_eq!(
        calls.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(),
        [Some("call_greet_1"), Some("call_weather_2")]
    );
    let messages: Value = calls
        .iter()
        .map(|call| dispatch(&tools, call).render(Format::OpenAi))
        .collect();
    assert_same(&messages, &golden["follow_up"], "follow_up");
}

#[test]
fn openai_responses_round_trip_pairs_the_output_by_call_id() {
    let golden = fixture("openai_responses.json");
    let tools = golden_tools();
    let definitions = definitions(&tools, Format::OpenAiResponses);
    assert_same(&definitions, &golden["request"]["tools"], "tools");

    let calls = ToolCalls::parse(&golden["response"]).unwrap();
    assert_eq!(
        calls,
        [
            ToolCall::new("weather_current", json!({"city": "Oslo", "unit": null}))
                .with_id("call_oslo_1")
        ]
    );
    let items: Value = calls
        .iter()
        .map(|call| dispatch(&tools, call).render(Format::OpenAiResponses))
        .collect();
    assert_same(&items, &golden["follow_up"], "follow_up");
}

#[test]
fn anthropic_round_trip_reports_an_unknown_tool_as_an_error_result() {
    let golden = fixture("anthropic.json");
    let tools = golden_tools();
    let definitions = definitions(&tools, Format::Anthropic);
    assert_same(&definitions, &golden["request"]["tools"], "tools");

    let calls = ToolCalls::parse(&golden["response"]).unwrap();
    assert_eq!(calls.len(), 2, "the text block is not a call");
    let content: Value = calls
        .iter()
        .map(|call| dispatch(&tools, call).render(Format::Anthropic))
        .collect();
    let message = json!({"role": "user", "content": content});
    assert_same(&message, &golden["follow_up"], "follow_up");
}

#[test]
fn gemini_round_trip_coerces_loose_arguments_and_keeps_call_ids() {
    let golden = fixture("gemini.json");
    let tools = golden_tools();
    let tool = definitions(&tools, Format::Gemini);
    assert_same(&json!([tool]), &golden["request"]["tools"], "tools");

    let calls = ToolCalls::parse(&golden["response"]).unwrap();
    assert_eq!(calls[0].id.as_deref(), Some("fc-lin"));
    assert_eq!(calls[1].id, None);
    let parts: Value = calls
        .iter()
        .map(|call| dispatch(&tools, call).render(Format::Gemini))
        .collect();
    let message = json!({"role": "user", "parts": parts});
    assert_same(&message, &golden["follow_up"], "follow_up");
}

/// The golden bodies, and the follow-up request each round trip makes of them, as the providers'
/// official SDK types read them (`tests/common/provider_sdk.py`).
#[test]
fn golden_requests_and_replies_pass_the_providers_sdk_types() {
    use common::provider_sdk::{check_reply, check_request};
    let joined = |list: &Value, more: &[Value]| {
        let mut list = list.as_array().cloned().unwrap_or_default();
        list.extend_from_slice(more);
        Value::Array(list)
    };
    let chat = fixture("openai_chat.json");
    let mut follow_up = chat["request"].clone();
    follow_up["messages"] = joined(
        &chat["request"]["messages"],
        &[chat["response"]["choices"][0]["message"].clone()],
    );
    follow_up["messages"] = joined(
        &follow_up["messages"],
        chat["follow_up"].as_array().unwrap(),
    );
    let responses = fixture("openai_responses.json");
    let mut output = responses["response"]["output"].as_array().unwrap().clone();
    output.extend_from_slice(responses["follow_up"].as_array().unwrap());
    let mut responses_follow_up = responses["request"].clone();
    responses_follow_up["input"] = joined(&responses["request"]["input"], &output);
    let anthropic = fixture("anthropic.json");
    let mut anthropic_follow_up = anthropic["request"].clone();
    anthropic_follow_up["messages"] = joined(
        &anthropic["request"]["messages"],
        &[
            json!({"role": "assistant", "content": anthropic["response"]["content"]}),
            anthropic["follow_up"].clone(),
        ],
    );
    let gemini = fixture("gemini.json");
    let mut gemini_follow_up = gemini["request"].clone();
    gemini_follow_up["contents"] = joined(
        &gemini["request"]["contents"],
        &[
            gemini["response"]["candidates"][0]["content"].clone(),
            gemini["follow_up"].clone(),
        ],
    );
    let cases = [
        ("/v1/chat/completions", &chat, follow_up),
        ("/v1/responses", &responses, responses_follow_up),
        ("/v1/messages", &anthropic, anthropic_follow_up),
        (
            "/v1beta/models/gemini-2.5-flash:generateContent",
            &gemini,
            gemini_follow_up,
        ),
    ];
    for (path, golden, follow_up) in cases {
        assert_eq!(check_request(path, &golden["request"]), Ok(()), "{path}");
        assert_eq!(check_reply(path, &golden["response"]), Ok(()), "{path}");
        assert_eq!(check_request(path, &follow_up), Ok(()), "{path} follow-up");
    }
}

/// The validator itself: an unknown key is refused however deep it sits, in a request and in a
/// reply, and strict mode's rules are checked where a request asks for it.
#[test]
fn the_sdk_validator_refuses_unknown_keys_at_every_level_and_loose_strict_schemas() {
    use common::provider_sdk::{check_event, check_reply, check_request};
    let chat = "/v1/chat/completions";
    let tool = |function: Value| {
        json!({"model": "gpt-4.1", "messages": [], "tools": [
        {"type": "function", "function": function}]})
    };
    assert_eq!(
        check_request(chat, &tool(json!({"name": "a", "colour": "red"}))),
        Err(
            "tools.0.ChatCompletionFunctionToolParam.function.colour: Extra inputs are not \
             permitted (got \"red\")"
                .into()
        )
    );
    let loose = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    assert_eq!(
        check_request(
            chat,
            &tool(json!({"name": "a", "strict": true, "parameters": loose}))
        ),
        Err("tools.0.function.parameters: strict mode needs `additionalProperties: false`".into())
    );
    let messages = "/v1/messages";
    let nested = json!({"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi", "colour": "red"}]}]});
    assert_eq!(
        check_request(messages, &nested),
        Err("messages.0.content.0: not a field of TextBlock: colour".into())
    );
    let gemini = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    let wrapped = json!({"contents": [], "tools": [{"functionDeclarations":
        {"functionDeclarations": []}}]});
    assert_eq!(
        check_request(gemini, &wrapped),
        Err(
            "tools.0.functionDeclarations: Input should be a valid list \
             (got {\"functionDeclarations\": []})"
                .into()
        )
    );
    let mut reply = fixture("openai_chat.json")["response"].clone();
    reply["choices"][0]["message"]["colour"] = json!("red");
    assert_eq!(
        check_reply(chat, &reply),
        Err("choices.0.message: not a field of ChatCompletionMessage: colour".into())
    );
    assert_eq!(
        check_event(messages, r#"{"type": "ping", "colour": "red"}"#),
        Err("a ping event has only `type`".into())
    );
}

#[test]
fn mcp_round_trip_lists_tools_and_answers_tools_call_with_structured_content() {
    let golden = fixture("mcp.json");
    let tools = golden_tools();
    let listed =
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": definitions(&tools, Format::Mcp)}});
    assert_same(&listed, &golden["request"], "tools/list");

    let request = &golden["response"];
    let calls = ToolCalls::parse(request).unwrap();
    assert_eq!(
        calls,
        [ToolCall::new("weather_current", json!({"city": "Cairo"}))]
    );
    let answer = json!({
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": dispatch(&tools, &calls[0]).render(Format::Mcp),
    });
    assert_same(&answer, &golden["follow_up"], "tools/call");
}

// ---------------------------------------------------------------------------------------------
// Every definition checked against the provider's rules

/// Keywords OpenAI strict mode accepts in a schema.
const STRICT_ALLOWED: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "const",
    "title",
];

/// Checks one schema against OpenAI's strict-mode rules, independently of the converter.
/// Returns every violation, with where it is.
fn strict_violations(schema: &Value, path: &str, depth: usize, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        out.push(format!("{path}: a schema must be an object"));
        return;
    };
    for key in map.keys() {
        if !STRICT_ALLOWED.contains(&key.as_str()) {
            out.push(format!("{path}: keyword {key} is not allowed"));
        }
    }
    if !(map.contains_key("type")
        || map.contains_key("anyOf")
        || map.contains_key("$ref")
        || map.contains_key("enum"))
    {
        out.push(format!("{path}: no type"));
    }
    let is_object = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        _ => false,
    };
    if is_object {
        if depth > 10 {
            out.push(format!("{path}: nested deeper than 10 levels"));
        }
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            out.push(format!("{path}: additionalProperties must be false"));
        }
        let properties = map.get("properties").and_then(Value::as_object);
        let Some(properties) = properties else {
            out.push(format!("{path}: an object needs properties"));
            return;
        };
        let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
        let mut required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        names.sort();
        required.sort();
        if names != required {
            out.push(format!(
                "{path}: required {required:?} must list every property {names:?}"
            ));
        }
        for (name, property) in properties {
            strict_violations(property, &format!("{path}.{name}"), depth + 1, out);
        }
    }
    if let Some(items) = map.get("items") {
        strict_violations(items, &format!("{path}[]"), depth, out);
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        for branch in branches {
            strict_violations(branch, &format!("{path}|"), depth, out);
        }
    }
    if let Some(Value::Object(defs)) = map.get("$defs") {
        for (name, def) in defs {
            strict_violations(def, &format!("$defs.{name}"), 0, out);
        }
    }
}

#[test]
fn every_strict_schema_in_the_suite_passes_the_strict_mode_rules() {
    let refusals = strict_mode_refusals();
    let mut checked = 0;
    for tool in all_tools() {
        match tool.definition_in(Format::OpenAiStrict) {
            Ok(definition) => {
                assert!(
                    !refusals.contains_key(tool.name()),
                    "{} should be refused",
                    tool.name()
                );
                let function = &definition["function"];
                assert_eq!(function["strict"], true);
                let parameters = &function["parameters"];
                assert_eq!(
                    parameters["type"],
                    "object",
                    "{}: root must be an object",
                    tool.name()
                );
                let mut violations = Vec::new();
                strict_violations(parameters, tool.name(), 0, &mut violations);
                assert_eq!(violations, Vec::<String>::new(), "{}", tool.name());
                checked += 1;
            }
            Err(err) => {
                assert_eq!(Some(&err.to_string().as_str()), refusals.get(tool.name()));
            }
        }
    }
    assert_eq!(checked, all_tools().len() - refusals.len());
}

#[test]
fn a_tool_strict_mode_refuses_is_sent_non_strict_to_the_responses_api() {
    let definition = total_tool().definition_in(Format::OpenAiResponses).unwrap();
    assert_eq!(definition["strict"], false);
    assert_eq!(&definition["parameters"], total_tool().parameters());
}

/// Keywords Gemini's `Schema` accepts.
const GEMINI_ALLOWED: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];
const GEMINI_TYPES: &[&str] = &["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];

fn gemini_violations(schema: &Value, path: &str, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        out.push(format!("{path}: a schema must be an object"));
        return;
    };
    for (key, value) in map {
        if !GEMINI_ALLOWED.contains(&key.as_str()) {
            out.push(format!("{path}: Gemini rejects {key}"));
        }
        match key.as_str() {
            "type" if !value.as_str().is_some_and(|t| GEMINI_TYPES.contains(&t)) => {
                out.push(format!("{path}: type {value} is not a Gemini type"));
            }
            "enum"
                if !value
                    .as_array()
                    .is_some_and(|v| v.iter().all(Value::is_string)) =>
            {
                out.push(format!("{path}: enum values must be strings"));
            }
            "properties" => {
                for (name, property) in value.as_object().into_iter().flatten() {
                    gemini_violations(property, &format!("{path}.{name}"), out);
                }
            }
            "items" => gemini_violations(value, &format!("{path}[]"), out),
            "anyOf" => {
                for branch in value.as_array().into_iter().flatten() {
                    gemini_violations(branch, &format!("{path}|"), out);
                }
            }
            _ => {}
        }
    }
    if map.get("enum").is_some() && map.get("type") != Some(&json!("STRING")) {
        out.push(format!("{path}: Gemini enums must be of type STRING"));
    }
}

#[test]
fn gemini_declarations_contain_no_keyword_gemini_rejects() {
    let declarations = definitions(&all_tools(), Format::Gemini);
    let declarations = declarations["functionDeclarations"].as_array().unwrap();
    assert_eq!(declarations.len(), all_tools().len());
    for declaration in declarations {
        let name = declaration["name"].as_str().unwrap();
        let mut violations = Vec::new();
        gemini_violations(&declaration["parameters"], name, &mut violations);
        assert_eq!(violations, Vec::<String>::new());
    }
}

#[test]
fn gemini_integer_enums_become_string_enums_that_still_dispatch() {
    let tool = stock_tool();
    assert_eq!(
        tool.definition_in(Format::Gemini).unwrap()["parameters"]["properties"]["warehouse"],
        json!({"type": "STRING", "format": "enum", "enum": ["1", "2", "7"]})
    );
    // The model answers in the declared dialect; lax coercion turns "7" back into 7.
    let calls = ToolCalls::parse(&json!({"functionCall": {"name": "stock_level", "args": {"sku": "abc-1", "warehouse": "7"}}})).unwrap();
    assert_eq!(
        dispatch(&[tool], &calls[0]).render(Format::Gemini),
        json!({"functionResponse": {"name": "stock_level", "response": {"output": {"sku": "abc-1", "warehouse": 7, "count": 4}}}})
    );
}

#[test]
fn gemini_tools_without_parameters_omit_the_parameters_key() {
    let tool = ToolBuilder::new("ping")
        .description("Check the service is up")
        .build(|_| Ok::<_, String>("pong"))
        .unwrap();
    assert_eq!(
        tool.definition_in(Format::Gemini).unwrap(),
        json!({"name": "ping", "description": "Check the service is up"})
    );
}

#[test]
fn strict_mode_moves_unsupported_constraints_into_the_description() {
    let parameters = stock_tool().strict_parameters().unwrap();
    assert_eq!(
        parameters["properties"]["sku"],
        json!({"type": "string", "description": "The item's stock-keeping unit. At least 3 characters."})
    );
    assert_eq!(
        parameters["properties"]["warehouse"],
        json!({"type": ["integer", "null"], "enum": [1, 2, 7, null]})
    );
}

#[test]
fn strict_mode_closes_nested_objects_and_keeps_recursive_definitions() {
    let search = WeatherToolset::to_tools()
        .into_iter()
        .find(|t| t.name() == "weather_count_categories")
        .unwrap();
    let parameters = search.strict_parameters().unwrap();
    assert_eq!(
        parameters["$defs"]["Category"],
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Category"}}
            },
            "required": ["name", "children"],
            "additionalProperties": false
        })
    );
}

#[test]
fn a_strict_mode_null_for_a_defaulted_argument_takes_the_default() {
    let calls = ToolCalls::parse(&json!({
        "id": "call_9",
        "type": "function",
        "function": {"name": "weather_search", "arguments": "{\"query\":\"rain\",\"filter\":{\"words\":[\"oslo\"],\"max_age_days\":null},\"page_size\":null}"}
    }))
    .unwrap();
    let result = dispatch(&WeatherToolset::to_tools(), &calls[0]);
    assert_eq!(
        result.render(Format::OpenAi),
        json!({"role": "tool", "tool_call_id": "call_9", "content": "[\"rain:oslo:10\"]"})
    );
}

#[test]
fn mcp_annotations_come_from_the_tool_attribute() {
    assert_eq!(
        fetch_tool().definition_in(Format::Mcp).unwrap()["annotations"],
        json!({"openWorldHint": true})
    );
    assert_eq!(
        add_tool().definition_in(Format::Mcp).unwrap()["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    assert!(
        greet_tool()
            .definition_in(Format::Mcp)
            .unwrap()
            .get("annotations")
            .is_none()
    );
}

#[test]
fn an_mcp_error_result_has_no_structured_content() {
    let call = ToolCall::new("fetch_title", json!({"url": "ftp://x"})).with_id("7");
    let result = ToolCallResult::from_outcome(
        &call,
        Err(ToolError::Failed {
            tool: "fetch_title".into(),
            message: "ftp://x is not an https address".into(),
        }),
    );
    assert_eq!(
        result.render(Format::Mcp),
        json!({"content": [{"type": "text", "text": "ftp://x is not an https address"}], "isError": true})
    );
    assert_eq!(
        result.render(Format::Gemini),
        json!({"functionResponse": {"id": "7", "name": "fetch_title", "response": {"error": "Error: ftp://x is not an https address"}}})
    );
}

/// Issue 24: the MCP rendering of a result and the MCP server's own (`ToolProxy::mcp_result`)
/// disagreed on an error's text (the one kept `Error: `, the other stripped it). Both now come
/// from the typed error.
#[test]
fn a_result_renders_in_mcp_as_the_mcp_server_sends_it() {
    let tool = ToolBuilder::new("halve")
        .description("Halves an even number")
        .parameters(json!({
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"]
        }))
        .build(|args| {
            let n = args["n"].as_i64().unwrap_or_default();
            if n % 2 == 0 {
                Ok(json!(n / 2))
            } else {
                Err(format!("{n} is odd"))
            }
        })
        .unwrap();
    for args in [
        json!({"n": 4}),
        json!({"n": 3}),
        json!({}),
        json!({"n": "x"}),
    ] {
        let call = ToolCall::new("halve", args);
        let result = ToolCallResult::from_outcome(&call, tool.call(call.args.clone()));
        let rendered = result.render(Format::Mcp);
        assert_eq!(rendered, tool.mcp_result(result).to_json(), "{}", call.args);
        assert!(!rendered.to_string().contains("Error: "), "{rendered}");
    }
}

// ---------------------------------------------------------------------------------------------
// Tool calls in

#[test]
fn every_documented_call_shape_parses_to_the_same_call() {
    let expected = ToolCall::new("add", json!({"a": 1, "b": 2}));
    let shapes = [
        json!({"name": "add", "args": {"a": 1, "b": 2}}),
        json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
        json!({"name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}),
        json!({"function": {"name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}, "type": "function"}),
        json!({"type": "function", "function": {"name": "add", "arguments": {"a": 1, "b": 2}}}),
        json!({"functionCall": {"name": "add", "args": {"a": 1, "b": 2}}}),
        json!({"action": "add", "tool_input": {"a": 1, "b": 2}}),
        json!({"action": "add", "action_input": "{\"a\": 1, \"b\": 2}"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}),
    ];
    for shape in shapes {
        assert_eq!(
            ToolCalls::parse(&shape).unwrap(),
            std::slice::from_ref(&expected),
            "{shape}"
        );
    }
}

#[test]
fn ids_come_from_the_field_each_provider_pairs_results_by() {
    let parsed = ToolCalls::parse(&json!([
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "add", "arguments": "{}"},
        {"type": "tool_use", "id": "toolu_2", "name": "add", "input": {}},
        {"id": "call_3", "type": "function", "function": {"name": "add", "arguments": ""}},
        {"functionCall": {"id": "g4", "name": "add", "args": {}}}
    ]))
    .unwrap();
    assert_eq!(
        parsed.iter().map(|c| c.id.as_deref()).collect::<Vec<_>>(),
        [Some("call_1"), Some("toolu_2"), Some("call_3"), Some("g4")]
    );
    assert!(
        parsed.iter().all(|c| c.args == json!({})),
        "an empty argument string means {{}}"
    );
}

#[test]
fn lists_under_tool_calls_and_whole_content_and_parts_arrays_parse() {
    let tool_calls = json!({"tool_calls": [{"name": "a", "args": {}}, {"name": "b", "args": {}}]});
    let anthropic_content = json!([
        {"type": "thinking", "thinking": "...", "signature": "x"},
        {"type": "text", "text": "Calling tools"},
        {"type": "tool_use", "id": "t1", "name": "a", "input": {}},
        {"type": "tool_use", "id": "t2", "name": "b", "input": {}}
    ]);
    let gemini_parts = json!({"parts": [
        {"text": "Calling tools"},
        {"functionCall": {"name": "a", "args": {}}},
        {"functionCall": {"name": "b", "args": {}}}
    ]});
    for input in [tool_calls, anthropic_content, gemini_parts] {
        let names: Vec<String> = ToolCalls::parse(&input)
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["a", "b"], "{input}");
    }
}

#[test]
fn an_assistant_message_without_calls_holds_no_calls() {
    let message = json!({"role": "assistant", "content": "The answer is 4."});
    assert_eq!(ToolCalls::parse(&message).unwrap(), []);
}

#[test]
fn broken_argument_strings_are_repaired_when_the_intent_is_clear() {
    let cases = [
        ("{\"a\": 1, \"b\": 2,}", json!({"a": 1, "b": 2})),
        ("{\"a\": 1, \"b\": 2", json!({"a": 1, "b": 2})),
        (
            "```json\n{\"a\": 1, \"b\": 2}\n```",
            json!({"a": 1, "b": 2}),
        ),
        (
            "```\n{\"a\": 1, \"b\": [2,],\n```",
            json!({"a": 1, "b": [2]}),
        ),
        ("   ", json!({})),
    ];
    for (text, expected) in cases {
        let call = &ToolCalls::parse(&json!({"name": "add", "arguments": text})).unwrap()[0];
        assert_eq!(call.args, expected, "{text:?}");
    }
}

#[test]
fn unrepairable_arguments_reach_the_model_as_an_invalid_json_error() {
    let calls = ToolCalls::parse(&json!({
        "id": "call_x",
        "type": "function",
        "function": {"name": "add", "arguments": "{\"a\": 1, \"b\": \"unterminated"}
    }))
    .unwrap();
    let result = dispatch(&[add_tool()], &calls[0]);
    assert!(result.is_error);
    let text = result.text();
    assert!(
        text.starts_with("Error: arguments for add were not valid JSON: "),
        "{text}"
    );
    assert_eq!(result.render(Format::OpenAi)["tool_call_id"], "call_x");
}

#[test]
fn what_is_not_a_call_is_an_error_saying_what_to_send() {
    let err = ToolCalls::parse(&json!(42)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "could not read a tool call: 42 is not a tool call; send {\"name\": \"<tool>\", \"arguments\": {...}}"
    );
    let err = ToolCalls::parse(&json!({"name": 7, "args": {}})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "could not read a tool call: the tool name must be a non-empty string, got 7"
    );
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,20}".prop_map(Value::String),
        prop_oneof![
            Just("name"),
            Just("args"),
            Just("arguments"),
            Just("function"),
            Just("type"),
            Just("tool_use"),
            Just("function_call"),
            Just("functionCall"),
            Just("parts"),
            Just("content"),
            Just("tool_calls"),
            Just("action"),
            Just("{\"a\":"),
            Just("```"),
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        let key = prop_oneof![
            Just("name".to_owned()),
            Just("args".to_owned()),
            Just("arguments".to_owned()),
            Just("function".to_owned()),
            Just("type".to_owned()),
            Just("input".to_owned()),
            Just("functionCall".to_owned()),
            Just("parts".to_owned()),
            Just("content".to_owned()),
            Just("tool_calls".to_owned()),
            Just("action".to_owned()),
            Just("call_id".to_owned()),
            Just("id".to_owned()),
            Just("params".to_owned()),
            ".{0,6}",
        ];
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key, inner), 0..6)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn no_json_value_makes_the_parser_panic(value in arbitrary_json()) {
        let _ = ToolCalls::parse(&value);
    }

    #[test]
    fn no_argument_string_makes_the_parser_or_the_call_panic(text in "\\PC{0,64}") {
        let calls = ToolCalls::parse(&json!({"name": "add", "arguments": text})).unwrap();
        let _ = add_tool().dynamic_call(calls[0].args.clone());
        let _ = toolkit::providers::repair_arguments(&text);
    }

    #[test]
    fn json_like_argument_strings_never_panic(text in "[{}\\[\\],:\"a1 \\\\`]{0,40}") {
        let _ = toolkit::providers::repair_arguments(&text);
        let _ = ToolCalls::parse(&json!({"function": {"name": "add", "arguments": text}}));
        let _ = ToolCalls::parse(&Value::String(text));
    }
}

// ---------------------------------------------------------------------------------------------
// Tools that are not methods

#[test]
fn free_function_tools_are_named_after_the_function_without_a_prefix() {
    let tool = greet_tool();
    assert_eq!(tool.name(), "greet");
    assert_eq!(tool.description(), "Say hello to someone");
    assert!(!tool.is_async());
    assert_eq!(
        tool.dynamic_call(json!({"name": "Ada"})),
        json!("Hello, Ada.")
    );
    // The function itself is untouched.
    assert_eq!(greet("Bo".into(), true), "Hello, Bo!");
}

#[tokio::test]
async fn async_free_functions_become_async_tools_with_their_attribute_name() {
    let tool = fetch_tool();
    assert_eq!(tool.name(), "fetch_title");
    assert!(tool.is_async());
    assert_eq!(
        tool.dynamic_acall(json!({"url": "https://example.org"}))
            .await,
        json!("Welcome to example.org")
    );
    assert_eq!(
        tool.dynamic_acall(json!({"url": "ftp://example.org"}))
            .await,
        json!("Error: ftp://example.org is not an https address")
    );
}

#[test]
fn builder_tools_run_through_the_same_validation_as_macro_tools() {
    let tool = stock_tool();
    let refused = tool.dynamic_call(json!({"sku": "ab"}));
    assert!(
        refused.as_str().is_some_and(|text| text.starts_with(
            "Error: invalid arguments for stock_level: sku: must be at least 3 characters long"
        )),
        "{refused}"
    );
    assert_eq!(
        tool.dynamic_call(json!({"sku": "abc", "warehouse": "2"})),
        json!({"sku": "abc", "warehouse": 2, "count": 4})
    );
}

#[test]
fn builder_fields_override_a_definition_that_arrived_as_json() {
    let remote = json!({
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look up a word",
            "parameters": {"type": "object", "properties": {"word": {"type": "string", "description": "old"}}, "required": ["word"]}
        }
    });
    let tool = ToolBuilder::from_definition(&remote)
        .unwrap()
        .description("Look a word up in the dictionary")
        .arg_description("word", "The word, in lower case")
        .build(|args| Ok::<_, String>(args["word"].clone()))
        .unwrap();
    assert_eq!(tool.name(), "lookup");
    assert_eq!(
        tool.definition_in(Format::Anthropic).unwrap(),
        json!({
            "name": "lookup",
            "description": "Look a word up in the dictionary",
            "input_schema": {"type": "object", "properties": {"word": {"type": "string", "description": "The word, in lower case"}}, "required": ["word"]}
        })
    );
}

#[test]
fn a_builder_schema_that_is_not_an_object_is_refused_at_build_time() {
    let err = ToolBuilder::new("bad")
        .description("Bad schema")
        .parameters(json!({"type": "array"}))
        .build(|_| Ok::<_, String>(()))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool bad cannot be built: the parameters schema must describe an object of named arguments, not \"array\""
    );
}

#[test]
fn a_builder_closure_error_reaches_the_model_as_its_text() {
    let tool = ToolBuilder::new("always_fails")
        .description("Fails")
        .build(|_| Err::<(), _>("the remote API is down"))
        .unwrap();
    assert_eq!(
        tool.dynamic_call(json!({})),
        json!("Error: the remote API is down")
    );
}

#[test]
fn gemini_maps_travel_as_json_text_that_coercion_parses_back() {
    let tool = total_tool();
    assert_eq!(
        tool.definition_in(Format::Gemini).unwrap()["parameters"]["properties"]["counts"],
        json!({"type": "STRING", "description": "A JSON object whose keys are chosen freely, written as JSON text."})
    );
    let calls = ToolCalls::parse(
        &json!({"functionCall": {"name": "total", "args": {"counts": "{\"a\": 2, \"b\": 3}"}}}),
    )
    .unwrap();
    assert_eq!(dispatch(&[tool], &calls[0]).value, json!(5));
}

#[test]
fn strict_mode_refuses_a_nested_object_without_named_properties() {
    let tool = ToolBuilder::new("tag")
        .description("Tag a record")
        .parameters(json!({"type": "object", "properties": {"meta": {"type": "object"}}}))
        .build(|_| Ok::<_, String>(()))
        .unwrap();
    assert_eq!(
        tool.definition_in(Format::OpenAiStrict)
            .unwrap_err()
            .to_string(),
        "tool tag cannot be sent to OpenAI strict mode: at meta: an object with arbitrary keys \
         cannot be expressed in strict mode: every key must be a named property; use a struct"
    );
}

#[test]
fn a_legacy_openai_function_call_message_parses() {
    let message = json!({"role": "assistant", "content": null, "function_call": {"name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}});
    assert_eq!(
        ToolCalls::parse(&message).unwrap(),
        [ToolCall::new("add", json!({"a": 1, "b": 2}))]
    );
}

/// Found by fuzzing (`fuzz/`, target `parse`): arguments that were JSON but not an object (an
/// array, a number, a fenced scalar) reached the call as that value, not as the text the
/// `ToolCall::args` contract promises; the tool still refuses them, with the text quoted.
#[test]
fn arguments_that_are_not_an_object_reach_the_call_as_text() {
    let calls = ToolCalls::parse(&json!([
        {"name": "a", "arguments": [1, 2]},
        {"name": "b", "arguments": "```\n5\n```"},
        {"type": "function", "function": {"name": "c", "arguments": "\"x\""}},
    ]))
    .unwrap();
    let args: Vec<&Value> = calls.iter().map(|call| &call.args).collect();
    assert_eq!(
        args,
        [&json!("[1,2]"), &json!("```\n5\n```"), &json!("\"x\"")]
    );
}
