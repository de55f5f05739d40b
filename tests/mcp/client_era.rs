//! The client speaks MCP 2026-07-28 first: it discovers the server, sends its version on every
//! request, mirrors header parameters, answers `input_required` through `on_elicit` with the
//! echoed `requestState`, and still reaches a 2025-era server through `initialize`.

#[path = "client_era/remote.rs"]
mod remote;

use serde_json::json;
use toolkit::context::{ElicitationAnswer, ElicitationRequest};
use toolkit::mcp::{McpClient, McpTransport};

use crate::common::mcp::{free_port, python, python_server, script};
use remote::{Remote, Seen};

fn naming_ada(url: &str) -> toolkit::mcp::McpClientBuilder {
    McpClient::builder(McpTransport::http(url)).on_elicit(
        |request: ElicitationRequest| async move {
            assert_eq!(request.message, "Your name?");
            ElicitationAnswer::Accept(json!({"name": "Ada"}))
        },
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_server_is_discovered_and_its_input_required_answered_through_on_elicit() {
    let remote = Remote::start(Some(1)).await;
    let client = naming_ada(&remote.url).connect().await.expect("connect");
    assert_eq!(
        client.protocol_version().await.as_deref(),
        Some("2026-07-28")
    );

    let greet = client.tools().into_iter().next().expect("the greet tool");
    let answer = greet
        .acall(json!({"region": "eu-west"}))
        .await
        .expect("a result");
    assert_eq!(answer, json!("hello Ada"));

    let seen = |request_state: Option<&str>| Seen {
        protocol_version: Some("2026-07-28".to_owned()),
        request_state: request_state.map(str::to_owned),
        region_header: Some("eu-west".to_owned()),
    };
    // The second round echoes the state of the first, unread, with the same header.
    assert_eq!(remote.seen(), [seen(None), seen(Some("state-1"))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_that_asks_first_is_answered_through_on_elicit_too() {
    let remote = Remote::start(Some(1)).await;
    let client = naming_ada(&remote.url).connect().await.expect("connect");
    let messages = client
        .get_prompt("whoami", Default::default())
        .await
        .expect("the prompt");
    assert_eq!(
        serde_json::to_value(&messages).expect("JSON"),
        json!([{"role": "user", "content": {"type": "text", "text": "I am Ada"}}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_list_is_not_asked_for_again_within_its_ttl() {
    let remote = Remote::start(Some(1)).await;
    let client = naming_ada(&remote.url).connect().await.expect("connect");
    assert_eq!(remote.lists(), 1);
    let names = client.refresh().await.expect("listed").len();
    assert_eq!((names, remote.lists()), (1, 1), "served from the cache");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_asking_fails_the_call_after_a_bounded_number_of_rounds() {
    let remote = Remote::start(None).await;
    let client = naming_ada(&remote.url).connect().await.expect("connect");
    let greet = client.tools().into_iter().next().expect("the greet tool");
    let err = greet.acall(json!({})).await.expect_err("never answered");
    assert_eq!(
        err.to_string(),
        "the MCP server still asked for input after 8 rounds of the call to greet; the call \
         was given up"
    );
    assert_eq!(remote.seen().len(), 9, "the first call and 8 rounds");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_era_server_is_reached_through_initialize_whether_discover_fails_or_is_misread() {
    // An rmcp server limited to 2025-11-25: `server/discover` refused, naming those versions.
    let legacy = Remote::start_legacy().await;
    let http = McpClient::connect(McpTransport::http(legacy.url.as_str()))
        .await
        .expect("connect over HTTP");
    // Ours: a server answering a method it does not know with a result of another kind,
    // over stdio (the child is started again for `initialize`).
    let stdio = McpClient::connect(
        McpTransport::stdio(python())
            .args([
                script("misbehaving_server.py"),
                "stdio".into(),
                "lenient".into(),
            ])
            .inherit_stderr(false),
    )
    .await
    .expect("connect over stdio");
    for client in [&http, &stdio] {
        assert_eq!(
            client.protocol_version().await.as_deref(),
            Some("2025-11-25")
        );
    }
    let greet = http.tools().into_iter().next().expect("the greet tool");
    assert_eq!(
        greet.acall(json!({})).await.expect("a result"),
        json!("hello nobody")
    );
    assert_eq!(
        legacy.seen(),
        [Seen {
            protocol_version: None,
            request_state: None,
            region_header: None,
        }]
    );
    assert_eq!(stdio.tool_names(), ["echo", "file"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_server_is_spoken_to_in_2026_07_28_over_stdio_and_http() {
    let stdio = McpClient::connect(
        McpTransport::stdio(python())
            .arg(script("python_server.py"))
            .inherit_stderr(false),
    )
    .await
    .expect("connect over stdio");
    let port = free_port();
    let _server = python_server("streamable-http", port);
    let http = McpClient::connect(McpTransport::http(format!("http://127.0.0.1:{port}/mcp")))
        .await
        .expect("connect over HTTP");
    for client in [&stdio, &http] {
        assert_eq!(
            client.protocol_version().await.as_deref(),
            Some("2026-07-28")
        );
        let add = (client.tools().into_iter())
            .find(|tool| tool.name() == "add")
            .expect("the add tool");
        assert_eq!(
            add.acall(json!({"a": 2, "b": 3})).await.expect("a sum"),
            json!("5")
        );
    }
}
