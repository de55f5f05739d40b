//! An agent plans a trip: it asks for the weather and an exchange rate in one step (two tool
//! calls, run concurrently), converts money with the rate kept in agent state, checks a packing
//! list with a slow tool that reports its progress as it goes, then answers. A second agent then
//! reads the answer back as a typed value (`output::<Essentials>()`): OpenAI is held to its
//! JSON Schema by `response_format`. Last, a third question is streamed
//! (`agent.run(..).stream()`): the answer's text is printed as it arrives.
//!
//! `cargo run --example agent` runs offline: it starts a small scripted OpenAI-compatible server
//! on 127.0.0.1 and talks to it over real HTTP. With `OPENAI_BASE_URL` set (and
//! `OPENAI_API_KEY`, `TOOLKIT_MODEL`) it asks that endpoint instead: OpenAI, vLLM, Ollama,
//! llama.cpp's server or LM Studio.

#[path = "../tests/common/model_server.rs"]
mod model_server;

use std::time::Duration;

use futures::StreamExt;
use model_server::{ModelServer, Reply};
use toolkit::agent::{Agent, AgentEvent, StreamItem};
use toolkit::models::OpenAiClient;
use toolkit::prelude::*;
use toolkit::state::{DynamicState, StateSchema, StateWiring};

#[derive(Default)]
struct TripToolset;

#[toolset(name = "trip")]
impl TripToolset {
    /// Tomorrow's weather forecast for a city
    #[tool]
    fn weather(&self, city: String) -> String {
        match city.to_lowercase().as_str() {
            "lisbon" => "19 °C, light rain in the afternoon".into(),
            "oslo" => "-3 °C, clear".into(),
            _ => format!("no forecast for {city}"),
        }
    }

    /// How many units of `to` one unit of `from` buys (ISO currency codes)
    #[tool]
    fn exchange_rate(&self, from: String, to: String) -> Result<f64, String> {
        match (from.as_str(), to.as_str()) {
            ("USD", "EUR") => Ok(0.92),
            ("EUR", "USD") => Ok(1.09),
            _ => Err(format!("no rate for {from} to {to}")),
        }
    }

    /// Convert an amount with the exchange rate looked up last
    #[tool]
    fn convert(&self, amount: f64, rate: f64) -> String {
        format!("{:.2}", amount * rate)
    }

    /// What to pack for a forecast, checked item by item (slow)
    #[tool]
    async fn packing_list(&self, ctx: &ToolContext, forecast: String) -> Vec<String> {
        pack(ctx, &forecast).await
    }
}

/// What to pack for a forecast, checked item by item: slow, so it reports its progress, which
/// the agent turns into `AgentEvent::ToolProgress` events.
async fn pack(ctx: &ToolContext, forecast: &str) -> Vec<String> {
    let mut items = vec!["passport", "charger"];
    if forecast.contains("rain") {
        items.push("umbrella");
    }
    items.push(if forecast.starts_with('-') {
        "coat"
    } else {
        "light jacket"
    });
    let total = items.len() as f64;
    let mut packed = Vec::new();
    for (done, item) in items.into_iter().enumerate() {
        if ctx.is_cancelled() {
            break;
        }
        // Stands for a slow lookup: a stock check, a store, a model call.
        tokio::time::sleep(Duration::from_millis(100)).await;
        packed.push(item.to_owned());
        ctx.progress(done as f64 + 1.0, Some(total), format!("checked {item}"));
    }
    packed
}

/// The trip tools; the rate goes from `exchange_rate` to `convert` through state.
fn toolbox() -> Toolbox {
    let mut builder = Toolbox::builder();
    for tool in TripToolset::to_tools() {
        let tool = match tool.name() {
            "trip_exchange_rate" => tool.with_state(StateWiring::new().output("rate")),
            "trip_convert" => tool.with_state(StateWiring::new().input("rate")),
            _ => Ok(tool),
        };
        builder = builder.tool(tool.expect("the wiring matches the tool"));
    }
    builder.build().expect("tool names are unique")
}

const QUESTION: &str = "I fly to Lisbon tomorrow with 200 USD. What should I pack, and how \
                        many euros is that?";

/// A Chat Completions response, as OpenAI documents it.
fn completion(message: Value, finish: &str, tokens: (u32, u32)) -> Reply {
    let body = json!({
        "id": "chatcmpl-example", "object": "chat.completion", "created": 1741570283,
        "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": tokens.0, "completion_tokens": tokens.1,
            "total_tokens": tokens.0 + tokens.1},
    });
    Reply::json(200, &body.to_string())
}

fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()}})
}

/// What a capable model replies to the question, step by step.
fn script() -> Vec<Reply> {
    vec![
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                call("call_1", "trip_weather", json!({"city": "Lisbon"})),
                call("call_2", "trip_exchange_rate", json!({"from": "USD", "to": "EUR"})),
            ]}),
            "tool_calls",
            (212, 48),
        ),
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                call("call_3", "trip_convert", json!({"amount": 200})),
            ]}),
            "tool_calls",
            (301, 17),
        ),
        completion(
            json!({"role": "assistant", "content": null, "tool_calls": [
                call("call_4", "trip_packing_list",
                    json!({"forecast": "19 °C, light rain in the afternoon"})),
            ]}),
            "tool_calls",
            (330, 22),
        ),
        completion(
            json!({"role": "assistant", "content": "Lisbon tomorrow: 19 °C with light rain in \
                the afternoon, so pack a light jacket and an umbrella. 200 USD is about 184.00 EUR \
                at today's rate of 0.92."}),
            "stop",
            (378, 41),
        ),
        // The typed answer, under a strict `json_schema` response format.
        completion(
            json!({"role": "assistant", "content": "{\"city\":\"Lisbon\",\"pack\":[\"light \
                jacket\",\"umbrella\"],\"euros\":184.0}"}),
            "stop",
            (120, 24),
        ),
        // The streamed question: a call, then the answer in pieces, as Chat Completions
        // streams them.
        chunks(&[
            json!({"tool_calls": [{"index": 0, "id": "call_5", "type": "function",
                "function": {"name": "trip_weather", "arguments": ""}}]}),
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":"}}]}),
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"Oslo\"}"}}]}),
        ]),
        chunks(&[
            json!({"content": "Oslo tomorrow: "}),
            json!({"content": "-3 °C and clear, "}),
            json!({"content": "so pack a coat."}),
        ]),
    ]
}

/// A streamed Chat Completion: one chunk per delta, then `[DONE]`, each sent on its own.
fn chunks(deltas: &[Value]) -> Reply {
    let mut events: Vec<Vec<u8>> = deltas
        .iter()
        .map(|delta| {
            let chunk = json!({"id": "chatcmpl-example", "object": "chat.completion.chunk",
                "created": 1741570283,
                "model": "scripted", "choices": [{"index": 0, "delta": delta}]});
            format!("data: {chunk}\n\n").into_bytes()
        })
        .collect();
    events.push(b"data: [DONE]\n\n".to_vec());
    Reply::event_stream(events)
}

/// Asks `question` as a stream, printing the answer's text as it arrives.
async fn stream(agent: &Agent, question: &str) -> Result<(), Box<dyn std::error::Error>> {
    use std::io::Write;
    println!("streamed question: {question}");
    let mut items = agent.run(question).stream();
    while let Some(item) = items.next().await {
        match item? {
            StreamItem::Event(AgentEvent::ToolCalled { call, .. }) => {
                println!("  calls  {}", call.name)
            }
            StreamItem::Event(AgentEvent::ToolFinished { record, .. }) => {
                println!("  -> {} = {}", record.call.name, record.result.value)
            }
            StreamItem::Event(AgentEvent::TextDelta { text, .. }) => {
                print!("{text}");
                std::io::stdout().flush()?;
            }
            StreamItem::Done(run) => println!("\n({} steps)", run.steps.len()),
            _ => {}
        }
    }
    Ok(())
}

/// The trip's essentials, as the typed agent answers them.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // Read through `Debug`.
struct Essentials {
    /// Where to.
    city: String,
    /// What to pack.
    pack: Vec<String>,
    /// How many euros the money buys.
    euros: f64,
}

fn print_event(event: &AgentEvent) {
    match event {
        AgentEvent::StepStarted { step } => println!("step {step}"),
        AgentEvent::ModelReplied { reply, .. } => {
            if let Some(text) = reply
                .text
                .as_deref()
                .filter(|_| !reply.tool_calls.is_empty())
            {
                println!("  model thinks: {text}");
            }
        }
        AgentEvent::ToolCalled { call, .. } => match &call.args {
            // A model's arguments arrive as its JSON text.
            Value::String(text) => println!("  calls  {} {text}", call.name),
            args => println!("  calls  {} {args}", call.name),
        },
        AgentEvent::ToolProgress { tool, progress, .. } => {
            let total = progress.total.unwrap_or_default();
            let message = progress.message.as_deref().unwrap_or_default();
            println!("  .. {tool} {}/{total} {message}", progress.done);
        }
        AgentEvent::ToolLog {
            tool,
            level,
            message,
            ..
        } => println!("  [{}] {tool}: {message}", level.as_str()),
        AgentEvent::ToolFinished { record, .. } => {
            let marker = if record.is_error() { "failed" } else { "->" };
            let micros = record.duration.as_micros();
            println!(
                "  {marker} {} = {} ({micros} µs)",
                record.call.name, record.result.value
            );
        }
        AgentEvent::Answer { answer } => println!("answer: {answer}"),
        _ => {}
    }
}

fn client(base_url: &str) -> Result<OpenAiClient, toolkit::models::ModelError> {
    let mut client = OpenAiClient::builder(
        std::env::var("TOOLKIT_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into()),
    )
    .base_url(base_url)
    .timeout(Duration::from_secs(60));
    if let Ok(key) = std::env::var("OPENAI_API_KEY") {
        client = client.api_key(key);
    }
    client.build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (server, base_url) = match std::env::var("OPENAI_BASE_URL") {
        Ok(url) => (None, url),
        Err(_) => {
            let server = ModelServer::start(script()).await;
            let url = server.base_url();
            println!("(offline: a scripted OpenAI-compatible server at {url})");
            (Some(server), url)
        }
    };
    let agent = Agent::builder(client(&base_url)?)
        .toolbox(toolbox())
        .system_prompt("You help travellers. Use the tools; answer in two sentences.")
        .max_steps(8)
        .on_event(print_event)
        .build();
    let state = DynamicState::new(StateSchema::new().key("rate", json!({"type": "number"})));
    println!("question: {QUESTION}");
    let run = agent.run(QUESTION).state(Box::new(state)).await?;
    if let Some(state) = &run.state {
        println!("state: {}", state.to_json());
    }
    if let Some(usage) = run.usage {
        let (input, output) = (usage.input_tokens, usage.output_tokens);
        println!(
            "tokens: {input} in, {output} out over {} steps",
            run.steps.len()
        );
    }
    let typed = Agent::builder(client(&base_url)?)
        .output::<Essentials>()
        .build();
    let essentials = typed
        .run(format!("The essentials of: {}", run.answer))
        .await?;
    println!("typed: {:?}", essentials.answer);
    let streamed = Agent::builder(client(&base_url)?)
        .toolbox(toolbox())
        .max_steps(4)
        .build();
    stream(&streamed, "And for Oslo, in one sentence?").await?;
    drop(server);
    Ok(())
}
