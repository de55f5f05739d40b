//! What generated code uses: `#[toolset]` and `#[tool]` expand to paths under
//! `toolkit::__private`, never to what the user imported. Not a public API: it changes without
//! notice.

pub use crate::call::Arguments;
pub use crate::call::MethodTool;
pub use crate::call::{
    BoxFuture, ContentProbe, DefaultHidden, DefaultShown, DefaultValue, Field, FieldReaders,
    FieldsProbe, Handler, HandlerError, HasFields, HasOutputSchema, NoFields, NoOutputSchema,
    OutputSchemaProbe, ParseFields, ReturnsContent, ReturnsJson, TypedHandler, TypedInput, output,
    output_ref, result_output,
};
pub use crate::completion::Completer;
pub use crate::context::ToolContext;
pub use crate::prompts::{
    PromptArgument, PromptDefinition, PromptMessage, PromptProxy, PromptReturn,
};
pub use crate::registry::ToolsetRegistration;
pub use crate::resources::{
    RequestError, ResourceDefinition, ResourceProxy, ResourceReturn, ResourceTemplateDefinition,
    ResourceTemplateProxy, arg,
};
pub use crate::schema::build::{ParamSpec, param_schema, param_schema_option, parameters_schema};
pub use crate::state::typed::*;
pub use crate::state::{AgentState, MergeRule, StateError, StateKey, StateWiring, merge_list_into};
// Not for generated code: the MCP client's forwarded results and the MCP server's door into
// the toolbox (`toolbox/resolved.rs`).
pub use crate::call::Forwarded;
pub use crate::toolbox::ToolRef;
pub use crate::toolset::{DefaultProbe, NoDefault, ViaDefault, toolset_registration};
pub use crate::{
    Icon, ResourceContents, TaskSupport, ToolAnnotations, ToolArgument, ToolDefinition,
    ToolErrorMessage, ToolOptions, ToolProxy, ToolReturn, Toolset,
};

use std::sync::Arc;

use serde_json::Value;

/// A `#[resource]` template's proxy. The macro checks the template at compile time with the
/// same parser, so the error arm is unreachable; a template that still failed would be left out
/// rather than panic in `into_resource_templates`.
pub fn resource_template<F>(
    uri_template: &str,
    name: &str,
    make: F,
) -> Option<ResourceTemplateProxy>
where
    F: FnOnce(ResourceTemplateDefinition) -> ResourceTemplateProxy,
{
    ResourceTemplateDefinition::new(uri_template, name)
        .ok()
        .map(make)
}

/// A `#[toolset]` tool wired to its `#[toolset(state = ...)]` keys.
pub fn wire_state(tool: ToolProxy, wiring: StateWiring) -> ToolProxy {
    match tool.with_state(wiring) {
        Ok(wired) => wired,
        // The macro wires only parameters the method has, so this is unreachable; the tool is
        // still better unwired than a panic in `to_tools`.
        Err(_) => tool,
    }
}

/// A `#[toolset(state = ...)]` tool, already wired, given its typed body with state: `parser`
/// reads the parameters the model sends (`names`), and `body` fills the others from the state's
/// fields, calls the method and merges its result (see `call::typed_state`). Without a parser (a
/// parameter type serde cannot read) the tool keeps the JSON path alone.
pub fn wire_state_typed<S, F>(
    tool: ToolProxy,
    parser: Option<ParseFields<S>>,
    names: &'static [&'static str],
    body: F,
) -> ToolProxy
where
    S: 'static,
    F: Fn(&mut dyn AgentState, S) -> Option<Result<Value, HandlerError>> + Send + Sync + 'static,
{
    match parser {
        Some(parse) => tool.with_typed_state(Arc::new(move |state, input| {
            body(state, parse(input, names)?)
        })),
        None => tool,
    }
}
