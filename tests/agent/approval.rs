//! Human approval over the OpenAI wire format: `#[tool(needs_approval)]` and the agent's
//! policy; an approval handler; a paused run resumed from its serialized token. No call that
//! needs approval runs without it, on any path: parallel calls, one by one, ReAct, a resume with
//! a decision missing, and a forged token.

use crate::common;

use std::sync::{Arc, Mutex};

use common::model_server::ModelServer;
use common::wire::{openai_calls, openai_client, openai_text};
use toolkit::agent::{Agent, AgentError, ApprovalPolicy, Decision, ResumeToken, Verdict};
use toolkit::models::Message;
use toolkit::prelude::*;

/// What the tools did, in order.
#[derive(Default, Clone)]
struct Files {
    done: Arc<Mutex<Vec<String>>>,
}

#[toolset(name = "files")]
impl Files {
    /// Delete a file
    #[tool(needs_approval)]
    fn delete(&self, path: String) -> String {
        self.done.lock().unwrap().push(format!("delete {path}"));
        format!("deleted {path}")
    }

    /// Empty the trash
    #[tool(destructive)]
    fn empty_trash(&self) -> String {
        self.done.lock().unwrap().push("empty_trash".into());
        "emptied".into()
    }

    /// Read a file
    #[tool]
    fn read(&self, path: String) -> String {
        self.done.lock().unwrap().push(format!("read {path}"));
        format!("contents of {path}")
    }
}

impl Files {
    fn done(&self) -> Vec<String> {
        self.done.lock().unwrap().clone()
    }

    fn toolbox(&self) -> Toolbox {
        Toolbox::builder()
            .toolset_instance(Arc::new(self.clone()))
            .build()
            .unwrap()
    }
}

/// The `path` argument of a call; OpenAI sends arguments as a JSON string.
fn path(call: &ToolCall) -> String {
    let args: Value = match &call.args {
        Value::String(text) => serde_json::from_str(text).unwrap(),
        other => other.clone(),
    };
    args["path"].as_str().unwrap_or_default().to_owned()
}

/// A reply deleting `a.txt` and `b.txt` and reading `c.txt`, then a text answer.
async fn three_calls() -> ModelServer {
    ModelServer::start(vec![
        openai_calls(&[
            ("c1", "files_delete", json!({"path": "a.txt"})),
            ("c2", "files_delete", json!({"path": "b.txt"})),
            ("c3", "files_read", json!({"path": "c.txt"})),
        ]),
        openai_text("done"),
    ])
    .await
}

/// `a.txt` deleted and `c.txt` read, `b.txt` denied, and the model told so.
fn a_deleted_and_b_kept(server: &ModelServer, files: &Files) {
    let mut done = files.done();
    done.sort();
    assert_eq!(done, ["delete a.txt", "read c.txt"]);
    assert_eq!(
        results_sent(server),
        [
            "c1: deleted a.txt",
            "c2: Error: the call to files_delete was refused: a person denied it: keep b",
            "c3: contents of c.txt",
        ]
    );
}

/// The tool results the model was sent in its second request.
fn results_sent(server: &ModelServer) -> Vec<String> {
    let messages = server.received()[1].body["messages"].clone();
    let messages = messages.as_array().unwrap().clone();
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            format!(
                "{}: {}",
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn the_handler_decides_each_marked_call_of_a_parallel_reply() {
    let (server, files) = (three_calls().await, Files::default());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .on_approval(move |request| {
            log.lock().unwrap().push(path(&request.call));
            let verdict = match path(&request.call) == "a.txt" {
                true => Verdict::Approve,
                false => Verdict::Deny("keep b".into()),
            };
            async move { verdict }
        })
        .build();
    let run = agent.run("tidy up").await.unwrap();
    assert_eq!(run.answer, "done");
    assert_eq!(*asked.lock().unwrap(), ["a.txt", "b.txt"]);
    a_deleted_and_b_kept(&server, &files);
}

#[tokio::test]
async fn one_call_at_a_time_passes_the_same_gate() {
    let (server, files) = (three_calls().await, Files::default());
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .parallel_tool_calls(false)
        .on_approval(|_| async { Verdict::Deny("no".into()) })
        .build();
    agent.run("tidy up").await.unwrap();
    assert_eq!(files.done(), ["read c.txt"]);
}

#[tokio::test]
async fn a_denied_calls_result_keeps_the_models_order_in_the_history_and_the_steps() {
    let (server, files) = (three_calls().await, Files::default());
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .on_approval(|request| {
            let verdict = match path(&request.call) == "a.txt" {
                true => Verdict::Deny("keep a".into()),
                false => Verdict::Approve,
            };
            async move { verdict }
        })
        .build();
    let run = agent.run("tidy up").await.unwrap();
    let steps: Vec<(&str, bool)> = (run.steps[0].calls.iter())
        .map(|record| (record.call.id.as_deref().unwrap(), record.is_error()))
        .collect();
    assert_eq!(steps, [("c1", true), ("c2", false), ("c3", false)]);
    let history: Vec<&str> = (run.history.iter())
        .filter_map(|message| match message {
            Message::Tool { result } => result.call_id.as_deref(),
            _ => None,
        })
        .collect();
    assert_eq!(history, ["c1", "c2", "c3"]);
    let sent: Vec<String> = results_sent(&server);
    assert_eq!(
        sent,
        [
            "c1: Error: the call to files_delete was refused: a person denied it: keep a",
            "c2: deleted b.txt",
            "c3: contents of c.txt",
        ]
    );
}

/// `token` with its last reply's calls changed by `edit`, as a person could edit a saved one.
fn edited(token: &ResumeToken, edit: impl FnOnce(&mut Vec<Value>)) -> ResumeToken {
    let mut json = serde_json::to_value(token).unwrap();
    let history = json["history"].as_array_mut().unwrap();
    let calls = history.last_mut().unwrap()["tool_calls"]
        .as_array_mut()
        .unwrap();
    edit(calls);
    serde_json::from_value(json).unwrap()
}

#[tokio::test]
async fn an_edited_token_that_repeats_an_approved_call_runs_nothing() {
    let (server, files) = (three_calls().await, Files::default());
    let token = paused(&server, &files).await;
    let decisions: Vec<Decision> = token.pending().iter().map(Decision::approve).collect();
    let repeated = edited(&token, |calls| {
        let first = calls[0].clone();
        calls.extend([first.clone(), first]);
    });
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .build();
    let error = agent.resume(repeated, decisions).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the run cannot resume: the token's last reply has more than one call with id \"c1\""
    );
    assert!(files.done().is_empty());
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn an_edited_token_with_more_calls_than_a_step_runs_runs_nothing() {
    let (server, files) = (three_calls().await, Files::default());
    let token = paused(&server, &files).await;
    let decisions: Vec<Decision> = token.pending().iter().map(Decision::approve).collect();
    let widened = edited(&token, |calls| {
        let read = calls[2].clone();
        calls.extend((0..198).map(|n| {
            let mut call = read.clone();
            call["id"] = json!(format!("r{n}"));
            call
        }));
    });
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .build();
    let error = agent.resume(widened, decisions).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the run cannot resume: the token's last reply has 201 calls to run, over the limit of \
         64 in one step"
    );
    assert!(files.done().is_empty());
}

/// Pauses on the three calls; nothing of the step has run.
async fn paused(server: &ModelServer, files: &Files) -> ResumeToken {
    let agent = Agent::builder(openai_client(server))
        .toolbox(files.toolbox())
        .build();
    let error = agent.run("tidy up").await.unwrap_err();
    let AgentError::Paused(token) = error else {
        panic!("{error}")
    };
    assert!(files.done().is_empty());
    // Saved, and read back in another process.
    serde_json::from_str(&serde_json::to_string(&token).unwrap()).unwrap()
}

#[tokio::test]
async fn without_a_handler_the_run_pauses_and_resumes_with_the_decisions() {
    let (server, files) = (three_calls().await, Files::default());
    let token = paused(&server, &files).await;
    let pending: Vec<String> = token.pending().iter().map(path).collect();
    assert_eq!(pending, ["a.txt", "b.txt"]);
    let decisions = [
        Decision::approve(&token.pending()[0]),
        Decision::deny(&token.pending()[1], "keep b"),
    ];
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .build();
    let run = agent.resume(token, decisions).await.unwrap();
    assert_eq!(run.answer, "done");
    a_deleted_and_b_kept(&server, &files);
}

#[tokio::test]
async fn a_resume_with_a_decision_missing_runs_nothing() {
    let (server, files) = (three_calls().await, Files::default());
    let token = paused(&server, &files).await;
    let decisions = [Decision::approve(&token.pending()[0])];
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .build();
    let error = agent.resume(token, decisions).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the run cannot resume: call c2 to files_delete waits for approval and no decision \
         matches it (its id, tool and arguments)"
    );
    assert!(files.done().is_empty());
    assert_eq!(server.received().len(), 1);
    // The token comes back, to decide again.
    let AgentError::Resume { token, .. } = error else {
        panic!("{error}")
    };
    let decisions: Vec<Decision> = token.pending().iter().map(Decision::approve).collect();
    agent.resume(*token, decisions).await.unwrap();
    assert_eq!(files.done().len(), 3);
}

#[tokio::test]
async fn a_forged_token_does_not_run_what_the_decisions_did_not_approve() {
    let (server, files) = (three_calls().await, Files::default());
    let token = paused(&server, &files).await;
    let decisions: Vec<Decision> = token.pending().iter().map(Decision::approve).collect();
    // The read call's tool is changed to a delete in the history the token carries.
    let forged = serde_json::to_string(&token)
        .unwrap()
        .replace(r#""name":"files_read""#, r#""name":"files_delete""#);
    let forged: ResumeToken = serde_json::from_str(&forged).unwrap();
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .build();
    let error = agent.resume(forged, decisions.clone()).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "the run cannot resume: call c3 to files_delete waits for approval and no decision \
         matches it (its id, tool and arguments)"
    );
    // A decision naming another tool than the call's matches nothing either.
    let mut renamed = decisions;
    renamed[1].call.name = "files_read".into();
    let error = agent.resume(token, renamed).await.unwrap_err();
    assert!(matches!(error, AgentError::Resume { .. }), "{error}");
    assert!(files.done().is_empty());
}

#[tokio::test]
async fn the_destructive_policy_holds_annotated_tools_too() {
    let reply = || openai_calls(&[("c1", "files_empty_trash", json!({}))]);
    let server = ModelServer::start(vec![reply(), reply(), openai_text("done")]).await;
    let files = Files::default();
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .approval_policy(ApprovalPolicy::Destructive)
        .build();
    let error = agent.run("empty it").await.unwrap_err();
    assert!(matches!(error, AgentError::Paused(_)), "{error}");
    assert!(files.done().is_empty());
    // Under the default policy only marked tools wait.
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .build();
    agent.run("empty it").await.unwrap();
    assert_eq!(files.done(), ["empty_trash"]);
}

#[tokio::test]
async fn a_closure_policy_holds_the_calls_it_names() {
    let server = three_calls().await;
    let files = Files::default();
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .approval_policy(ApprovalPolicy::when(|call| call.name == "files_read"))
        .build();
    let AgentError::Paused(token) = agent.run("tidy up").await.unwrap_err() else {
        panic!("the run did not pause")
    };
    let names: Vec<&str> = token.pending().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["files_delete", "files_delete", "files_read"]);
}

#[tokio::test]
async fn react_pauses_before_its_call_and_runs_it_once_approved() {
    let server = ModelServer::start(vec![
        openai_text(r#"{"thought": "delete it", "action": "files_delete", "action_input": {"path": "a.txt"}}"#),
        openai_text(r#"{"thought": "done", "final_answer": "deleted"}"#),
    ])
    .await;
    let files = Files::default();
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .react()
        .build();
    let AgentError::Paused(token) = agent.run("delete a.txt").await.unwrap_err() else {
        panic!("the run did not pause")
    };
    assert!(files.done().is_empty());
    let decision = Decision::approve(&token.pending()[0]);
    let run = agent.resume(*token, [decision]).await.unwrap();
    assert_eq!(run.answer, "deleted");
    assert_eq!(files.done(), ["delete a.txt"]);
    let last = server.received()[1].body["messages"][3]["content"].clone();
    assert_eq!(last, "Observation: deleted a.txt");
}

#[tokio::test]
async fn calls_through_state_pass_the_same_gate() {
    let (server, files) = (three_calls().await, Files::default());
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .on_approval(|_| async { Verdict::Deny("no".into()) })
        .build();
    let state = toolkit::state::DynamicState::new(toolkit::state::StateSchema::new());
    agent.run("tidy up").state(Box::new(state)).await.unwrap();
    assert_eq!(files.done(), ["read c.txt"]);
}

#[tokio::test]
async fn a_typed_answer_never_waits_for_approval() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Done {
        deleted: bool,
    }
    // Anthropic's wire has no native output, so the answer comes as a `final_result` call.
    let server = ModelServer::start(vec![common::wire::anthropic_calls(&[(
        "toolu_1",
        "final_result",
        json!({"deleted": false}),
    )])])
    .await;
    let model = common::wire::anthropic_client(&server);
    let agent = Agent::builder(model)
        .approval_policy(ApprovalPolicy::when(|_| true))
        .output::<Done>()
        .build();
    let run = agent.run("done?").await.unwrap();
    assert!(!run.answer.deleted);
}

#[tokio::test]
async fn a_paused_run_given_state_carries_the_state_to_its_resume() {
    use toolkit::state::{AgentState, DynamicState, StateSchema};
    let state = || DynamicState::new(StateSchema::new().key("note", json!({"type": "string"})));
    let (server, files) = (three_calls().await, Files::default());
    let agent = Agent::builder(openai_client(&server))
        .toolbox(files.toolbox())
        .build();
    let mut before = state();
    before.merge("note", json!("keep b")).unwrap();
    let AgentError::Paused(token) = agent
        .run("tidy up")
        .state(Box::new(before))
        .await
        .unwrap_err()
    else {
        panic!("the run did not pause")
    };
    assert_eq!(token.state(), Some(&json!({"note": "keep b"})));
    let mut after = state();
    for (key, value) in token.state().unwrap().as_object().unwrap() {
        after.merge(key, value.clone()).unwrap();
    }
    let decisions: Vec<Decision> = token.pending().iter().map(Decision::approve).collect();
    let run = agent
        .resume(*token, decisions)
        .state(Box::new(after))
        .await
        .unwrap();
    assert_eq!(run.state.unwrap().to_json(), json!({"note": "keep b"}));
    assert_eq!(files.done().len(), 3);
}
