//! Schemas from Rust types: a tool's parameters (as `#[toolset]` describes them) and a whole
//! type (an output schema), each self-contained.

use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value};

use super::refs::inline_refs;
use super::tidy::strip_noise;
use crate::bounds::ToolArgument;

/// One parameter of a tool, as the `#[toolset]` macro describes it: everything here is known at
/// compile time.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The argument's name, as the model sends it.
    pub name: &'static str,
    /// Its description, from a doc comment or `#[arg(description = "...")]`.
    pub description: Option<&'static str>,
    /// Produces the schema of the parameter's type.
    pub schema: fn(&mut SchemaGenerator) -> Schema,
    /// Whether the model must send it.
    pub required: bool,
    /// The default value shown in the schema, for `#[arg(default)]` parameters.
    pub default: Option<fn() -> Option<Value>>,
    /// The HTTP header a 2026-07-28 MCP client mirrors it into (`Mcp-Param-<header>`), for
    /// `#[arg(header = "...")]` parameters: listed as `x-mcp-header` in MCP's schema only.
    pub header: Option<&'static str>,
}

/// The schema keyword naming a parameter's HTTP header (MCP 2026-07-28, SEP-2243): a client
/// sends the argument again as the header `Mcp-Param-<name>`, for gateways to route on, and
/// the server refuses a call where the two disagree. `#[arg(header = "...")]` writes it into
/// the MCP listing's `inputSchema` (not into providers' schemas).
///
/// ```
/// use serde_json::json;
/// use toolkit_runtime::schema::MCP_HEADER;
///
/// let listed = json!({"properties": {"region": {"type": "string", "x-mcp-header": "Region"}}});
/// let header = listed["properties"]["region"][MCP_HEADER].as_str();
/// assert_eq!(header.map(|name| format!("Mcp-Param-{name}")).as_deref(), Some("Mcp-Param-Region"));
/// ```
pub const MCP_HEADER: &str = "x-mcp-header";

/// The schema of a parameter of type `T` (the function the macro stores in [`ParamSpec::schema`]).
pub fn param_schema<T: ToolArgument>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The schema of an `Option<T>` parameter, with the bound on `T` (see `param_schema`).
pub fn param_schema_option<T: ToolArgument>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<Option<T>>()
}

/// A generator configured the way every toolkit schema is made.
pub fn generator() -> SchemaGenerator {
    SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
}

/// The JSON Schema dialect toolkit's schemas are written in, as `$schema` names it.
pub(crate) const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Builds the object schema of a tool's arguments (see the test
/// `parameters_become_an_object_schema` for its shape).
pub fn parameters_schema(params: &[ParamSpec]) -> Value {
    parameters_schemas(params).0
}

/// A tool's parameters schema in the two forms the formats take: self-contained (references
/// inlined, what providers and the validator read), and, when the parameters' types are named
/// types with definitions, as schemars wrote it: `$defs` and the references into them kept,
/// under a `$schema` naming 2020-12 (what MCP's `tools/list` sends; see `ToolProxy::mcp_definition`).
pub(crate) fn parameters_schemas(params: &[ParamSpec]) -> (Value, Option<Value>) {
    let mut generator = generator();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in params {
        let mut schema = (param.schema)(&mut generator).to_value();
        // `serde_json::Value` is the schema `true` (anything); an empty object means the same
        // and can carry the parameter's description.
        if schema == Value::Bool(true) {
            schema = Value::Object(Map::new());
        }
        if let Value::Object(map) = &mut schema {
            if let Some(description) = param.description {
                map.insert("description".into(), Value::String(description.into()));
            }
            if let Some(default) = param.default.and_then(|make| make()) {
                map.insert("default".into(), default);
            }
        }
        properties.insert(param.name.into(), schema);
        if param.required {
            required.push(Value::String(param.name.into()));
        }
    }
    let mut root = Map::new();
    root.insert("type".into(), "object".into());
    root.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    root.insert("additionalProperties".into(), false.into());
    let definitions = generator.take_definitions(true);
    let root = Value::Object(root);
    let written = as_written(&root, &definitions);
    let root = finish(root, definitions);
    let written = with_headers(params, written, &root);
    (root, written)
}

/// MCP's form of the schema with each header parameter's `x-mcp-header`: only MCP lists it,
/// so a provider's schema (strict mode's among them) never holds a keyword it may refuse.
fn with_headers(params: &[ParamSpec], written: Option<Value>, root: &Value) -> Option<Value> {
    if params.iter().all(|param| param.header.is_none()) {
        return written;
    }
    let mut mcp = written.unwrap_or_else(|| root.clone());
    for param in params {
        let Some(header) = param.header else {
            continue;
        };
        if let Some(schema) = mcp["properties"][param.name].as_object_mut() {
            schema.insert(MCP_HEADER.into(), header.into());
        }
    }
    Some(mcp)
}

/// The schema as schemars wrote it, for a format that takes `$defs` (MCP): the root's keywords,
/// then `$defs`, cleared of the same noise as the inlined form, under `$schema`. `None` without
/// definitions: the schema is then the same in both forms, and stays as it was listed before
/// (MCP reads a schema without `$schema` as 2020-12 anyway, SEP-1613).
fn as_written(root: &Value, definitions: &Map<String, Value>) -> Option<Value> {
    let Value::Object(keywords) = root else {
        return None;
    };
    if definitions.is_empty() {
        return None;
    }
    let mut body = keywords.clone();
    body.insert("$defs".into(), Value::Object(definitions.clone()));
    let mut body = Value::Object(body);
    strip_noise(&mut body);
    let mut written = Map::new();
    written.insert("$schema".into(), DIALECT.into());
    if let Value::Object(body) = body {
        written.extend(body);
    }
    Some(Value::Object(written))
}

/// The schema of a whole type `T`, made self-contained the same way as parameter schemas.
///
/// Used for output schemas (MCP `outputSchema`).
///
/// ```
/// use serde_json::json;
///
/// let schema = toolkit_runtime::schema::type_schema::<Vec<u8>>();
/// assert_eq!(
///     schema,
///     json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}})
/// );
/// ```
pub fn type_schema<T: JsonSchema + ?Sized>() -> Value {
    let mut generator = generator();
    let schema = generator.subschema_for::<T>().to_value();
    let definitions = generator.take_definitions(true);
    finish(schema, definitions)
}

/// Inlines references, keeps `$defs` only for recursion, and strips generator noise.
fn finish(mut root: Value, definitions: Map<String, Value>) -> Value {
    if !definitions.is_empty()
        && let Value::Object(map) = &mut root
    {
        map.insert("$defs".into(), Value::Object(definitions));
    }
    // A type's schema is far inside the inliner's bounds; were one not, its `$defs` stay.
    let mut root = inline_refs(&root).unwrap_or(root);
    strip_noise(&mut root);
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parameters_become_an_object_schema() {
        let params = [ParamSpec {
            name: "text",
            description: Some("The text to count"),
            schema: param_schema::<String>,
            required: true,
            default: None,
            header: None,
        }];
        assert_eq!(
            parameters_schema(&params),
            json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to count"}},
                "required": ["text"],
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn a_header_parameter_is_marked_in_the_mcp_form_only() {
        let params = [ParamSpec {
            name: "region",
            description: None,
            schema: param_schema::<String>,
            required: true,
            default: None,
            header: Some("Region"),
        }];
        let (provider, mcp) = parameters_schemas(&params);
        assert_eq!(provider["properties"]["region"], json!({"type": "string"}));
        let mcp = mcp.expect("an MCP form");
        assert_eq!(
            mcp["properties"]["region"],
            json!({"type": "string", "x-mcp-header": "Region"})
        );
    }
}
