//! The remote server of `tests/mcp/client_era.rs`: rmcp alone, speaking MCP 2026-07-28, so
//! what the client is tested against is the protocol. Its one tool asks the client's user
//! through `input_required` (SEP-2322) and takes a header parameter (`x-mcp-header`).

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, DiscoverResult, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest, InputRequests,
    InputRequiredResult, ListPromptsResult, ListToolsResult, PaginatedRequestParams, Prompt,
    PromptMessage, ProtocolVersion, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use crate::client_context::remote::serve_on_loopback;

/// One `tools/call` as the server saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub protocol_version: Option<String>,
    pub request_state: Option<String>,
    pub region_header: Option<String>,
}

/// A running server, stopped when dropped.
pub struct Remote {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    lists: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Remote {
    /// A server whose tool asks once (`rounds` = 1), or keeps asking forever (`None`).
    pub async fn start(rounds: Option<usize>) -> Remote {
        Remote::serve(rounds, false).await
    }

    /// A server of 2025-11-25 and before: it refuses a 2026-07-28 request, naming them.
    pub async fn start_legacy() -> Remote {
        Remote::serve(Some(0), true).await
    }

    async fn serve(rounds: Option<usize>, legacy: bool) -> Remote {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let lists = Arc::new(AtomicUsize::new(0));
        let handler = Handler {
            seen: Arc::clone(&seen),
            lists: Arc::clone(&lists),
            rounds,
            legacy,
        };
        let (url, task) = serve_on_loopback(handler).await;
        Remote {
            url,
            seen,
            lists,
            task,
        }
    }

    /// How many `tools/list` requests it answered.
    pub fn lists(&self) -> usize {
        self.lists.load(Ordering::SeqCst)
    }

    /// Every `tools/call` so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

#[derive(Clone)]
struct Handler {
    seen: Arc<Mutex<Vec<Seen>>>,
    lists: Arc<AtomicUsize>,
    rounds: Option<usize>,
    legacy: bool,
}

fn asking(state: String) -> InputRequiredResult {
    let request: InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
        }
    }))
    .expect("an elicitation request");
    let mut requests = InputRequests::new();
    requests.insert("name".to_owned(), request);
    InputRequiredResult::new(Some(requests), Some(state))
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        let newest = match self.legacy {
            true => ProtocolVersion::V_2025_11_25,
            false => ProtocolVersion::LATEST,
        };
        Cow::Borrowed(ProtocolVersion::known_up_to(&newest))
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        if self.legacy {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "server/discover",
                None,
            ));
        }
        let _ = context;
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
        });
        let Value::Object(schema) = schema else {
            unreachable!()
        };
        let tool = Tool::new("greet", "Greets the user by name", Arc::new(schema));
        self.lists.fetch_add(1, Ordering::SeqCst);
        // Good for a minute (SEP-2549): the client need not ask again meanwhile.
        let mut listed = ListToolsResult::with_all_items(vec![tool]);
        listed.ttl_ms = Some(60_000);
        Ok(listed)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompt = Prompt::new("whoami", Some("Says who the user is"), None);
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    /// Asks the user's name first, as the tool does.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.request_state.as_deref() != Some("prompt-state") {
            return Ok(GetPromptResponse::InputRequired(asking(
                "prompt-state".into(),
            )));
        }
        let name = (request.input_responses.as_ref())
            .and_then(|responses| responses.get("name"))
            .and_then(|answer| answer["content"]["name"].as_str())
            .unwrap_or("nobody");
        let message = PromptMessage::new_text(Role::User, format!("I am {name}"));
        Ok(GetPromptResponse::Complete(GetPromptResult::new(vec![
            message,
        ])))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let region_header = parts
            .and_then(|parts| parts.headers.get("mcp-param-region"))
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let round = {
            let mut seen = self.seen.lock().unwrap();
            seen.push(Seen {
                protocol_version: context.meta.protocol_version().map(|v| v.to_string()),
                request_state: request.request_state.clone(),
                region_header,
            });
            seen.len()
        };
        if self.rounds.is_none_or(|rounds| round <= rounds) {
            return Ok(asking(format!("state-{round}")).into());
        }
        let name = request
            .input_responses
            .as_ref()
            .and_then(|responses| responses.get("name"))
            .and_then(|answer| answer["content"]["name"].as_str())
            .unwrap_or("nobody");
        Ok(
            CallToolResult::success(vec![rmcp::model::ContentBlock::text(format!(
                "hello {name}"
            ))])
            .into(),
        )
    }
}
