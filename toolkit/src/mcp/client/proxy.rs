//! A remote server served again: its resources, resource templates and prompts as toolkit's
//! proxies, each reading through the client (with the server's completions), and
//! [`McpServer::proxy`], which serves all of it.

use rmcp::model::ServerCapabilities;
use serde_json::{Map, Value};
use toolkit_runtime::completion::Completer;
use toolkit_runtime::{PromptProxy, ResourceProxy, ResourceTemplateProxy};

use super::{CompletionRef, McpClient};
use crate::TaskSupport;
use crate::mcp::{McpError, McpServer};

/// What the remote server said it offers when the session opened.
struct Offers {
    resources: bool,
    prompts: bool,
    completions: bool,
}

impl Offers {
    fn from(capabilities: Option<ServerCapabilities>) -> Offers {
        let capabilities = capabilities.unwrap_or_default();
        Offers {
            resources: capabilities.resources.is_some(),
            prompts: capabilities.prompts.is_some(),
            completions: capabilities.completions.is_some(),
        }
    }
}

impl McpClient {
    async fn offers(&self) -> Offers {
        Offers::from(self.session.capabilities().await)
    }

    /// The server's resources as [`ResourceProxy`]s, each read through this client (none when
    /// the server does not offer resources).
    ///
    /// ```no_run
    /// use toolkit::mcp::{McpClient, McpTransport};
    ///
    /// # async fn run() -> Result<(), toolkit::mcp::McpError> {
    /// let client = McpClient::connect(McpTransport::http("http://127.0.0.1:3001/mcp")).await?;
    /// for resource in client.resource_proxies().await? {
    ///     println!("{}", resource.uri());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn resource_proxies(&self) -> Result<Vec<ResourceProxy>, McpError> {
        if !self.offers().await.resources {
            return Ok(Vec::new());
        }
        let proxies = self.list_resources().await?.into_iter().map(|definition| {
            let (client, uri) = (self.clone(), definition.uri.clone());
            ResourceProxy::from_async_fn(definition, move || {
                let (client, uri) = (client.clone(), uri.clone());
                async move { client.read_resource(&uri).await }
            })
        });
        Ok(proxies.collect())
    }

    /// The server's resource templates as [`ResourceTemplateProxy`]s, each read through this
    /// client, with the server's completion of each parameter when it offers completions.
    /// A template is read by the URI its parameters fill in (RFC 6570 level 1: `{name}`).
    pub async fn resource_template_proxies(&self) -> Result<Vec<ResourceTemplateProxy>, McpError> {
        let offers = self.offers().await;
        if !offers.resources {
            return Ok(Vec::new());
        }
        let templates = self.list_resource_templates().await?;
        let proxies = templates.into_iter().map(|definition| {
            let written = definition.uri_template.as_str().to_owned();
            let params: Vec<String> = (definition.uri_template.params().into_iter())
                .map(str::to_owned)
                .collect();
            let (client, template) = (self.clone(), written.clone());
            let mut proxy = ResourceTemplateProxy::from_async_fn(definition, move |args| {
                let (client, uri) = (client.clone(), fill(&template, &args));
                async move { client.read_resource(&uri).await }
            });
            if offers.completions {
                for param in params {
                    let reference = CompletionRef::ResourceTemplate(written.clone());
                    proxy = proxy.with_completer(&param, self.completer(reference, &param));
                }
            }
            proxy
        });
        Ok(proxies.collect())
    }

    /// The server's prompts as [`PromptProxy`]s, each got through this client, with the
    /// server's completion of each argument when it offers completions.
    pub async fn prompt_proxies(&self) -> Result<Vec<PromptProxy>, McpError> {
        let offers = self.offers().await;
        if !offers.prompts {
            return Ok(Vec::new());
        }
        let proxies = self.list_prompts().await?.into_iter().map(|definition| {
            let name = definition.name.clone();
            let arguments: Vec<String> = (definition.arguments.iter())
                .map(|argument| argument.name.clone())
                .collect();
            let (client, got) = (self.clone(), name.clone());
            let mut proxy = PromptProxy::from_async_fn(definition, move |args| {
                let (client, name) = (client.clone(), got.clone());
                async move { client.get_prompt(&name, args).await }
            });
            if offers.completions {
                for argument in arguments {
                    let reference = CompletionRef::Prompt(name.clone());
                    proxy = proxy.with_completer(&argument, self.completer(reference, &argument));
                }
            }
            proxy
        });
        Ok(proxies.collect())
    }

    /// A completer asking the server (`completion/complete`); a failed request completes
    /// nothing, as a server without a completion for the argument does.
    fn completer(&self, reference: CompletionRef, argument: &str) -> Completer {
        let (client, argument) = (self.clone(), argument.to_owned());
        Completer::from_async_fn(move |typed: String, args: Map<String, Value>| {
            let (client, reference, argument) =
                (client.clone(), reference.clone(), argument.clone());
            async move {
                match client.complete(reference, &argument, &typed, args).await {
                    Ok(completion) => completion.values,
                    Err(err) => {
                        tracing::debug!(%err, "the remote completion failed");
                        Vec::new()
                    }
                }
            }
        })
    }
}

/// The URI a level-1 template names for `args`: each `{name}` replaced by its value.
fn fill(template: &str, args: &Map<String, Value>) -> String {
    args.iter().fold(template.to_owned(), |uri, (name, value)| {
        let value = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        uri.replace(&format!("{{{name}}}"), &value)
    })
}

impl McpServer {
    /// A server offering all of the server `client` is connected to: its tools, resources,
    /// resource templates and prompts (with their completions), under its name. Each request
    /// goes through `client`; what the server lists is read once, here.
    ///
    /// Every remote tool may run as a task ([`TaskSupport::Optional`]): a call that is quick
    /// upstream answers plainly, and one that takes long there, a remote task's included,
    /// becomes a task of the proxy for its 2026-07-28 clients that declare the Tasks extension
    /// ([`McpServer::with_task_after`]), instead of holding their request open.
    ///
    /// ```no_run
    /// use toolkit::mcp::{McpClient, McpServer, McpTransport};
    ///
    /// # async fn run() -> Result<(), toolkit::mcp::McpError> {
    /// let remote = McpClient::connect(McpTransport::stdio("my-server")).await?;
    /// McpServer::proxy(&remote).await?.serve_stdio().await?;
    /// # Ok(()) }
    /// ```
    pub async fn proxy(client: &McpClient) -> Result<McpServer, McpError> {
        let mut server = McpServer::new(client.tools()).with_tasks(TaskSupport::Optional);
        if let Some(info) = client.server_info().await {
            server = server.with_name(info.name, info.version);
        }
        for resource in client.resource_proxies().await? {
            server = server.with_resource(resource);
        }
        for template in client.resource_template_proxies().await? {
            server = server.with_resource_template(template);
        }
        for prompt in client.prompt_proxies().await? {
            server = server.with_prompt(prompt);
        }
        Ok(server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_template_is_filled_with_its_parameters() {
        let args = json!({"id": "42", "n": 3});
        let Value::Object(args) = args else {
            unreachable!()
        };
        assert_eq!(fill("users://{id}/posts/{n}", &args), "users://42/posts/3");
    }
}
