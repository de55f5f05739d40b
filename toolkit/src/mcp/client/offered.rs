//! What a remote server offers beside tools: its resources, resource templates and prompts,
//! listed page by page, read, got and completed, as toolkit's own types.
//!
//! rmcp's types are read through their MCP JSON, which ours share, so no field is copied by
//! hand twice.

use std::future::Future;

use rmcp::RoleClient;
use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, CompletionContext, GetPromptRequestParams,
    PaginatedRequestParams, ReadResourceRequestParams, Reference,
};
use rmcp::service::{Peer, ServiceError};
use serde_json::{Map, Value};
use toolkit_runtime::completion::Completion;
use toolkit_runtime::prompts::PromptDefinition;
use toolkit_runtime::resources::{ResourceDefinition, ResourceTemplateDefinition};
use toolkit_runtime::{PromptMessage, ResourceContents};

use super::McpClient;
use super::input_required;
use super::listing::MAX_TOOL_PAGES;
use super::session::{Session, is_connection_error};
use crate::mcp::McpError;
use crate::mcp::convert::{prompt_definition, resource_definition, template_definition};

/// What a completion is for: a prompt's argument or a resource template's parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionRef {
    /// The prompt of this name.
    Prompt(String),
    /// The resource template written so (`users://{id}/profile`).
    ResourceTemplate(String),
}

impl Session {
    /// One request, sent again once after a reconnection when the connection failed: every
    /// request here only reads, so a second one does no harm.
    async fn read_request<T, F, Fut>(&self, what: &str, send: F) -> Result<T, McpError>
    where
        F: Fn(Peer<RoleClient>) -> Fut,
        Fut: Future<Output = Result<T, ServiceError>>,
    {
        let current = self.peer().await;
        if !current.closed {
            match send(current.peer).await {
                Err(err) if self.transport().reconnects() && is_connection_error(&err) => {}
                other => return other.map_err(|err| self.failed(what, err)),
            }
        }
        self.reconnect(current.generation).await?;
        let peer = self.peer().await.peer;
        send(peer).await.map_err(|err| self.failed(what, err))
    }
}

/// Reads what rmcp read back as our type, through its MCP JSON.
fn through_json<T: serde::de::DeserializeOwned>(
    value: impl serde::Serialize,
    what: &str,
    server: &Session,
) -> Result<T, McpError> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|err| McpError::Request {
            server: server.transport().to_string(),
            request: what.to_owned(),
            message: format!("unreadable answer: {err}"),
        })
}

/// Every page of one listing, up to [`MAX_TOOL_PAGES`]: `list` sends one page's request and
/// returns its items (as JSON) and the next cursor.
async fn all_pages<F, Fut>(session: &Session, what: &str, list: F) -> Result<Vec<Value>, McpError>
where
    F: Fn(Peer<RoleClient>, Option<PaginatedRequestParams>) -> Fut,
    Fut: Future<Output = Result<(Value, Option<String>), ServiceError>>,
{
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_TOOL_PAGES {
        let params = cursor
            .clone()
            .map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
        let (page, next) = session
            .read_request(what, |peer| list(peer, params.clone()))
            .await?;
        items.extend(page.as_array().cloned().unwrap_or_default());
        match next {
            Some(next) => cursor = Some(next),
            None => return Ok(items),
        }
    }
    Err(McpError::Request {
        server: session.transport().to_string(),
        request: what.to_owned(),
        message: format!("the server was still paginating after {MAX_TOOL_PAGES} pages"),
    })
}

/// A page's items as JSON; a list rmcp read always serializes.
fn page_items(items: impl serde::Serialize) -> Value {
    serde_json::to_value(items).unwrap_or(Value::Null)
}

impl McpClient {
    /// The server's resources (`resources/list`), every page of them.
    ///
    /// ```no_run
    /// use toolkit::mcp::{CompletionRef, McpClient, McpTransport};
    /// use toolkit::prelude::*;
    ///
    /// # async fn run() -> Result<(), toolkit::mcp::McpError> {
    /// let client = McpClient::connect(McpTransport::http("http://127.0.0.1:3001/mcp")).await?;
    /// for resource in client.list_resources().await? {
    ///     let contents = client.read_resource(&resource.uri).await?;
    ///     println!("{}: {:?}", resource.uri, contents[0].text);
    /// }
    /// let args = json!({"code": "fn main() {}"}).as_object().cloned().unwrap_or_default();
    /// let messages = client.get_prompt("review", args).await?;
    /// let languages = client
    ///     .complete(CompletionRef::Prompt("review".into()), "language", "ru", Default::default())
    ///     .await?;
    /// # let _ = (messages, languages);
    /// # Ok(()) }
    /// ```
    pub async fn list_resources(&self) -> Result<Vec<ResourceDefinition>, McpError> {
        let items = all_pages(&self.session, "resources/list", |peer, params| async move {
            let page = peer.list_resources(params).await?;
            Ok((page_items(page.resources), page.next_cursor))
        })
        .await?;
        Ok(items.iter().map(resource_definition).collect())
    }

    /// The server's resource templates (`resources/templates/list`), every page of them. A
    /// template beyond RFC 6570 level 1 is kept as written ([`UriTemplate::as_written`](crate::resources::UriTemplate::as_written)).
    pub async fn list_resource_templates(
        &self,
    ) -> Result<Vec<ResourceTemplateDefinition>, McpError> {
        let what = "resources/templates/list";
        let items = all_pages(&self.session, what, |peer, params| async move {
            let page = peer.list_resource_templates(params).await?;
            Ok((page_items(page.resource_templates), page.next_cursor))
        })
        .await?;
        Ok(items.iter().map(template_definition).collect())
    }

    /// Reads a resource (`resources/read`): its contents, text or base64 bytes. A URI the
    /// server does not know is its error (`-32002`), in [`McpError::Request`].
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourceContents>, McpError> {
        let what = "resources/read";
        let read = self
            .session
            .read_request(what, |peer| async move {
                let params = ReadResourceRequestParams::new(uri);
                input_required::read_resource(&peer, self.session.handlers(), params).await
            })
            .await?;
        through_json(read.contents, what, &self.session)
    }

    /// The server's prompts (`prompts/list`), every page of them.
    pub async fn list_prompts(&self) -> Result<Vec<PromptDefinition>, McpError> {
        let items = all_pages(&self.session, "prompts/list", |peer, params| async move {
            let page = peer.list_prompts(params).await?;
            Ok((page_items(page.prompts), page.next_cursor))
        })
        .await?;
        Ok(items.iter().map(prompt_definition).collect())
    }

    /// Gets a prompt filled with `arguments` (`prompts/get`): its messages.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<Vec<PromptMessage>, McpError> {
        let what = "prompts/get";
        let got = self
            .session
            .read_request(what, |peer| {
                let params = GetPromptRequestParams::new(name).with_arguments(arguments.clone());
                let handlers = self.session.handlers();
                async move { input_required::get_prompt(&peer, handlers, params).await }
            })
            .await?;
        through_json(got.messages, what, &self.session)
    }

    /// Asks the server to complete `value`, what the user typed of `argument`
    /// (`completion/complete`), given the other arguments already chosen.
    pub async fn complete(
        &self,
        reference: CompletionRef,
        argument: &str,
        value: &str,
        context: Map<String, Value>,
    ) -> Result<Completion, McpError> {
        let what = "completion/complete";
        let reference = match reference {
            CompletionRef::Prompt(name) => Reference::for_prompt(name),
            CompletionRef::ResourceTemplate(uri) => Reference::for_resource(uri),
        };
        let chosen: std::collections::HashMap<String, String> = context
            .into_iter()
            .map(|(name, value)| match value {
                Value::String(text) => (name, text),
                other => (name, other.to_string()),
            })
            .collect();
        let answer = self
            .session
            .read_request(what, |peer| {
                let mut params = CompleteRequestParams::new(
                    reference.clone(),
                    ArgumentInfo::new(argument, value),
                );
                if !chosen.is_empty() {
                    params.context = Some(CompletionContext::with_arguments(chosen.clone()));
                }
                async move { peer.complete(params).await }
            })
            .await?;
        let info = answer.completion;
        let mut completion = Completion::new(info.values);
        completion.total = info.total.or(completion.total);
        completion.has_more = info.has_more.unwrap_or(completion.has_more);
        Ok(completion)
    }
}
