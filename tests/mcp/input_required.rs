//! Tools that ask, statelessly (MCP 2026-07-28, SEP-2322): a served tool's `ctx.elicit` and
//! `ctx.sample` end the call with `input_required` and a sealed `requestState`; the retried
//! call runs the body again with the answers. Spoken by hand over HTTP, as a 2026-07-28 client
//! sends it: no `initialize`, the version and capabilities in each request's `_meta`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolkit::PromptProxy;
use toolkit::context::{Caller, Data, SamplingRequest};
use toolkit::mcp::{HttpOptions, HttpServerHandle, McpServer, RequestStateOptions, StaticTokens};
use toolkit::prelude::*;
use toolkit::prompts::PromptDefinition;
use toolkit::schemars::JsonSchema;

#[derive(serde::Deserialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(serde::Deserialize, JsonSchema)]
struct Confirm {
    send: bool,
}

/// E-mails "sent" before a question, counted.
#[derive(Default)]
struct Outbox(AtomicUsize);

#[derive(Default)]
struct Asking;

#[toolset(name = "ask")]
impl Asking {
    /// Greets the user by name
    #[tool]
    async fn greet(&self, ctx: &ToolContext, greeting: String) -> Result<String, String> {
        match ctx.elicit_keyed::<Name>("name", "Who are you?").await {
            Ok(Elicited::Accepted(Name { name })) => Ok(format!("{greeting}, {name}!")),
            Ok(_) => Ok("no name".to_owned()),
            Err(err) => Err(err.to_string()),
        }
    }

    /// Asks the model
    #[tool]
    async fn capital(&self, ctx: &ToolContext) -> Result<String, String> {
        let question = SamplingRequest::new("Capital of France?").max_tokens(10);
        let reply = ctx.sample(question).await.map_err(|err| err.to_string())?;
        Ok(format!("model: {}", reply.text().unwrap_or("")))
    }

    /// Asks twice, one round each
    #[tool]
    async fn two(&self, ctx: &ToolContext) -> Result<String, String> {
        let first = ctx
            .elicit::<Name>("First?")
            .await
            .map_err(|err| err.to_string())?;
        let second = ctx
            .elicit::<Name>("Second?")
            .await
            .map_err(|err| err.to_string())?;
        match (first, second) {
            (Elicited::Accepted(a), Elicited::Accepted(b)) => {
                Ok(format!("{} then {}", a.name, b.name))
            }
            _ => Ok("declined".to_owned()),
        }
    }

    /// Asks the user and the client's roots together
    #[tool]
    async fn both(&self, ctx: &ToolContext) -> Result<String, String> {
        let (name, roots) = tokio::join!(ctx.elicit::<Name>("Who?"), ctx.roots());
        let (name, roots) = (
            name.map_err(|e| e.to_string())?,
            roots.map_err(|e| e.to_string())?,
        );
        let name = match name {
            Elicited::Accepted(Name { name }) => name,
            _ => "nobody".to_owned(),
        };
        Ok(format!("{name} in {}", roots[0].uri))
    }

    /// Asks the user's name, and does without it
    #[tool]
    async fn maybe(&self, ctx: &ToolContext) -> String {
        match ctx.elicit_keyed::<Name>("name", "Who are you?").await {
            Ok(Elicited::Accepted(Name { name })) => format!("Hello, {name}!"),
            Ok(_) => "Hello, whoever you are!".to_owned(),
            Err(err) => format!("Hello, stranger ({err})"),
        }
    }

    /// Logs at two levels
    #[tool]
    async fn noisy(&self, ctx: &ToolContext) -> String {
        ctx.info("an info line");
        ctx.warning("a warning line");
        "done".to_owned()
    }

    /// Sends an e-mail, then asks whether to send the report
    #[tool]
    async fn mail(&self, ctx: &ToolContext, once: bool) -> Result<String, String> {
        if !once || ctx.round() == 0 {
            ctx.data::<Arc<Outbox>>()
                .ok_or("no outbox")?
                .0
                .fetch_add(1, Ordering::SeqCst);
        }
        let asked = ctx.elicit::<Confirm>("Send the report?").await;
        match asked.map_err(|err| err.to_string())? {
            Elicited::Accepted(Confirm { send }) => {
                Ok(format!("report sent: {send}, round {}", ctx.round()))
            }
            _ => Ok("declined".to_owned()),
        }
    }
}

/// A prompt that asks the user its topic first.
fn brief() -> PromptProxy {
    PromptProxy::from_context_fn(PromptDefinition::new("brief"), |_args, ctx| async move {
        match ctx.elicit_keyed::<Topic>("topic", "About what?").await {
            Ok(Elicited::Accepted(Topic { topic })) => Ok(format!("A brief about {topic}")),
            Ok(_) => Ok("A brief about nothing".to_owned()),
            Err(err) => Err(err.to_string()),
        }
    })
}

#[derive(serde::Deserialize, JsonSchema)]
struct Topic {
    topic: String,
}

const KEY: &[u8] = b"a key the whole fleet shares, 32+";

/// A stateless server of the `ask` tools, its states sealed as `options` say.
async fn serve(
    options: RequestStateOptions,
    http: HttpOptions,
    outbox: Arc<Outbox>,
) -> HttpServerHandle {
    let data = Data::new().with(outbox);
    McpServer::new(Asking::to_tools())
        .with_prompt(brief())
        .with_data(data)
        .with_request_state(options)
        .spawn_http("127.0.0.1:0", http.stateless(true))
        .await
        .unwrap()
}

async fn serve_with(options: RequestStateOptions) -> HttpServerHandle {
    serve(options, HttpOptions::default(), Arc::default()).await
}

fn keyed() -> RequestStateOptions {
    RequestStateOptions::new().key(KEY).unwrap()
}

async fn server() -> HttpServerHandle {
    serve_with(keyed()).await
}

/// A `tools/call` as a 2026-07-28 client sends it, `client` its name; `extra` goes into params
/// (`inputResponses`, `requestState`). The JSON-RPC answer.
async fn call(url: &str, client: &str, tool: &str, arguments: Value, extra: Value) -> Value {
    call_with(url, None, client, tool, arguments, extra).await
}

async fn call_with(
    url: &str,
    token: Option<&str>,
    client: &str,
    tool: &str,
    arguments: Value,
    extra: Value,
) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
            "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"},
        },
    });
    for (key, value) in extra.as_object().into_iter().flatten() {
        params[key] = value.clone();
    }
    send(url, token, "tools/call", tool, params).await.1
}

/// A `method` request of `name` (a tool, a prompt) with `params` as a 2026-07-28 client sends
/// it: the HTTP status and the JSON-RPC answer.
async fn send(
    url: &str,
    token: Option<&str>,
    method: &str,
    name: &str,
    params: Value,
) -> (reqwest::StatusCode, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    // The answer: the body, or the last message of the event stream (its result).
    let messages = messages_of(&text);
    let answer = (messages.last().cloned()).unwrap_or_else(|| panic!("no message: {text}"));
    (status, answer)
}

/// The JSON-RPC messages of a response: its JSON body, or its event stream's `data:` lines.
fn messages_of(text: &str) -> Vec<Value> {
    if let Ok(one) = serde_json::from_str::<Value>(text) {
        return vec![one];
    }
    (text.lines())
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
}

fn state(answer: &Value) -> String {
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    answer["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The retry of an `input_required` answer: `key` answered with `content`, the state echoed.
fn answering(asked: &Value, key: &str, content: Value) -> Value {
    json!({"inputResponses": {key: accept(content)}, "requestState": state(asked)})
}

/// Asserts that `answer` is the refusal (`-32602`) with `message`.
fn assert_refused(answer: &Value, message: &str) {
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    assert_eq!(answer["error"]["message"], message, "{answer}");
}

/// `ask_two`'s first round on `url` for `client`, and its retry answering `Ada`.
async fn first_round(url: &str, client: &str) -> Value {
    let asked = call(url, client, "ask_two", json!({}), json!({})).await;
    answering(&asked, "ask-0", json!({"name": "Ada"}))
}

#[tokio::test]
async fn an_elicitation_ends_the_call_with_input_required_and_the_retried_call_completes() {
    let handle = server().await;
    let url = handle.url();
    let args = json!({"greeting": "Hello"});
    let asked = call(&url, "c", "ask_greet", args.clone(), json!({})).await;
    let question = &asked["result"]["inputRequests"]["name"];
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Who are you?");
    assert_eq!(
        question["params"]["requestedSchema"]["required"],
        json!(["name"])
    );
    let retry = answering(&asked, "name", json!({"name": "Ada"}));
    let answered = call(&url, "c", "ask_greet", args, retry).await;
    assert_eq!(answered["result"]["resultType"], "complete");
    assert_eq!(text(&answered), "Hello, Ada!");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_sampling_question_is_answered_by_the_retried_call() {
    let handle = server().await;
    let url = handle.url();
    let asked = call(&url, "c", "ask_capital", json!({}), json!({})).await;
    let question = &asked["result"]["inputRequests"]["ask-0"];
    assert_eq!(question["method"], "sampling/createMessage");
    assert_eq!(question["params"]["maxTokens"], 10);
    let reply =
        json!({"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"});
    let retry = json!({"inputResponses": {"ask-0": reply}, "requestState": state(&asked)});
    let answered = call(&url, "c", "ask_capital", json!({}), retry).await;
    assert_eq!(text(&answered), "model: Paris");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn two_questions_take_two_rounds_and_the_first_answer_rides_in_the_state() {
    let handle = server().await;
    let url = handle.url();
    let retry = first_round(&url, "c").await;
    let second = call(&url, "c", "ask_two", json!({}), retry).await;
    let asked: Vec<&String> = second["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(asked, ["ask-1"]);
    let retry = answering(&second, "ask-1", json!({"name": "Grace"}));
    let done = call(&url, "c", "ask_two", json!({}), retry).await;
    assert_eq!(text(&done), "Ada then Grace");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn questions_awaited_together_go_to_the_client_in_one_round_roots_among_them() {
    let handle = server().await;
    let url = handle.url();
    let asked = call(&url, "c", "ask_both", json!({}), json!({})).await;
    let questions = &asked["result"]["inputRequests"];
    assert_eq!(
        questions["ask-0"]["method"], "elicitation/create",
        "{asked}"
    );
    assert_eq!(questions["ask-1"]["method"], "roots/list", "{asked}");
    let roots = json!({"roots": [{"uri": "file:///work", "name": "work"}]});
    let answers = json!({"ask-0": accept(json!({"name": "Ada"})), "ask-1": roots});
    let retry = json!({"inputResponses": answers, "requestState": state(&asked)});
    let answered = call(&url, "c", "ask_both", json!({}), retry).await;
    assert_eq!(text(&answered), "Ada in file:///work");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_forged_request_state_is_refused() {
    let handle = server().await;
    let url = handle.url();
    let mut retry = first_round(&url, "c").await;
    let mut forged = retry["requestState"].as_str().unwrap().to_owned();
    // One character of the signed body changed.
    let at = forged.len() / 2;
    let swapped = if &forged[at..=at] == "A" { "B" } else { "A" };
    forged.replace_range(at..=at, swapped);
    retry["requestState"] = json!(forged);
    let refused = call(&url, "c", "ask_two", json!({}), retry).await;
    assert_refused(
        &refused,
        "requestState was not sealed by this server or was changed (replicas of one fleet must share one key: RequestStateOptions::key)",
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_replayed_request_state_is_refused() {
    let handle = server().await;
    let url = handle.url();
    let retry = first_round(&url, "c").await;
    let second = call(&url, "c", "ask_two", json!({}), retry.clone()).await;
    assert_eq!(second["result"]["resultType"], "input_required");
    let replayed = call(&url, "c", "ask_two", json!({}), retry).await;
    assert_refused(
        &replayed,
        "requestState has been used already: each state answers one round once",
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_expired_request_state_is_refused() {
    let handle = serve_with(keyed().ttl(Duration::from_millis(1))).await;
    let url = handle.url();
    let retry = first_round(&url, "c").await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let refused = call(&url, "c", "ask_two", json!({}), retry).await;
    assert_refused(
        &refused,
        "requestState has expired (a state lives 0 s): call the tool again",
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn another_callers_request_state_is_refused() {
    let tokens = StaticTokens::new()
        .token("alice-token", Caller::new("alice"))
        .token("bob-token", Caller::new("bob"));
    let handle = serve(
        keyed(),
        HttpOptions::default().token_verifier(tokens),
        Arc::default(),
    )
    .await;
    let url = handle.url();
    let asked = call_with(
        &url,
        Some("alice-token"),
        "c",
        "ask_two",
        json!({}),
        json!({}),
    )
    .await;
    let retry = answering(&asked, "ask-0", json!({"name": "Ada"}));
    let refused = call_with(
        &url,
        Some("bob-token"),
        "c",
        "ask_two",
        json!({}),
        retry.clone(),
    )
    .await;
    assert_refused(&refused, "requestState was issued to another caller");
    // Refused before it was taken: its own caller still answers with it.
    let answered = call_with(&url, Some("alice-token"), "c", "ask_two", json!({}), retry).await;
    assert_eq!(answered["result"]["resultType"], "input_required");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_authentication_the_state_is_bound_to_the_client_it_names() {
    let handle = server().await;
    let url = handle.url();
    let retry = first_round(&url, "claude").await;
    let refused = call(&url, "other", "ask_two", json!({}), retry).await;
    assert_refused(&refused, "requestState was issued to another caller");
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_state_sent_with_other_arguments_is_refused() {
    let handle = server().await;
    let url = handle.url();
    let asked = call(
        &url,
        "c",
        "ask_greet",
        json!({"greeting": "Hello"}),
        json!({}),
    )
    .await;
    let retry = answering(&asked, "name", json!({"name": "Ada"}));
    let refused = call(&url, "c", "ask_greet", json!({"greeting": "Bye"}), retry).await;
    assert_refused(
        &refused,
        "requestState was issued for another call: the tool or its arguments differ",
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_oversize_request_state_is_refused_unopened() {
    let handle = serve_with(keyed().max_bytes(1024)).await;
    let retry = json!({"inputResponses": {}, "requestState": "x".repeat(1025)});
    let refused = call(&handle.url(), "c", "ask_two", json!({}), retry).await;
    assert_refused(
        &refused,
        "requestState is 1025 bytes, over the 1024 this server accepts",
    );
    handle.shutdown().await.unwrap();
}

/// As documented on `ToolContext::elicit`: the body runs again from the top, so work before a
/// question runs once per round, unless the tool checks `ctx.round()`.
#[tokio::test]
async fn an_email_sent_before_a_question_is_sent_again_on_the_retry_unless_the_tool_checks_its_round()
 {
    for (once, sent) in [(false, 2), (true, 1)] {
        let outbox = Arc::new(Outbox::default());
        let handle = serve(keyed(), HttpOptions::default(), Arc::clone(&outbox)).await;
        let url = handle.url();
        let args = json!({"once": once});
        let asked = call(&url, "c", "ask_mail", args.clone(), json!({})).await;
        let retry = answering(&asked, "ask-0", json!({"send": true}));
        let answered = call(&url, "c", "ask_mail", args, retry).await;
        assert_eq!(text(&answered), "report sent: true, round 1");
        assert_eq!(outbox.0.load(Ordering::SeqCst), sent, "once: {once}");
        handle.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn an_answer_reaching_another_replica_with_the_same_key_completes_the_call() {
    let asking = server().await;
    let other = server().await;
    let stranger = serve_with(RequestStateOptions::new()).await;
    let args = json!({"greeting": "Hi"});
    let asked = call(&asking.url(), "c", "ask_greet", args.clone(), json!({})).await;
    let retry = answering(&asked, "name", json!({"name": "Ada"}));
    let refused = call(
        &stranger.url(),
        "c",
        "ask_greet",
        args.clone(),
        retry.clone(),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let answered = call(&other.url(), "c", "ask_greet", args, retry).await;
    assert_eq!(text(&answered), "Hi, Ada!");
    for handle in [asking, other, stranger] {
        handle.shutdown().await.unwrap();
    }
}

#[tokio::test]
async fn an_answer_that_is_not_an_elicitation_result_is_refused() {
    let handle = server().await;
    let retry = json!({"inputResponses": {"name": 12345}});
    let refused = call(
        &handle.url(),
        "c",
        "ask_greet",
        json!({"greeting": "Hello"}),
        retry,
    )
    .await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("inputResponses.name does not answer its request: "),
        "{message}"
    );
    handle.shutdown().await.unwrap();
}

/// The log lines a 2026-07-28 call of `ask_noisy` gets on its own response, the request's
/// `_meta` given `log_level`.
async fn logs_on_the_response(url: &str, log_level: Option<&str>) -> Vec<String> {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let Some(level) = log_level {
        meta["io.modelcontextprotocol/logLevel"] = json!(level);
    }
    let params = json!({"name": "ask_noisy", "arguments": {}, "_meta": meta});
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let text = (reqwest::Client::new().post(url))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "ask_noisy")
        .json(&body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let messages = messages_of(&text);
    assert_eq!(
        messages.last().unwrap()["result"]["content"][0]["text"],
        "done",
        "{text}"
    );
    (messages.iter())
        .filter(|message| message["method"] == "notifications/message")
        .map(|message| {
            format!(
                "{}: {}",
                message["params"]["level"], message["params"]["data"]
            )
        })
        .collect()
}

#[tokio::test]
async fn a_2026_call_gets_logs_on_its_own_response_only_at_the_level_its_meta_asks() {
    let handle = server().await;
    let url = handle.url();
    assert_eq!(logs_on_the_response(&url, None).await, Vec::<String>::new());
    assert_eq!(
        logs_on_the_response(&url, Some("warning")).await,
        [r#""warning": "a warning line""#]
    );
    assert_eq!(
        logs_on_the_response(&url, Some("debug")).await,
        [
            r#""info": "an info line""#,
            r#""warning": "a warning line""#
        ]
    );
    handle.shutdown().await.unwrap();
}

/// A `tools/call` of `tool` from a 2026-07-28 client that declares `capabilities`.
async fn call_declaring(
    url: &str,
    tool: &str,
    capabilities: Value,
) -> (reqwest::StatusCode, Value) {
    let params = json!({
        "name": tool,
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
    });
    send(url, None, "tools/call", tool, params).await
}

#[tokio::test]
async fn a_2026_tool_that_fails_without_a_capability_the_request_did_not_declare_is_answered_32021_naming_it()
 {
    let handle = server().await;
    let (status, answer) =
        call_declaring(&handle.url(), "ask_capital", json!({"elicitation": {}})).await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "`ask_capital` needs a capability this request's `_meta` did not declare: Missing \
         required client capability"
    );
    assert_eq!(
        answer["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_2026_tool_that_does_without_a_capability_the_request_did_not_declare_answers_as_it_returned()
 {
    let handle = server().await;
    let (status, answer) =
        call_declaring(&handle.url(), "ask_maybe", json!({"sampling": {}})).await;
    assert_eq!(status, reqwest::StatusCode::OK, "{answer}");
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(
        text(&answer),
        "Hello, stranger (elicitation is not available to tool `ask_maybe`: the MCP client did \
         not declare the `elicitation` capability in this request's `_meta`)"
    );
    handle.shutdown().await.unwrap();
}

/// `prompts/get` of `brief` as a 2026-07-28 client that answers elicitation sends it.
async fn get_brief(url: &str, extra: Value) -> Value {
    get_brief_declaring(url, json!({"elicitation": {}}), extra)
        .await
        .1
}

async fn get_brief_declaring(
    url: &str,
    capabilities: Value,
    extra: Value,
) -> (reqwest::StatusCode, Value) {
    let mut params = json!({
        "name": "brief",
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
    });
    for (key, value) in extra.as_object().into_iter().flatten() {
        params[key] = value.clone();
    }
    send(url, None, "prompts/get", "brief", params).await
}

#[tokio::test]
async fn a_prompt_that_asks_ends_its_prompts_get_with_input_required_and_the_retry_fills_it() {
    let handle = server().await;
    let url = handle.url();
    let asked = get_brief(&url, json!({})).await;
    let question = &asked["result"]["inputRequests"]["topic"];
    assert_eq!(question["method"], "elicitation/create", "{asked}");
    assert_eq!(question["params"]["message"], "About what?");
    let retry = answering(&asked, "topic", json!({"topic": "tea"}));
    let filled = get_brief(&url, retry).await;
    assert_eq!(filled["result"]["resultType"], "complete", "{filled}");
    assert_eq!(
        filled["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "A brief about tea"}}])
    );
    handle.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_prompt_that_fails_without_a_capability_the_request_did_not_declare_is_answered_32021() {
    let handle = server().await;
    let (status, answer) = get_brief_declaring(&handle.url(), json!({}), json!({})).await;
    assert_eq!(status, reqwest::StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
    assert_eq!(
        answer["error"]["message"],
        "`brief` needs a capability this request's `_meta` did not declare: Missing required \
         client capability"
    );
    assert_eq!(
        answer["error"]["data"],
        json!({"requiredCapabilities": {"elicitation": {}}})
    );
    handle.shutdown().await.unwrap();
}
