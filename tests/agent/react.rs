//! Text ReAct: tools rendered into the prompt, DSPy.rb's JSON replies read back, the trajectory
//! kept, and a malformed reply fed back as an observation.

use std::sync::{Arc, Mutex};

use toolkit::agent::{Agent, AgentError};
use toolkit::models::{Message, ModelReply, ScriptedModel};
use toolkit::prelude::*;

#[derive(Default)]
struct Maths;

#[toolset(name = "maths")]
impl Maths {
    /// Multiply two numbers
    #[tool]
    fn multiply(&self, a: i64, b: i64) -> i64 {
        a * b
    }
}

fn agent(replies: &[&str]) -> (Agent, Arc<Mutex<Vec<usize>>>) {
    let replies: Vec<ModelReply> = replies.iter().map(|r| ModelReply::text(*r)).collect();
    let replies = Mutex::new(replies.into_iter());
    let tool_counts = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&tool_counts);
    let model = ScriptedModel::from_fn(move |request| {
        seen.lock().unwrap().push(request.tools.len());
        replies
            .lock()
            .unwrap()
            .next()
            .ok_or(toolkit::models::ModelError::ScriptExhausted { given: 0 })
    });
    let toolbox = Toolbox::builder().toolset::<Maths>().build().unwrap();
    let agent = Agent::builder(model)
        .toolbox(toolbox)
        .max_steps(3)
        .react()
        .build();
    (agent, tool_counts)
}

#[tokio::test]
async fn action_input_calls_the_tool_and_final_answer_ends_the_run() {
    let (agent, tool_counts) = agent(&[
        r#"{"thought": "I should multiply", "action": "maths_multiply", "action_input": {"a": 6, "b": 7}}"#,
        "```json\n{\"thought\": \"I know it\", \"final_answer\": \"42\"}\n```",
    ]);
    let run = agent.run("6 times 7?").await.unwrap();
    assert_eq!(run.answer, "42");
    let Message::System { content } = &run.history[0] else {
        panic!("expected the system prompt first");
    };
    assert!(content.contains(
        "- maths_multiply: Multiply two numbers\n  arguments (JSON Schema): {\"type\":\"object\""
    ));
    assert_eq!(run.history[3], Message::user("Observation: 42"));
    let thoughts: Vec<Option<&str>> = run.steps.iter().map(|s| s.thought.as_deref()).collect();
    assert_eq!(thoughts, [Some("I should multiply"), Some("I know it")]);
    let call = &run.steps[0].calls[0].call;
    assert_eq!(
        (call.name.as_str(), &call.args),
        ("maths_multiply", &json!({"a": 6, "b": 7}))
    );
    // The tools are in the prompt, never sent as native tools.
    assert_eq!(*tool_counts.lock().unwrap(), [0, 0]);
}

#[tokio::test]
async fn tool_input_is_read_as_the_arguments_and_the_finish_action_ends_the_run() {
    let (agent, _) = agent(&[
        r#"{"thought": "multiply", "action": "maths_multiply", "tool_input": {"a": 3, "b": 5}}"#,
        r#"{"thought": "done", "action": "finish", "action_input": "15"}"#,
    ]);
    let run = agent.run("3 times 5?").await.unwrap();
    assert_eq!(run.answer, "15");
    assert_eq!(run.tool_calls().next().unwrap().result.value, json!(15));
}

#[tokio::test]
async fn a_malformed_reply_is_fed_back_as_an_observation_and_counts_as_a_step() {
    let (agent, _) = agent(&[
        "I think the answer is 42",
        r#"{"thought": "no action"}"#,
        r#"{"thought": "try again", "action": "maths_multiply", "action_input": {"a": 1}}"#,
    ]);
    let err = agent.run("6 times 7?").await.unwrap_err();
    let AgentError::MaxSteps { history, .. } = err else {
        panic!("expected the step limit");
    };
    let observations: Vec<&Message> = history
        .iter()
        .filter(|m| matches!(m, Message::User { content } if content.starts_with("Observation")))
        .collect();
    assert_eq!(
        observations,
        [
            &Message::user(
                "Observation: your reply could not be read: it holds no JSON object. Reply with \
                 one JSON object with \"thought\" and either \"action\" and \"action_input\", or \
                 \"final_answer\"."
            ),
            &Message::user(
                "Observation: your reply could not be read: it has neither \"action\" nor \
                 \"final_answer\". Reply with one JSON object with \"thought\" and either \
                 \"action\" and \"action_input\", or \"final_answer\"."
            ),
            &Message::user(
                "Observation: Error: missing required argument \"b\" for maths_multiply"
            ),
        ]
    );
}
