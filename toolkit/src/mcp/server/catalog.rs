//! What the server offers beside tools: resources, resource templates and prompts, their
//! `*/list` answers (built once), reads, gets and completions, in rmcp's types.
//!
//! Our definitions serialize as MCP's own JSON, so each answer is built as that JSON and read
//! into rmcp's type, as tool results are (`convert`).

use std::collections::HashMap;

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, ErrorCode, GetPromptResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PromptsCapability, ReadResourceResult,
    Reference, ResourcesCapability, ServerCapabilities,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use toolkit_runtime::{
    PromptMessage, PromptProxy, RequestError, ResourceProxy, ResourceTemplateProxy,
};

use super::{McpServer, ServerNotifier};
use crate::Toolset;
use crate::mcp::convert::{prompt_json, resource_json, template_json};

/// The resources, templates and prompts one server offers, with their listings.
#[derive(Clone, Default)]
pub(super) struct Offerings {
    pub(super) resources: Vec<ResourceProxy>,
    pub(super) templates: Vec<ResourceTemplateProxy>,
    pub(super) prompts: Vec<PromptProxy>,
}

/// What a server offers beside its tools, and the handle to tell its clients of changes.
impl McpServer {
    /// The server with one more fixed resource (`resources/list`, `resources/read`).
    ///
    /// ```
    /// use toolkit::ResourceProxy;
    /// use toolkit::mcp::McpServer;
    /// use toolkit::resources::ResourceDefinition;
    ///
    /// let readme = ResourceProxy::from_fn(ResourceDefinition::new("docs://readme", "readme"), || "# Hello");
    /// let server = McpServer::new(Vec::new()).with_resource(readme);
    /// assert_eq!(server.resources().len(), 1);
    /// ```
    pub fn with_resource(self, resource: ResourceProxy) -> Self {
        self.with_inner(|inner| inner.catalog.resources.push(resource))
    }

    /// The server with one more resource template (`resources/templates/list`, and
    /// `resources/read` of every URI it matches that no fixed resource has).
    pub fn with_resource_template(self, template: ResourceTemplateProxy) -> Self {
        self.with_inner(|inner| inner.catalog.templates.push(template))
    }

    /// The server with one more prompt (`prompts/list`, `prompts/get`).
    pub fn with_prompt(self, prompt: PromptProxy) -> Self {
        self.with_inner(|inner| inner.catalog.prompts.push(prompt))
    }

    /// The server with a toolset's resources, resource templates and prompts (its
    /// `#[resource]` and `#[prompt]` methods); its tools are given to [`new`](Self::new), or
    /// all at once with [`from_toolset`](Self::from_toolset).
    pub fn with_toolset_parts<T: Toolset>(self, toolset: std::sync::Arc<T>) -> Self {
        let resources = std::sync::Arc::clone(&toolset).into_resources();
        let templates = std::sync::Arc::clone(&toolset).into_resource_templates();
        let prompts = toolset.into_prompts();
        self.with_inner(|inner| {
            inner.catalog.resources.extend(resources);
            inner.catalog.templates.extend(templates);
            inner.catalog.prompts.extend(prompts);
        })
    }

    /// A server for a toolset's tools, resources, resource templates and prompts.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolkit::mcp::McpServer;
    /// use toolkit::prelude::*;
    ///
    /// struct Notes;
    ///
    /// #[toolset(name = "notes")]
    /// impl Notes {
    ///     /// Count the notes
    ///     #[tool]
    ///     fn count(&self) -> usize {
    ///         0
    ///     }
    /// }
    ///
    /// let server = McpServer::from_toolset(Arc::new(Notes));
    /// assert_eq!(server.tools()[0].name(), "notes_count");
    /// assert!(server.prompts().is_empty()); // no #[prompt] methods
    /// ```
    pub fn from_toolset<T: Toolset>(toolset: std::sync::Arc<T>) -> Self {
        McpServer::new(std::sync::Arc::clone(&toolset).into_tools()).with_toolset_parts(toolset)
    }

    /// The handle that tells this server's clients of changes: a subscribed resource updated,
    /// the lists of resources, prompts or tools changed. Every clone reaches every session.
    pub fn notifier(&self) -> ServerNotifier {
        self.inner.notifier.clone()
    }

    /// `resources/subscribe`: this session wants `notifications/resources/updated` for `uri`.
    pub(super) fn subscribe_session(
        &self,
        uri: String,
        peer: &rmcp::service::Peer<rmcp::RoleServer>,
    ) -> Result<(), ErrorData> {
        if self.stateless {
            return Err(ErrorData::invalid_request(
                "resources/subscribe needs a session, and this server is stateless: \
                 it could never send the notification",
                None,
            ));
        }
        if !self.inner.catalog.knows(&uri) {
            return Err(rpc_error(RequestError::ResourceNotFound { uri }));
        }
        let subscribed = self.inner.notifier.subscribe(self.session_id, peer, uri);
        subscribed.map_err(|refused| ErrorData::invalid_request(refused.to_string(), None))?;
        Ok(())
    }

    /// The fixed resources served, in order.
    pub fn resources(&self) -> &[ResourceProxy] {
        &self.inner.catalog.resources
    }

    /// The resource templates served, in order.
    pub fn resource_templates(&self) -> &[ResourceTemplateProxy] {
        &self.inner.catalog.templates
    }

    /// The prompts served, in order.
    pub fn prompts(&self) -> &[PromptProxy] {
        &self.inner.catalog.prompts
    }
}

/// Our JSON read into an rmcp type; a mismatch (none known) is an internal error, not a panic.
fn into_rmcp<T: DeserializeOwned>(mut value: Value) -> Result<T, ErrorData> {
    // MCP 2026-07-28 wants it on every result, and rmcp's own constructors set it; read from
    // JSON without it, rmcp's type would leave it out. rmcp takes it off again for older peers.
    if let Value::Object(answer) = &mut value {
        answer.insert("resultType".to_owned(), Value::from("complete"));
    }
    serde_json::from_value(value)
        .map_err(|err| ErrorData::internal_error(format!("answer not built: {err}"), None))
}

/// A `RequestError` as its JSON-RPC error; a resource not found carries its URI as data, as the
/// specification's example does.
pub(super) fn rpc_error(err: RequestError) -> ErrorData {
    let data = match &err {
        RequestError::ResourceNotFound { uri } => Some(json!({"uri": uri})),
        _ => None,
    };
    ErrorData::new(ErrorCode(err.code()), err.to_string(), data)
}

impl Offerings {
    /// The capabilities of what there is: resources (with subscriptions and list changes),
    /// prompts (with list changes), completions (for template parameters and prompt
    /// arguments).
    pub(super) fn declare(&self, capabilities: &mut ServerCapabilities) {
        if !self.resources.is_empty() || !self.templates.is_empty() {
            let mut resources = ResourcesCapability::default();
            resources.subscribe = Some(true);
            resources.list_changed = Some(true);
            capabilities.resources = Some(resources);
        }
        if !self.prompts.is_empty() {
            let mut prompts = PromptsCapability::default();
            prompts.list_changed = Some(true);
            capabilities.prompts = Some(prompts);
        }
        if !self.templates.is_empty() || !self.prompts.is_empty() {
            capabilities.completions = Some(Default::default());
        }
    }

    pub(super) fn list_resources(&self) -> Result<ListResourcesResult, ErrorData> {
        let listed: Vec<Value> = self
            .resources
            .iter()
            .map(|resource| resource_json(resource.definition()))
            .collect();
        into_rmcp(json!({ "resources": listed }))
    }

    pub(super) fn list_templates(&self) -> Result<ListResourceTemplatesResult, ErrorData> {
        let listed: Vec<Value> = self
            .templates
            .iter()
            .map(|template| template_json(template.definition()))
            .collect();
        into_rmcp(json!({ "resourceTemplates": listed }))
    }

    pub(super) fn list_prompts(&self) -> Result<ListPromptsResult, ErrorData> {
        let listed: Vec<Value> = self
            .prompts
            .iter()
            .map(|prompt| prompt_json(prompt.definition()))
            .collect();
        into_rmcp(json!({ "prompts": listed }))
    }

    /// Whether some resource or template answers `uri`.
    pub(super) fn knows(&self, uri: &str) -> bool {
        self.resources.iter().any(|resource| resource.uri() == uri)
            || self.templates.iter().any(|template| template.matches(uri))
    }

    /// A fixed resource at `uri` first, then the first template that matches it.
    pub(super) async fn read(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let read = match self.resources.iter().find(|resource| resource.uri() == uri) {
            Some(resource) => resource.read(),
            None => match self.templates.iter().find(|template| template.matches(uri)) {
                Some(template) => template.read(uri),
                None => {
                    let uri = uri.to_owned();
                    return Err(rpc_error(RequestError::ResourceNotFound { uri }));
                }
            },
        };
        let contents = read.await.map_err(rpc_error)?;
        into_rmcp(json!({ "contents": contents }))
    }

    /// The prompt `prompts/get` names, or the error for one this server does not offer.
    pub(super) fn prompt(&self, name: &str) -> Result<&PromptProxy, ErrorData> {
        match self.prompts.iter().find(|prompt| prompt.name() == name) {
            Some(prompt) => Ok(prompt),
            None => {
                let name = name.to_owned();
                Err(rpc_error(RequestError::UnknownPrompt { name }))
            }
        }
    }

    /// The answer to `prompts/get` of `prompt`, filled with `messages` (or why not).
    pub(super) fn prompt_result(
        prompt: &PromptProxy,
        messages: Result<Vec<PromptMessage>, RequestError>,
    ) -> Result<GetPromptResult, ErrorData> {
        let messages = messages.map_err(rpc_error)?;
        let mut answer = json!({ "messages": messages });
        if let Some(description) = &prompt.definition().description {
            answer["description"] = json!(description);
        }
        into_rmcp(answer)
    }

    /// `completion/complete`: the completer of the prompt argument or template parameter named;
    /// no values for one without a completer, an invalid-params error for a prompt, template or
    /// argument that does not exist.
    pub(super) async fn complete(
        &self,
        request: CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        let argument = &request.argument.name;
        let invalid = |message: String| rpc_error(RequestError::InvalidParams { message });
        let completer = match &request.r#ref {
            Reference::Prompt(reference) => {
                let prompt = self
                    .prompts
                    .iter()
                    .find(|prompt| prompt.name() == reference.name)
                    .ok_or_else(|| {
                        rpc_error(RequestError::UnknownPrompt {
                            name: reference.name.clone(),
                        })
                    })?;
                if !prompt
                    .definition()
                    .arguments
                    .iter()
                    .any(|arg| arg.name == *argument)
                {
                    return Err(invalid(format!(
                        "prompt `{}` has no argument `{argument}`",
                        reference.name
                    )));
                }
                prompt.completer(argument)
            }
            Reference::Resource(reference) => {
                let template = self
                    .templates
                    .iter()
                    .find(|template| template.uri_template().as_str() == reference.uri)
                    .ok_or_else(|| invalid(format!("no resource template `{}`", reference.uri)))?;
                if !template
                    .uri_template()
                    .params()
                    .contains(&argument.as_str())
                {
                    return Err(invalid(format!(
                        "template `{}` has no parameter `{argument}`",
                        reference.uri
                    )));
                }
                template.completer(argument)
            }
            _ => return Err(invalid("unknown completion reference".into())),
        };
        let completion = match completer {
            Some(completer) => {
                let context = request
                    .context
                    .and_then(|context| context.arguments)
                    .unwrap_or_default();
                completer
                    .complete(&request.argument.value, string_map(context))
                    .await
            }
            None => toolkit_runtime::completion::Completion::default(),
        };
        into_rmcp(json!({
            "completion": {
                "values": completion.values,
                "total": completion.total,
                "hasMore": completion.has_more,
            }
        }))
    }
}

fn string_map(arguments: HashMap<String, String>) -> Map<String, Value> {
    arguments
        .into_iter()
        .map(|(name, value)| (name, Value::String(value)))
        .collect()
}
