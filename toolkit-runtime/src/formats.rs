//! Tool definitions and tool results in each provider's wire format.
//!
//! A tool is provider-neutral: its parameters are one self-contained JSON Schema. The boundary
//! with each API is where that schema must change shape: OpenAI's strict mode wants every
//! property required and optional ones nullable; Gemini accepts only an OpenAPI 3.0 subset. Those
//! conversions live here, and a schema that cannot be converted is an error at conversion time,
//! not a 400 from the provider.
//!
//! Definitions: [`ToolProxy::to_openai`], [`ToolProxy::to_openai_strict`],
//! [`ToolProxy::to_openai_responses`], [`ToolProxy::to_anthropic`], [`ToolProxy::to_gemini`],
//! [`ToolProxy::to_mcp`], and the array forms [`openai_tools`], [`gemini_tools`], ...
//!
//! Results: [`ToolCallResult::to_openai`] and its siblings.

use serde_json::{Map, Value, json};

use crate::{ToolCallResult, ToolError, ToolProxy};

/// OpenAI's documented limits for one strict schema.
const STRICT_MAX_DEPTH: usize = 10;
const STRICT_MAX_PROPERTIES: usize = 5000;
const STRICT_MAX_ENUM_VALUES: usize = 1000;

/// String formats OpenAI strict mode accepts.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Schema keywords Gemini's `Schema` object knows. Anything else is dropped or rewritten.
pub const GEMINI_KEYWORDS: &[&str] = &[
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

impl ToolProxy {
    /// The OpenAI Chat Completions definition:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().to_openai();
    /// assert_eq!(def["type"], "function");
    /// assert_eq!(def["function"]["name"], "add");
    /// assert_eq!(def["function"]["parameters"]["required"], json!(["a", "b"]));
    /// ```
    pub fn to_openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name(),
                "description": self.description(),
                "parameters": self.parameters(),
            }
        })
    }

    /// The OpenAI Chat Completions definition in strict mode (`"strict": true`).
    ///
    /// The parameters are rewritten to the strict-mode subset: `additionalProperties: false` on
    /// every object, every property in `required`, optional parameters made nullable (the model
    /// sends `null` to leave one out), keywords strict mode rejects (`minLength`, `default`, ...)
    /// moved into the description. What cannot be expressed at all (a map with arbitrary keys,
    /// a value of any type, `not`, tuples) is an error naming the place, so it shows up here
    /// rather than as a 400 from the API.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Greet someone
    /// #[tool]
    /// fn greet(name: String, title: Option<String>) -> String {
    ///     format!("Hello {}{name}", title.map(|t| t + " ").unwrap_or_default())
    /// }
    ///
    /// let def = greet_tool().to_openai_strict().unwrap();
    /// assert_eq!(def["function"]["strict"], true);
    /// let params = &def["function"]["parameters"];
    /// assert_eq!(params["required"], json!(["name", "title"]));
    /// assert_eq!(params["properties"]["title"]["type"], json!(["string", "null"]));
    /// ```
    pub fn to_openai_strict(&self) -> Result<Value, ToolError> {
        let parameters = self.strict_parameters()?;
        Ok(json!({
            "type": "function",
            "function": {
                "name": self.name(),
                "description": self.description(),
                "parameters": parameters,
                "strict": true,
            }
        }))
    }

    /// The parameters schema rewritten for OpenAI strict mode (see
    /// [`to_openai_strict`](Self::to_openai_strict)).
    pub fn strict_parameters(&self) -> Result<Value, ToolError> {
        strict_schema(self.parameters()).map_err(|(path, message)| ToolError::UnsupportedSchema {
            tool: self.name().to_owned(),
            target: "OpenAI strict mode".into(),
            path,
            message,
        })
    }

    /// Removes the `null`s a strict-mode model sends for parameters it leaves out, where the
    /// parameter's own schema does not accept `null` (an `#[arg(default)]` parameter), so the
    /// call takes the default instead of failing validation. Nested objects are walked too.
    ///
    /// Strict mode makes every optional parameter nullable and required, so `null` is how the
    /// model says "not given". Every call already does this; use it to see or log the arguments
    /// as the tool will read them.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Page through results
    /// #[tool]
    /// fn page(#[arg(default = 10)] size: u32) -> u32 {
    ///     size
    /// }
    ///
    /// let tool = page_tool();
    /// let args = tool.without_strict_nulls(json!({"size": null}));
    /// assert_eq!(args, json!({}));
    /// assert_eq!(tool.dynamic_call(args), json!(10));
    /// ```
    pub fn without_strict_nulls(&self, mut args: Value) -> Value {
        remove_strict_nulls(&mut args, self.parameters());
        args
    }

    /// The OpenAI Responses API definition:
    /// `{"type": "function", "name", "description", "parameters", "strict"}`.
    ///
    /// The Responses API defaults to strict mode, so the definition is strict whenever the
    /// schema converts (see [`to_openai_strict`](Self::to_openai_strict)), and says
    /// `"strict": false` with the plain schema otherwise.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().to_openai_responses();
    /// assert_eq!(def["name"], "add");
    /// assert_eq!(def["strict"], true);
    /// ```
    pub fn to_openai_responses(&self) -> Value {
        let (parameters, strict) = match self.strict_parameters() {
            Ok(parameters) => (parameters, true),
            Err(_) => (self.parameters().clone(), false),
        };
        json!({
            "type": "function",
            "name": self.name(),
            "description": self.description(),
            "parameters": parameters,
            "strict": strict,
        })
    }

    /// The Anthropic Messages definition: `{"name", "description", "input_schema"}`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().to_anthropic();
    /// assert_eq!(def["input_schema"]["type"], "object");
    /// ```
    pub fn to_anthropic(&self) -> Value {
        json!({
            "name": self.name(),
            "description": self.description(),
            "input_schema": self.parameters(),
        })
    }

    /// One Gemini function declaration: `{"name", "description", "parameters"}`, the parameters
    /// converted to Gemini's schema subset (upper-case types, `nullable`, string enums; no
    /// `$ref`, `additionalProperties`, `oneOf`, `const`, ...). A tool without parameters has no
    /// `parameters` key, as Gemini rejects an object schema without properties.
    ///
    /// Put declarations in one `{"functionDeclarations": [...]}` object with [`gemini_tools`].
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Greet someone
    /// #[tool]
    /// fn greet(name: String, title: Option<String>) -> String {
    ///     format!("Hello {}{name}", title.map(|t| t + " ").unwrap_or_default())
    /// }
    ///
    /// let def = greet_tool().to_gemini();
    /// assert_eq!(
    ///     def["parameters"]["properties"]["title"],
    ///     json!({"type": "STRING", "nullable": true})
    /// );
    /// ```
    pub fn to_gemini(&self) -> Value {
        let mut declaration = Map::new();
        declaration.insert("name".into(), self.name().into());
        declaration.insert("description".into(), self.description().into());
        let has_properties = self
            .parameters()
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if has_properties {
            declaration.insert("parameters".into(), gemini_schema(self.parameters()));
        }
        Value::Object(declaration)
    }

    /// The MCP `tools/list` entry: `{"name", "description", "inputSchema"}`, plus
    /// `outputSchema` when the tool returns a structured type and `annotations` from
    /// `#[tool(read_only, destructive, idempotent, open_world)]`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool(read_only, idempotent)]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let def = add_tool().to_mcp();
    /// assert_eq!(def["annotations"], json!({"readOnlyHint": true, "idempotentHint": true}));
    /// assert!(def.get("outputSchema").is_none());
    /// ```
    pub fn to_mcp(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), self.name().into());
        tool.insert("description".into(), self.description().into());
        tool.insert("inputSchema".into(), self.parameters().clone());
        if let Some(schema) = self.output_schema() {
            tool.insert("outputSchema".into(), schema.clone());
        }
        let hints = self.options().annotations;
        let mut annotations = Map::new();
        for (key, hint) in [
            ("readOnlyHint", hints.read_only),
            ("destructiveHint", hints.destructive),
            ("idempotentHint", hints.idempotent),
            ("openWorldHint", hints.open_world),
        ] {
            if let Some(hint) = hint {
                annotations.insert(key.into(), hint.into());
            }
        }
        if !annotations.is_empty() {
            tool.insert("annotations".into(), Value::Object(annotations));
        }
        Value::Object(tool)
    }
}

/// The `tools` array of an OpenAI Chat Completions request.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Add two numbers
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tools = toolkit::formats::openai_tools(&[add_tool()]);
/// assert_eq!(tools[0]["function"]["name"], "add");
/// ```
pub fn openai_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_openai).collect()
}

/// The `tools` array of an OpenAI Chat Completions request in strict mode; the first tool that
/// cannot be converted is the error.
pub fn openai_strict_tools(tools: &[ToolProxy]) -> Result<Value, ToolError> {
    tools
        .iter()
        .map(ToolProxy::to_openai_strict)
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// The `tools` array of an OpenAI Responses API request.
pub fn openai_responses_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_openai_responses).collect()
}

/// The `tools` array of an Anthropic Messages request.
pub fn anthropic_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_anthropic).collect()
}

/// One Gemini tool, `{"functionDeclarations": [...]}`, declaring every tool given.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Add two numbers
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tool = toolkit::formats::gemini_tools(&[add_tool()]);
/// assert_eq!(tool["functionDeclarations"][0]["name"], "add");
/// ```
pub fn gemini_tools(tools: &[ToolProxy]) -> Value {
    let declarations: Vec<Value> = tools.iter().map(ToolProxy::to_gemini).collect();
    json!({ "functionDeclarations": declarations })
}

/// The `tools` array of an MCP `tools/list` result.
pub fn mcp_tools(tools: &[ToolProxy]) -> Value {
    tools.iter().map(ToolProxy::to_mcp).collect()
}

impl ToolCallResult {
    /// The result as text: a string result as it is, anything else as compact JSON.
    pub fn text(&self) -> String {
        match &self.value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }

    fn id(&self) -> &str {
        self.call_id.as_deref().unwrap_or_default()
    }

    /// The OpenAI Chat Completions message: `{"role": "tool", "tool_call_id", "content"}`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let call = ToolCall::new("add", json!({"a": 1, "b": 2})).with_id("call_1");
    /// let result = ToolCallResult::from_outcome(&call, Ok(json!(3)));
    /// assert_eq!(
    ///     result.to_openai(),
    ///     json!({"role": "tool", "tool_call_id": "call_1", "content": "3"})
    /// );
    /// ```
    pub fn to_openai(&self) -> Value {
        json!({"role": "tool", "tool_call_id": self.id(), "content": self.text()})
    }

    /// The OpenAI Responses API input item: `{"type": "function_call_output", "call_id",
    /// "output"}`.
    pub fn to_openai_responses(&self) -> Value {
        json!({"type": "function_call_output", "call_id": self.id(), "output": self.text()})
    }

    /// The Anthropic content block: `{"type": "tool_result", "tool_use_id", "content",
    /// "is_error"}`; it goes in a `user` message.
    pub fn to_anthropic(&self) -> Value {
        json!({
            "type": "tool_result",
            "tool_use_id": self.id(),
            "content": self.text(),
            "is_error": self.is_error,
        })
    }

    /// The Gemini part: `{"functionResponse": {"name", "response"}}`, with the result under
    /// `"output"` or the error under `"error"` (Gemini's response must be an object), and the
    /// call's `id` when it had one.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let call = ToolCall::new("add", json!({"a": 1, "b": 2}));
    /// let result = ToolCallResult::from_outcome(&call, Ok(json!(3)));
    /// assert_eq!(
    ///     result.to_gemini(),
    ///     json!({"functionResponse": {"name": "add", "response": {"output": 3}}})
    /// );
    /// ```
    pub fn to_gemini(&self) -> Value {
        let key = if self.is_error { "error" } else { "output" };
        let mut response = Map::new();
        if let Some(id) = &self.call_id {
            response.insert("id".into(), id.clone().into());
        }
        response.insert("name".into(), self.name.clone().into());
        response.insert("response".into(), json!({ key: self.value }));
        json!({ "functionResponse": response })
    }

    /// The MCP `CallToolResult`: the result as one text content block, `structuredContent` when
    /// the result is an object, and `isError`.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// let call = ToolCall::new("stats", json!({}));
    /// let result = ToolCallResult::from_outcome(&call, Ok(json!({"words": 2})));
    /// assert_eq!(
    ///     result.to_mcp(),
    ///     json!({
    ///         "content": [{"type": "text", "text": "{\"words\":2}"}],
    ///         "structuredContent": {"words": 2},
    ///         "isError": false
    ///     })
    /// );
    /// ```
    pub fn to_mcp(&self) -> Value {
        let mut result = Map::new();
        result.insert(
            "content".into(),
            json!([{"type": "text", "text": self.text()}]),
        );
        if !self.is_error && self.value.is_object() {
            result.insert("structuredContent".into(), self.value.clone());
        }
        result.insert("isError".into(), self.is_error.into());
        Value::Object(result)
    }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers

fn schema_types(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn is_object_schema(schema: &Map<String, Value>) -> bool {
    schema_types(schema).contains(&"object") || schema.contains_key("properties")
}

/// A sentence saying what a keyword the target does not support meant, so the model still
/// reads the constraint (our own validation enforces it when the call arrives).
fn constraint_note(keyword: &str, value: &Value) -> Option<String> {
    let shown = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Some(match keyword {
        "minLength" => format!("At least {shown} characters."),
        "maxLength" => format!("At most {shown} characters."),
        "minItems" => format!("At least {shown} items."),
        "maxItems" => format!("At most {shown} items."),
        "minProperties" => format!("At least {shown} entries."),
        "maxProperties" => format!("At most {shown} entries."),
        "uniqueItems" if value == &Value::Bool(true) => "Items must be unique.".into(),
        "exclusiveMinimum" => format!("Greater than {shown}."),
        "exclusiveMaximum" => format!("Less than {shown}."),
        "multipleOf" => format!("A multiple of {shown}."),
        "pattern" => format!("Matches the pattern {shown}."),
        "format" => format!("Format: {shown}."),
        "default" => format!("Default: {shown}."),
        _ => return None,
    })
}

fn append_description(schema: &mut Map<String, Value>, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let mut text = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    for note in notes {
        if !text.is_empty() {
            // The notes are sentences; end the description's last one first.
            if !text.ends_with(['.', '!', '?']) {
                text.push('.');
            }
            text.push(' ');
        }
        text.push_str(note);
    }
    schema.insert("description".into(), Value::String(text));
}

fn join_path(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_owned()
    } else {
        format!("{path}.{segment}")
    }
}

// ---------------------------------------------------------------------------------------------
// OpenAI strict mode

type StrictError = (String, String);

struct Strict {
    properties: usize,
    enum_values: usize,
}

fn strict_schema(parameters: &Value) -> Result<Value, StrictError> {
    let Some(root) = parameters.as_object() else {
        return Err(("parameters".into(), "the schema is not an object".into()));
    };
    if !is_object_schema(root) || root.contains_key("anyOf") {
        return Err((
            "parameters".into(),
            "the root of a strict schema must be an object with properties, not a union".into(),
        ));
    }
    let mut state = Strict {
        properties: 0,
        enum_values: 0,
    };
    let converted = state.node(parameters, "", 0)?;
    if state.properties > STRICT_MAX_PROPERTIES {
        return Err((
            "parameters".into(),
            format!(
                "{} properties exceed strict mode's limit of {STRICT_MAX_PROPERTIES}",
                state.properties
            ),
        ));
    }
    if state.enum_values > STRICT_MAX_ENUM_VALUES {
        return Err((
            "parameters".into(),
            format!(
                "{} enum values exceed strict mode's limit of {STRICT_MAX_ENUM_VALUES}",
                state.enum_values
            ),
        ));
    }
    Ok(converted)
}

impl Strict {
    fn node(&mut self, schema: &Value, path: &str, depth: usize) -> Result<Value, StrictError> {
        let here = || {
            if path.is_empty() {
                "parameters".to_owned()
            } else {
                path.to_owned()
            }
        };
        let Value::Object(source) = schema else {
            return Err((
                here(),
                "a value of any type (`true` schema) cannot be expressed in strict mode; \
                 use a concrete type"
                    .into(),
            ));
        };
        if depth > STRICT_MAX_DEPTH {
            return Err((
                here(),
                format!("objects nest deeper than strict mode's limit of {STRICT_MAX_DEPTH}"),
            ));
        }
        let mut map = source.clone();
        // allOf of one schema (schemars' wrapper for a described `$ref`) is the schema itself.
        if let Some(Value::Array(all)) = map.remove("allOf") {
            match all.as_slice() {
                [Value::Object(only)] => {
                    for (key, value) in only {
                        map.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
                _ => {
                    return Err((
                        here(),
                        "`allOf` with several schemas is not supported by strict mode".into(),
                    ));
                }
            }
        }
        if let Some(one_of) = map.remove("oneOf") {
            // The model only generates; our validator still enforces "exactly one" on arrival.
            map.insert("anyOf".into(), one_of);
        }
        if let Some(constant) = map.remove("const") {
            map.insert("enum".into(), Value::Array(vec![constant]));
        }
        let has_shape = map.contains_key("type")
            || map.contains_key("anyOf")
            || map.contains_key("enum")
            || map.contains_key("$ref")
            || map.contains_key("properties");
        if !has_shape {
            return Err((
                here(),
                "a value of any type cannot be expressed in strict mode; use a concrete type"
                    .into(),
            ));
        }
        let mut notes = Vec::new();
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "not"
                | "if"
                | "then"
                | "else"
                | "dependentSchemas"
                | "dependentRequired"
                | "patternProperties"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "contains"
                | "minContains"
                | "maxContains"
                | "prefixItems" => {
                    let what = if key == "prefixItems" {
                        "tuples (`prefixItems`) are not supported by strict mode; use a struct"
                            .to_owned()
                    } else {
                        format!("`{key}` is not supported by strict mode")
                    };
                    return Err((join_path(&here(), &key), what));
                }
                "minLength" | "maxLength" | "minProperties" | "maxProperties" | "uniqueItems"
                | "default" | "examples" => {
                    notes.extend(constraint_note(&key, &value));
                }
                "format" => {
                    let known = value.as_str().is_some_and(|f| STRICT_FORMATS.contains(&f));
                    if known {
                        out.insert(key, value);
                    } else {
                        notes.extend(constraint_note(&key, &value));
                    }
                }
                "additionalProperties" => {
                    if value != Value::Bool(false) && !is_empty_false(&value) {
                        return Err((
                            join_path(&here(), "additionalProperties"),
                            "an object with arbitrary keys (a map) cannot be expressed in \
                             strict mode: every key must be a named property; use a struct or a \
                             list of key/value pairs"
                                .into(),
                        ));
                    }
                }
                "properties" | "required" => {}
                // Annotations for documentation tools, meaningless to the model.
                "$schema" | "$id" | "$comment" | "readOnly" | "writeOnly" | "deprecated"
                | "contentEncoding" | "contentMediaType" => {}
                "items" => {
                    if value == Value::Bool(false) {
                        return Err((
                            join_path(&here(), "items"),
                            "tuples are not supported by strict mode; use a struct".into(),
                        ));
                    }
                    let items = self.node(&value, &format!("{}[]", here()), depth)?;
                    out.insert(key, items);
                }
                "anyOf" => {
                    let Value::Array(branches) = value else {
                        return Err((join_path(&here(), "anyOf"), "`anyOf` is not a list".into()));
                    };
                    let branches = branches
                        .iter()
                        .map(|branch| self.node(branch, &here(), depth))
                        .collect::<Result<Vec<_>, _>>()?;
                    out.insert(key, Value::Array(branches));
                }
                "$defs" | "definitions" => {
                    let Value::Object(defs) = value else { continue };
                    let mut converted = Map::new();
                    for (name, def) in defs {
                        let def_path = format!("$defs.{name}");
                        converted.insert(name, self.node(&def, &def_path, 0)?);
                    }
                    out.insert("$defs".into(), Value::Object(converted));
                }
                "enum" => {
                    if let Value::Array(values) = &value {
                        self.enum_values += values.len();
                    }
                    out.insert(key, value);
                }
                _ => {
                    out.insert(key, value);
                }
            }
        }
        if is_object_schema(source) {
            let closed = source.get("additionalProperties") == Some(&Value::Bool(false));
            if !path.is_empty() && !source.contains_key("properties") && !closed {
                return Err((
                    here(),
                    "an object with arbitrary keys cannot be expressed in strict mode: every key \
                     must be a named property; use a struct"
                        .into(),
                ));
            }
            let properties = source
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let required: Vec<&str> = source
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            self.properties += properties.len();
            let mut converted = Map::new();
            for (name, property) in &properties {
                let property_path = join_path(path, name);
                let mut strict = self.node(property, &property_path, depth + 1)?;
                if !required.contains(&name.as_str()) {
                    strict = nullable(strict);
                }
                converted.insert(name.clone(), strict);
            }
            let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
            out.insert("properties".into(), Value::Object(converted));
            out.insert("required".into(), Value::Array(names));
            out.insert("additionalProperties".into(), Value::Bool(false));
        }
        append_description(&mut out, &notes);
        Ok(Value::Object(out))
    }
}

/// `additionalProperties: {"not": {}}` is another spelling of `false`.
fn is_empty_false(value: &Value) -> bool {
    value == &json!({"not": {}})
}

/// The same schema, also accepting `null`: how strict mode says "optional".
fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if accepts_null(&map) {
        return Value::Object(map);
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let single = std::mem::take(t);
            map.insert("type".into(), json!([single, "null"]));
            return Value::Object(map);
        }
        Some(Value::Array(types)) => {
            types.push("null".into());
            return Value::Object(map);
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({"type": "null"}));
        return Value::Object(map);
    }
    if map.contains_key("enum") {
        return Value::Object(map);
    }
    // A bare `$ref`: wrap it, keeping the description outside where the model reads it.
    let description = map.remove("description");
    let mut wrapper = Map::new();
    if let Some(description) = description {
        wrapper.insert("description".into(), description);
    }
    wrapper.insert(
        "anyOf".into(),
        json!([Value::Object(map), {"type": "null"}]),
    );
    Value::Object(wrapper)
}

fn accepts_null(map: &Map<String, Value>) -> bool {
    schema_types(map).contains(&"null")
        || map
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                branches
                    .iter()
                    .any(|b| b.as_object().is_some_and(|b| schema_types(b) == ["null"]))
            })
}

fn remove_strict_nulls(value: &mut Value, schema: &Value) {
    if let Value::Object(args) = value {
        drop_omitted_nulls(args, schema);
    }
}

/// Removes `null`s sent for optional properties whose schema rejects `null` (an
/// `#[arg(default)]` parameter, a `#[serde(default)]` field), at every level: OpenAI strict mode
/// makes such properties nullable and required, so `null` is how a model says "not given".
/// The call pipeline applies this to every call, so the default is used instead of failing.
pub(crate) fn drop_omitted_nulls(args: &mut Map<String, Value>, schema: &Value) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    args.retain(|name, arg| {
        let Some(property) = properties.get(name) else {
            return true;
        };
        let optional = !required.contains(&name.as_str());
        let takes_null = property.as_object().is_some_and(accepts_null);
        !(arg.is_null() && optional && !takes_null)
    });
    for (name, arg) in args.iter_mut() {
        if let (Some(property), Value::Object(nested)) = (properties.get(name), arg) {
            drop_omitted_nulls(nested, property);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini

/// Converts a JSON Schema to Gemini's `Schema` subset.
///
/// `$ref`s are inlined (a recursive one becomes an untyped object described in words), unions
/// with `null` become `nullable`, `oneOf` becomes `anyOf`, every enum becomes a string enum, and
/// keywords Gemini rejects are dropped, their meaning moved into the description.
///
/// ```
/// use serde_json::json;
///
/// let gemini = toolkit::formats::gemini_schema(&json!({
///     "type": "object",
///     "properties": {"n": {"type": ["integer", "null"], "exclusiveMinimum": 0}},
///     "additionalProperties": false
/// }));
/// assert_eq!(
///     gemini,
///     json!({
///         "type": "OBJECT",
///         "properties": {"n": {"type": "INTEGER", "nullable": true, "description": "Greater than 0."}}
///     })
/// );
/// ```
pub fn gemini_schema(schema: &Value) -> Value {
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    gemini_node(schema, &defs, &mut Vec::new())
}

fn gemini_node(schema: &Value, defs: &Map<String, Value>, stack: &mut Vec<String>) -> Value {
    let Value::Object(source) = schema else {
        // `true`: any value; Gemini has no spelling for it but an untyped schema.
        return json!({});
    };
    let mut map = source.clone();
    map.remove("$defs");
    map.remove("definitions");
    map.remove("$schema");
    map.remove("$id");

    if let Some(Value::String(reference)) = map.remove("$ref") {
        let name = reference
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .replace("~1", "/")
            .replace("~0", "~");
        if stack.contains(&name) {
            let mut recursive = json!({
                "type": "OBJECT",
                "description": format!("A nested {name}, with the same fields as the enclosing one."),
            });
            if let Some(Value::String(description)) = map.get("description") {
                recursive["description"] = Value::String(format!(
                    "{description} (a nested {name}, with the same fields as the enclosing one)"
                ));
            }
            return recursive;
        }
        if let Some(Value::Object(definition)) = defs.get(&name) {
            for (key, value) in definition {
                map.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
        stack.push(name);
        let converted = gemini_node(&Value::Object(map), defs, stack);
        stack.pop();
        return converted;
    }
    if let Some(Value::Array(all)) = map.remove("allOf") {
        for part in all {
            if let Value::Object(part) = part {
                for (key, value) in part {
                    map.entry(key).or_insert(value);
                }
            }
        }
        return gemini_node(&Value::Object(map), defs, stack);
    }

    // A map (an object whose keys are chosen freely) has no Gemini spelling: an OBJECT needs
    // named properties. It travels as JSON text, which lax coercion parses back on arrival.
    let types = schema_types(&map);
    let open = !matches!(map.get("additionalProperties"), Some(Value::Bool(false)));
    if types.contains(&"object") && !map.contains_key("properties") && open {
        let mut text = Map::new();
        text.insert("type".into(), "STRING".into());
        if let Some(description) = map.get("description") {
            text.insert("description".into(), description.clone());
        }
        if types.contains(&"null") {
            text.insert("nullable".into(), true.into());
        }
        append_description(
            &mut text,
            &["A JSON object whose keys are chosen freely, written as JSON text.".into()],
        );
        return Value::Object(text);
    }

    let mut nullable = false;
    let mut notes = Vec::new();
    let mut out = Map::new();

    // Unions: null branches become `nullable`; one branch left is the schema itself.
    let union = map.remove("anyOf").or_else(|| map.remove("oneOf"));
    if let Some(Value::Array(branches)) = union {
        let mut kept = Vec::new();
        for branch in branches {
            let is_null = branch
                .as_object()
                .is_some_and(|b| schema_types(b) == ["null"]);
            if is_null {
                nullable = true;
            } else {
                kept.push(branch);
            }
        }
        if let [only] = kept.as_slice() {
            let inner = gemini_node(only, defs, stack);
            if let Value::Object(inner) = inner {
                for (key, value) in inner {
                    if key == "description" && map.contains_key("description") {
                        continue;
                    }
                    out.insert(key, value);
                }
            }
        } else if !kept.is_empty() {
            let branches: Vec<Value> = kept.iter().map(|b| gemini_node(b, defs, stack)).collect();
            out.insert("anyOf".into(), Value::Array(branches));
        }
    }

    let mut types: Vec<String> = schema_types(&map).into_iter().map(str::to_owned).collect();
    if types.iter().any(|t| t == "null") {
        nullable = true;
        types.retain(|t| t != "null");
    }
    if let Some(constant) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![constant]));
    }
    if let Some(Value::Array(values)) = map.remove("enum") {
        let mut strings = Vec::new();
        for value in values {
            match value {
                Value::Null => nullable = true,
                Value::String(s) => strings.push(Value::String(s)),
                other => strings.push(Value::String(other.to_string())),
            }
        }
        // Gemini's enums are string enums; our coercion turns "3" back into 3 on arrival.
        out.insert("type".into(), "STRING".into());
        out.insert("format".into(), "enum".into());
        out.insert("enum".into(), Value::Array(strings));
        types.clear();
    }
    match types.as_slice() {
        [] => {}
        [one] => {
            out.insert("type".into(), Value::String(one.to_uppercase()));
        }
        many => {
            // `["string", "integer"]`: Gemini takes one type per schema.
            let branches: Vec<Value> = many
                .iter()
                .map(|t| {
                    let mut single = map.clone();
                    single.insert("type".into(), Value::String(t.clone()));
                    single.remove("description");
                    gemini_node(&Value::Object(single), defs, stack)
                })
                .collect();
            out.insert("anyOf".into(), Value::Array(branches));
        }
    }
    let single_type = types.len() <= 1;

    for (key, value) in map {
        match key.as_str() {
            "type" | "enum" | "anyOf" | "oneOf" => {}
            "properties" if single_type => {
                if let Value::Object(properties) = value {
                    let converted: Map<String, Value> = properties
                        .iter()
                        .map(|(name, p)| (name.clone(), gemini_node(p, defs, stack)))
                        .collect();
                    out.insert(key, Value::Object(converted));
                }
            }
            // `items: false` closes a tuple; `prefixItems` already said what it holds.
            "items" if value == Value::Bool(false) => {}
            "items" if single_type => {
                out.insert(key, gemini_node(&value, defs, stack));
            }
            "prefixItems" if single_type => {
                // A tuple: Gemini has no positional items; describe the positions instead.
                if let Value::Array(positions) = value {
                    let shapes: Vec<Value> = positions
                        .iter()
                        .map(|p| gemini_node(p, defs, stack))
                        .collect();
                    let count = shapes.len();
                    let first = shapes.first().cloned().unwrap_or_else(|| json!({}));
                    let items = if shapes.iter().all(|s| *s == first) {
                        first
                    } else {
                        json!({ "anyOf": shapes })
                    };
                    out.insert("items".into(), items);
                    out.insert("minItems".into(), count.into());
                    out.insert("maxItems".into(), count.into());
                    notes.push(format!("A list of exactly {count} values, in order."));
                }
            }
            "additionalProperties" => {}
            // An enum already set `format: enum`.
            "format" if out.contains_key("format") => {}
            "format" => {
                out.insert(key, value);
            }
            "description" | "title" | "required" | "default" | "example" | "minimum"
            | "maximum" | "minItems" | "maxItems" | "minLength" | "maxLength" | "pattern"
            | "minProperties" | "maxProperties" | "nullable" | "propertyOrdering"
                if single_type =>
            {
                out.insert(key, value);
            }
            "description" => {
                out.insert(key, value);
            }
            _ if single_type => notes.extend(constraint_note(&key, &value)),
            _ => {}
        }
    }
    if nullable {
        out.insert("nullable".into(), true.into());
    }
    append_description(&mut out, &notes);
    Value::Object(out)
}

// ---------------------------------------------------------------------------------------------
// Whole toolboxes

/// Every tool of a toolbox in each provider's format: the array (or, for Gemini, the one
/// `{"functionDeclarations": [...]}` object) a request carries.
///
/// ```
/// use toolkit::prelude::*;
///
/// /// Add two numbers
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
/// assert_eq!(toolbox.to_openai()[0]["function"]["name"], "add");
/// assert_eq!(toolbox.to_anthropic()[0]["input_schema"]["required"], json!(["a", "b"]));
/// assert_eq!(toolbox.to_gemini()["functionDeclarations"][0]["name"], "add");
/// ```
impl crate::Toolbox {
    fn proxies(&self) -> Vec<ToolProxy> {
        self.iter().cloned().collect()
    }

    /// OpenAI Chat Completions `tools`.
    pub fn to_openai(&self) -> Value {
        openai_tools(&self.proxies())
    }

    /// OpenAI Chat Completions `tools` in strict mode, or the first tool that cannot be.
    pub fn to_openai_strict(&self) -> Result<Value, ToolError> {
        openai_strict_tools(&self.proxies())
    }

    /// OpenAI Responses API `tools`.
    pub fn to_openai_responses(&self) -> Value {
        openai_responses_tools(&self.proxies())
    }

    /// Anthropic Messages `tools`.
    pub fn to_anthropic(&self) -> Value {
        anthropic_tools(&self.proxies())
    }

    /// Gemini: one `{"functionDeclarations": [...]}` object.
    pub fn to_gemini(&self) -> Value {
        gemini_tools(&self.proxies())
    }

    /// MCP `tools/list` entries.
    pub fn to_mcp(&self) -> Value {
        mcp_tools(&self.proxies())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_ref_becomes_a_nullable_union_keeping_its_description_outside() {
        let schema = nullable(json!({"$ref": "#/$defs/Node", "description": "next"}));
        assert_eq!(
            schema,
            json!({"description": "next", "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]})
        );
    }

    #[test]
    fn optional_enum_accepts_null_in_its_values_and_its_type() {
        let schema = nullable(json!({"type": "string", "enum": ["a", "b"]}));
        assert_eq!(
            schema,
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
    }

    #[test]
    fn maps_are_a_strict_mode_error_naming_the_property() {
        let err = strict_schema(&json!({
            "type": "object",
            "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
            "required": ["counts"],
            "additionalProperties": false
        }))
        .unwrap_err();
        assert_eq!(err.0, "counts.additionalProperties");
    }

    #[test]
    fn recursive_refs_become_described_objects_for_gemini() {
        let gemini = gemini_schema(&json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
            }}
        }));
        assert_eq!(
            gemini["properties"]["root"]["properties"]["children"]["items"],
            json!({"type": "OBJECT", "description": "A nested Node, with the same fields as the enclosing one."})
        );
    }
}
