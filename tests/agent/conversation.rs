//! Conversations across runs over the real wire formats: the history carried and saved, the
//! system prompt sent once and first, usage summed, and the token budget dropping the oldest
//! turns whole (a tool call never without its result), by estimate or by the provider's count.

use crate::common;

use common::model_server::{ModelServer, Reply};
use common::wire::{
    anthropic_calls, anthropic_client, anthropic_text, openai_calls, openai_client, openai_text,
};
use toolkit::ToolDefinition;
use toolkit::agent::{Agent, Conversation};
use toolkit::models::{Message, Usage};
use toolkit::prelude::*;

/// A tool whose result is long: a turn that calls it weighs about 250 tokens.
fn notes() -> Toolbox {
    let schema = json!({"type": "object", "properties": {"topic": {"type": "string"}}});
    let definition = ToolDefinition::new("notes", "The notes on a topic", schema);
    let tool = ToolProxy::from_fn(definition, |_| Ok::<_, String>("n".repeat(1000)));
    Toolbox::builder().tool(tool).build().unwrap()
}

/// The roles of the messages a Chat Completions request carried.
fn roles(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().unwrap();
    messages
        .iter()
        .map(|m| m["role"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_conversation_carries_the_history_across_runs_and_a_save() {
    let server = ModelServer::start(vec![
        openai_text("Hello, Ana."),
        openai_text("You are Ana."),
    ])
    .await;
    let agent = Agent::builder(openai_client(&server))
        .system_prompt("Be brief.")
        .build();
    let mut conversation = Conversation::new();
    agent
        .run("I am Ana.")
        .conversation(&mut conversation)
        .await
        .unwrap();
    let saved = serde_json::to_string(&conversation).unwrap();
    let mut conversation: Conversation = serde_json::from_str(&saved).unwrap();
    let run = agent
        .run("Who am I?")
        .conversation(&mut conversation)
        .await
        .unwrap();
    assert_eq!(run.answer, "You are Ana.");
    let second = &server.received()[1].body;
    assert_eq!(roles(second), ["system", "user", "assistant", "user"]);
    assert_eq!(second["messages"][2]["content"], "Hello, Ana.");
    assert_eq!(conversation.messages.len(), 5);
    assert_eq!(
        conversation.usage,
        Some(Usage {
            input_tokens: 200,
            output_tokens: 20
        })
    );
}

#[tokio::test]
async fn the_agents_system_prompt_replaces_the_conversations() {
    let server = ModelServer::start(vec![openai_text("ok")]).await;
    let agent = Agent::builder(openai_client(&server))
        .system_prompt("New rules.")
        .build();
    let mut conversation = Conversation::new();
    conversation.messages = vec![
        Message::system("Old rules."),
        Message::user("hi"),
        Message::assistant("hello"),
    ];
    agent
        .run("again")
        .conversation(&mut conversation)
        .await
        .unwrap();
    let body = &server.received()[0].body;
    assert_eq!(roles(body), ["system", "user", "assistant", "user"]);
    assert_eq!(body["messages"][0]["content"], "New rules.");
}

#[tokio::test]
async fn a_failed_run_leaves_the_conversation_as_it_was() {
    // The server has no reply: the model call fails with 500.
    let server = ModelServer::start(vec![]).await;
    let agent = Agent::builder(openai_client(&server)).build();
    let mut conversation = Conversation::new();
    conversation.messages = vec![Message::user("hi"), Message::assistant("hello")];
    let before = conversation.clone();
    agent
        .run("again")
        .conversation(&mut conversation)
        .await
        .unwrap_err();
    assert_eq!(conversation, before);
}

/// A conversation of `turns` turns, each a question, a call of `notes`, its result and an answer.
async fn long_conversation(turns: usize) -> Conversation {
    let mut script = Vec::new();
    for turn in 0..turns {
        script.push(openai_calls(&[(
            &format!("call_{turn}"),
            "notes",
            json!({"topic": "x"}),
        )]));
        script.push(openai_text(&format!("answer {turn}")));
    }
    let server = ModelServer::start(script).await;
    let agent = Agent::builder(openai_client(&server))
        .system_prompt("Be brief.")
        .toolbox(notes())
        .build();
    let mut conversation = Conversation::new();
    for turn in 0..turns {
        agent
            .run(format!("question {turn}"))
            .conversation(&mut conversation)
            .await
            .unwrap();
    }
    conversation
}

#[tokio::test]
async fn the_budget_drops_the_oldest_turns_whole_and_keeps_the_system_prompt() {
    let mut conversation = long_conversation(4).await;
    assert_eq!(conversation.messages.len(), 17);
    let server = ModelServer::start(vec![openai_text("fine")]).await;
    let agent = Agent::builder(openai_client(&server))
        .system_prompt("Be brief.")
        .toolbox(notes())
        .context_budget(700)
        .build();
    agent
        .run("last question")
        .conversation(&mut conversation)
        .await
        .unwrap();
    let body = &server.received()[0].body;
    // Two turns of four messages (about 300 tokens each) and the new question fit in 700.
    assert_eq!(
        roles(body),
        [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user"
        ]
    );
    assert_eq!(body["messages"][0]["content"], "Be brief.");
    assert_eq!(body["messages"][1]["content"], "question 2");
    assert_eq!(conversation.messages.len(), 11);
}

#[tokio::test]
async fn the_providers_count_of_the_prompt_drives_the_budget_mid_run() {
    // The first reply says its prompt took 5000 tokens: over the budget, so before the second
    // model call the oldest turn goes, though the estimate alone would keep it.
    let calls = json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1,
        "model": "gpt-4o-mini", "choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "c9",
            "type": "function", "function": {"name": "notes", "arguments": "{}"}}]}}],
        "usage": {"prompt_tokens": 5000, "completion_tokens": 10, "total_tokens": 5010}});
    let server = ModelServer::start(vec![
        Reply::json(200, &calls.to_string()),
        openai_text("ok"),
    ])
    .await;
    let agent = Agent::builder(openai_client(&server))
        .toolbox(notes())
        .context_budget(4000)
        .build();
    let mut conversation = Conversation::new();
    conversation.messages = vec![
        Message::user("old question"),
        Message::assistant("old answer"),
    ];
    agent
        .run("new question")
        .conversation(&mut conversation)
        .await
        .unwrap();
    let first = &server.received()[0].body;
    assert_eq!(roles(first), ["user", "assistant", "user"]);
    let second = &server.received()[1].body;
    assert_eq!(roles(second), ["user", "assistant", "tool"]);
    assert_eq!(second["messages"][0]["content"], "new question");
}

#[tokio::test]
async fn anthropic_is_sent_tool_use_and_tool_result_together_after_a_cut() {
    let server = ModelServer::start(vec![
        anthropic_calls(&[("toolu_1", "notes", json!({"topic": "a"}))]),
        anthropic_text("first"),
        anthropic_calls(&[("toolu_2", "notes", json!({"topic": "b"}))]),
        anthropic_text("second"),
    ])
    .await;
    let agent = Agent::builder(anthropic_client(&server))
        .toolbox(notes())
        .context_budget(300)
        .build();
    let mut conversation = Conversation::new();
    agent
        .run("one")
        .conversation(&mut conversation)
        .await
        .unwrap();
    agent
        .run("two")
        .conversation(&mut conversation)
        .await
        .unwrap();
    let last = &server.received()[3].body["messages"];
    let messages = last.as_array().unwrap();
    // The provider counted 110 tokens up to the last reply; with the new result's 250 or so
    // that is over 300, so the first turn went. What is left starts with the user's text and
    // keeps its pair.
    assert_eq!(messages[0]["content"][0]["text"], "two");
    assert_eq!(messages[1]["content"][0]["type"], "tool_use");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_2");
}

#[tokio::test]
async fn a_paused_run_resumes_into_its_conversation() {
    use toolkit::agent::{AgentError, ApprovalPolicy, Decision};
    use toolkit::models::{ModelReply, ScriptedModel};

    let model = ScriptedModel::new([
        ModelReply::calls([ToolCall::new("notes", json!({"topic": "Ana"})).with_id("n1")]),
        ModelReply::text("Ana likes tea."),
    ]);
    let agent = Agent::builder(model)
        .system_prompt("Be brief.")
        .toolbox(notes())
        .approval_policy(ApprovalPolicy::when(|_| true))
        .build();
    // A conversation saved after a first turn.
    let mut conversation = Conversation::new();
    conversation.messages = vec![
        Message::system("Be brief."),
        Message::user("I am Ana."),
        Message::assistant("Hello, Ana."),
    ];
    let paused = agent
        .run("What do I like?")
        .conversation(&mut conversation)
        .await;
    let Err(AgentError::Paused(token)) = paused else {
        panic!("the run did not pause")
    };
    // A paused run leaves the conversation as it was.
    assert_eq!(conversation.messages.len(), 3);
    let approve = Decision::approve(&token.pending()[0]);
    let run = agent
        .resume(*token, [approve])
        .conversation(&mut conversation)
        .await
        .unwrap();
    assert_eq!(run.answer, "Ana likes tea.");
    assert_eq!(conversation.messages, run.history);
    // system, the first turn (user, assistant), then user, the call, its result, the answer
    assert_eq!(conversation.messages.len(), 7);
}
