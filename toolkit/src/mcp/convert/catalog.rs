//! Resources, resource templates and prompts both ways: toolkit's definitions as the MCP JSON
//! a server lists them in (read into rmcp's types by the caller), and a remote server's listed
//! items as toolkit's definitions.

use serde_json::{Map, Value, json};
use toolkit_runtime::Icon;
use toolkit_runtime::prompts::{PromptArgument, PromptDefinition};
use toolkit_runtime::resources::{ResourceDefinition, ResourceTemplateDefinition, UriTemplate};

/// Sets `key` when there is a value.
fn put<T: serde::Serialize>(object: &mut Map<String, Value>, key: &str, value: &Option<T>) {
    if let Some(value) = value {
        object.insert(key.to_owned(), json!(value));
    }
}

/// A resource as `resources/list` gives it.
pub(in crate::mcp) fn resource_json(def: &ResourceDefinition) -> Value {
    let texts = [&def.title, &def.description, &def.mime_type];
    let mut object = listed(("uri", &def.uri), &def.name, texts, &def.icons);
    put(&mut object, "size", &def.size);
    Value::Object(object)
}

/// A resource template as `resources/templates/list` gives it.
pub(in crate::mcp) fn template_json(def: &ResourceTemplateDefinition) -> Value {
    let texts = [&def.title, &def.description, &def.mime_type];
    let address = ("uriTemplate", def.uri_template.as_str());
    Value::Object(listed(address, &def.name, texts, &def.icons))
}

/// What a listed resource and a listed template share: an address (`uri` or `uriTemplate`), a
/// name, a title, description and MIME type when they have one, and their icons.
fn listed(
    (key, address): (&str, &str),
    name: &str,
    [title, description, mime_type]: [&Option<String>; 3],
    icons: &[Icon],
) -> Map<String, Value> {
    let mut object = Map::new();
    object.insert(key.into(), json!(address));
    object.insert("name".into(), json!(name));
    put(&mut object, "title", title);
    put(&mut object, "description", description);
    put(&mut object, "mimeType", mime_type);
    if !icons.is_empty() {
        object.insert("icons".into(), json!(icons));
    }
    object
}

/// A prompt as `prompts/list` gives it.
pub(in crate::mcp) fn prompt_json(def: &PromptDefinition) -> Value {
    let mut object = Map::new();
    object.insert("name".into(), json!(def.name));
    put(&mut object, "title", &def.title);
    put(&mut object, "description", &def.description);
    let arguments: Vec<Value> = def
        .arguments
        .iter()
        .map(|argument| {
            let mut object = Map::new();
            object.insert("name".into(), json!(argument.name));
            put(&mut object, "title", &argument.title);
            put(&mut object, "description", &argument.description);
            object.insert("required".into(), json!(argument.required));
            Value::Object(object)
        })
        .collect();
    if !arguments.is_empty() {
        object.insert("arguments".into(), Value::Array(arguments));
    }
    if !def.icons.is_empty() {
        object.insert("icons".into(), json!(def.icons));
    }
    Value::Object(object)
}

fn text(item: &Value, key: &str) -> Option<String> {
    item.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn icons(item: &Value) -> Vec<Icon> {
    item.get("icons")
        .and_then(|icons| serde_json::from_value(icons.clone()).ok())
        .unwrap_or_default()
}

/// A remote server's listed resource as toolkit's definition.
pub(in crate::mcp) fn resource_definition(item: &Value) -> ResourceDefinition {
    let mut def = ResourceDefinition::new(
        text(item, "uri").unwrap_or_default(),
        text(item, "name").unwrap_or_default(),
    );
    def.title = text(item, "title");
    def.description = text(item, "description");
    def.mime_type = text(item, "mimeType");
    def.size = item.get("size").and_then(Value::as_u64);
    def.icons = icons(item);
    def
}

/// A remote server's listed resource template as toolkit's definition.
pub(in crate::mcp) fn template_definition(item: &Value) -> ResourceTemplateDefinition {
    let template = UriTemplate::as_written(&text(item, "uriTemplate").unwrap_or_default());
    let mut def =
        ResourceTemplateDefinition::from_template(template, text(item, "name").unwrap_or_default());
    def.title = text(item, "title");
    def.description = text(item, "description");
    def.mime_type = text(item, "mimeType");
    def.icons = icons(item);
    def
}

/// A remote server's listed prompt as toolkit's definition.
pub(in crate::mcp) fn prompt_definition(item: &Value) -> PromptDefinition {
    let mut def = PromptDefinition::new(text(item, "name").unwrap_or_default());
    def.title = text(item, "title");
    def.description = text(item, "description");
    def.icons = icons(item);
    let arguments = item.get("arguments").and_then(Value::as_array);
    for argument in arguments.into_iter().flatten() {
        let name = text(argument, "name").unwrap_or_default();
        let mut read = match argument.get("required").and_then(Value::as_bool) {
            Some(true) => PromptArgument::required(name),
            _ => PromptArgument::optional(name),
        };
        read.title = text(argument, "title");
        read.description = text(argument, "description");
        def.arguments.push(read);
    }
    def
}
