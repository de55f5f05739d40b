//! Typed answers: the answer's JSON Schema, sent as the provider's structured output or as the
//! `final_result` tool, and checked by that tool's own call pipeline (coercion, validation,
//! deserialization), so an answer is held to exactly what a tool's arguments are.

use std::marker::PhantomData;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::react;
use super::step::{Runner, Stop};
use super::{Agent, AgentBuilder, AgentError, AgentRun, Decision, ExitCondition};
use super::{ResumeToken, RunRequest, ToolCallRecord};
use crate::models::{Message, OutputSchema};
use crate::providers::repair_arguments;
use crate::{ToolBuilder, ToolProxy, Toolbox};

/// The name of the tool a model calls with its typed answer (Pydantic AI's name).
pub(super) const FINAL_RESULT: &str = "final_result";

/// The key a non-object answer is wrapped under: providers take only object schemas.
const WRAPPED: &str = "response";

/// How a typed answer is asked for and checked.
pub(super) struct Output {
    /// The answer's schema, as the provider is sent it (an object; see [`WRAPPED`]).
    pub(super) schema: OutputSchema,
    /// The `final_result` tool: its parameters are the schema, its pipeline the check.
    pub(super) tool: ToolProxy,
    /// Whether the model answers in its text under the provider's structured output, rather
    /// than by calling the tool.
    pub(super) native: bool,
    wrapped: bool,
}

impl Output {
    fn of<T: JsonSchema + DeserializeOwned + 'static>() -> Output {
        let schema = crate::schema::type_schema::<T>();
        let wrapped = schema.get("type") != Some(&json!("object"));
        let parameters = match wrapped {
            true => json!({"type": "object", "properties": {WRAPPED: schema},
                "required": [WRAPPED], "additionalProperties": false}),
            false => schema,
        };
        let check = move |args: Map<String, Value>| -> Result<Value, String> {
            let value = match wrapped {
                true => args.get(WRAPPED).cloned().unwrap_or(Value::Null),
                false => Value::Object(args),
            };
            match serde_json::from_value::<T>(value.clone()) {
                Ok(_) => Ok(value),
                Err(e) => Err(format!("the answer does not fit its type: {e}")),
            }
        };
        let builder = ToolBuilder::new(FINAL_RESULT)
            .description("Give the final answer: call this once you have it.");
        // A derived schema always compiles; were one not to, serde still checks every answer.
        let tool = match builder.clone().parameters(parameters.clone()).build(check) {
            Ok(tool) => tool,
            Err(_) => builder
                .parameters(json!({"type": "object"}))
                .build(check)
                .unwrap_or_else(|_| unreachable_tool()),
        };
        Output {
            schema: OutputSchema {
                name: FINAL_RESULT.into(),
                schema: parameters,
                strict: true,
            },
            tool,
            native: false,
            wrapped,
        }
    }

    /// An answer given as text (structured output, or ReAct's `final_answer`) checked as the
    /// tool's arguments would be: the answer as JSON (the answer itself in ReAct, where a
    /// wrapped one is not wrapped by the model), or why it does not fit.
    pub(super) fn check_text(&self, text: &str, react: bool) -> Result<String, String> {
        let value = match (react, self.wrapped) {
            (true, true) => json!({
                WRAPPED: serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.into()))
            }),
            _ => repair_arguments(text),
        };
        match self.tool.call(value) {
            Ok(value) => Ok(value.to_string()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Whether `name` is this answer's own tool, in an agent whose model answers by tool.
    pub(super) fn is_answer_tool(&self, react: bool, name: &str) -> bool {
        !self.native && !react && name == FINAL_RESULT
    }

    /// What the model is told when its answer does not fit.
    pub(super) fn feedback(&self, problem: &str) -> String {
        let schema = serde_json::to_string(&self.schema.schema).unwrap_or_default();
        format!(
            "Your answer could not be read: {problem}. Answer again with JSON matching this \
             schema: {schema}"
        )
    }

    /// What ReAct's prompt adds: the shape `final_answer` takes.
    pub(super) fn react_note(&self) -> String {
        let schema = match self.wrapped {
            true => &self.schema.schema["properties"][WRAPPED],
            false => &self.schema.schema,
        };
        let schema = serde_json::to_string(schema).unwrap_or_default();
        format!("\nThe final_answer is a JSON value matching this schema: {schema}")
    }
}

/// Only reached if a permissive object schema failed to compile, which it cannot.
fn unreachable_tool() -> ToolProxy {
    ToolProxy::from_fn(
        crate::ToolDefinition::new(FINAL_RESULT, "Give the final answer.", json!({})),
        |_| Err::<Value, _>("the answer's schema could not be built"),
    )
}

/// What [`AgentBuilder::build`] can give: sealed, so only [`Agent`] and [`TypedAgent`].
pub trait Built: sealed::Sealed {
    #[doc(hidden)]
    fn from_agent(agent: Agent) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

impl sealed::Sealed for Agent {}

impl Built for Agent {
    fn from_agent(agent: Agent) -> Self {
        agent
    }
}

impl<T> sealed::Sealed for TypedAgent<T> {}

impl<T> Built for TypedAgent<T> {
    fn from_agent(agent: Agent) -> Self {
        TypedAgent {
            agent,
            answer: PhantomData,
        }
    }
}

impl<A: Built> AgentBuilder<A> {
    /// Answers of type `T`: [`build`](Self::build) gives a [`TypedAgent`] whose runs answer a
    /// `T`. A model with structured output ([`ChatModel::native_output`]) is held to `T`'s
    /// schema by the provider; any other is offered a `final_result` tool taking `T` and must
    /// call it to finish; with [`react`](Self::react), `final_answer` is read as `T`. The
    /// answer goes through the same coercion and validation as a tool's arguments; one that
    /// does not fit goes back to the model with the reason, up to
    /// [`max_output_retries`](Self::max_output_retries) times.
    ///
    /// [`ChatModel::native_output`]: crate::models::ChatModel::native_output
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct City {
    ///     name: String,
    ///     population: u64,
    /// }
    ///
    /// // A scripted model has no structured output: it answers through `final_result`.
    /// let model = ScriptedModel::new([ModelReply::calls([ToolCall::new(
    ///     "final_result",
    ///     json!({"name": "Lisbon", "population": "545000"}),
    /// )])]);
    /// let agent = Agent::builder(model).output::<City>().build();
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let run = agent.run("The capital of Portugal?").await.unwrap();
    /// assert_eq!((run.answer.name.as_str(), run.answer.population), ("Lisbon", 545000));
    /// # });
    /// ```
    pub fn output<T: JsonSchema + DeserializeOwned + 'static>(self) -> AgentBuilder<TypedAgent<T>> {
        let mut agent = self.agent;
        agent.output = Some(Arc::new(Output::of::<T>()));
        AgentBuilder {
            agent,
            answer: PhantomData,
        }
    }

    /// How many answers that do not fit the output type the model may give before the run
    /// fails with [`AgentError::Output`] (default [`Agent::DEFAULT_MAX_OUTPUT_RETRIES`]).
    pub fn max_output_retries(mut self, retries: usize) -> Self {
        self.agent.max_output_retries = retries;
        self
    }
}

/// Settles how the typed answer is asked for, once the model and toolbox are known.
pub(super) fn settle(agent: &mut Agent) {
    // Set by `output` on a builder nothing else holds, so not shared yet.
    let Some(output) = agent.output.as_mut().and_then(Arc::get_mut) else {
        return;
    };
    output.native = !agent.react && agent.model.native_output();
    if output.native {
        agent.options.output = Some(output.schema.clone());
        agent.exits = vec![ExitCondition::Text];
    } else if !agent.react {
        // The model's own tool named `final_result`, if any, gives way to the answer's.
        let mut toolbox = std::mem::take(&mut agent.toolbox);
        toolbox.remove(FINAL_RESULT);
        let answer = Toolbox::builder().tool(output.tool.clone()).build();
        agent.toolbox = match answer {
            Ok(answer) => toolbox.clone().merge(answer).unwrap_or(toolbox),
            Err(_) => toolbox,
        };
        agent.exits = vec![ExitCondition::Tool(FINAL_RESULT.into())];
    }
}

/// An agent whose runs answer a `T`: made by [`AgentBuilder::output`]. Its runs are an
/// [`Agent`]'s, with the answer read as a `T`.
pub struct TypedAgent<T> {
    agent: Agent,
    answer: PhantomData<fn() -> T>,
}

impl<T: DeserializeOwned> TypedAgent<T> {
    /// A run of the agent on `input` whose answer is a `T` (see [`Agent::run`] and
    /// [`RunRequest`]): streamed, its last item carries the typed answer too.
    ///
    /// ```
    /// use futures::StreamExt;
    /// use toolkit::agent::{Agent, StreamItem};
    /// use toolkit::models::{ModelReply, ScriptedModel};
    /// use toolkit::prelude::*;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct City {
    ///     name: String,
    /// }
    ///
    /// let model = ScriptedModel::new([ModelReply::calls([ToolCall::new(
    ///     "final_result",
    ///     json!({"name": "Lisbon"}),
    /// )])]);
    /// let agent = Agent::builder(model).output::<City>().build();
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let mut stream = agent.run("The capital of Portugal?").stream();
    /// let mut city = None;
    /// while let Some(item) = stream.next().await {
    ///     if let StreamItem::Done(run) = item.unwrap() {
    ///         city = Some(run.answer.name);
    ///     }
    /// }
    /// assert_eq!(city.as_deref(), Some("Lisbon"));
    /// # });
    /// ```
    pub fn run(&self, input: impl Into<String>) -> RunRequest<'_, T> {
        RunRequest::new(&self.agent, input.into(), typed::<T>)
    }

    /// A resume of a paused run whose answer is a `T` (see [`Agent::resume`]).
    pub fn resume(
        &self,
        token: ResumeToken,
        decisions: impl IntoIterator<Item = Decision>,
    ) -> RunRequest<'_, T> {
        let decisions = decisions.into_iter().collect();
        RunRequest::resuming(&self.agent, token, decisions, typed::<T>)
    }

    /// The agent underneath, whose runs answer the typed answer's JSON as text.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }
}

/// A run's answer read as a `T`. The answer passed `T`'s own deserialization already, so this
/// fails only if `T`'s `Deserialize` reads the same JSON differently twice.
fn typed<T: DeserializeOwned>(run: AgentRun) -> Result<AgentRun<T>, AgentError> {
    match serde_json::from_str::<T>(&run.answer) {
        Ok(answer) => Ok(run.with_answer(answer)),
        Err(e) => Err(AgentError::Output {
            attempts: 1,
            message: e.to_string(),
            history: run.history,
        }),
    }
}

impl Runner<'_> {
    /// The answer among a step's call records (an exit tool's result; the typed answer's JSON),
    /// and why the typed answer's call failed, if it did.
    pub(super) fn answer_of(&self, records: &[ToolCallRecord]) -> (Option<String>, Option<String>) {
        let typed = self.agent.output.is_some();
        let answer = records.iter().find_map(|record| {
            let exits = ExitCondition::Tool(record.call.name.clone());
            let answer = match typed && record.call.name == FINAL_RESULT {
                true => record.result.value.to_string(),
                false => record.result.text(),
            };
            (!record.is_error() && self.agent.exits.contains(&exits)).then_some(answer)
        });
        let failed = records
            .iter()
            .find(|r| typed && r.is_error() && r.call.name == FINAL_RESULT)
            .map(|record| record.result.text());
        (answer, failed)
    }

    /// A typed answer given as text, checked: its JSON, or `None` to go on after telling the
    /// model what does not fit. Untyped, the text is the answer.
    pub(super) fn typed_answer(
        &mut self,
        answer: String,
        react: bool,
    ) -> Result<Option<String>, Stop> {
        let Some(output) = self.agent.output.as_deref() else {
            return Ok(Some(answer));
        };
        match output.check_text(&answer, react) {
            Ok(json) => Ok(Some(json)),
            Err(problem) => {
                let feedback = output.feedback(&problem);
                self.output_failed(problem)?;
                self.history.push(Message::user(match react {
                    true => react::observation(&feedback),
                    false => feedback,
                }));
                Ok(None)
            }
        }
    }

    /// Counts a typed answer that did not fit; past the retries the run stops.
    pub(super) fn output_failed(&mut self, problem: String) -> Result<(), Stop> {
        // A resume token may carry any count.
        self.output_failures = self.output_failures.saturating_add(1);
        match self.output_failures > self.agent.max_output_retries {
            true => Err(Stop::Output(problem)),
            false => Ok(()),
        }
    }
}
