//! The HTTP model clients against servers that misbehave on purpose, all on loopback: redirects
//! to another origin, absurd `Retry-After` values, bodies and streams past the bound, servers
//! that trickle or stall, and keys echoed back in error bodies.

mod common;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::model_server::{ModelServer, Reply, read_request};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use toolkit::Toolbox;
use toolkit::mcp::{HttpOptions, McpClient, McpTransport};
use toolkit::models::{
    AnthropicClient, ChatModel, ChatOptions, ChatRequest, Message, ModelError, ModelReply,
    OpenAiClient, RetryPolicy,
};

const OPENAI_TEXT: &str = include_str!("fixtures/models/openai_text.json");
const ANTHROPIC_TEXT: &str = include_str!("fixtures/models/anthropic_text.json");
const OPENAI_KEY: &str = "sk-test-planted-secret";
const ANTHROPIC_KEY: &str = "sk-ant-planted-secret";

async fn ask(model: &impl ChatModel) -> Result<ModelReply, ModelError> {
    let messages = [Message::user("Weather in Boston?")];
    let (toolbox, options) = (Toolbox::default(), ChatOptions::default());
    model
        .chat(ChatRequest::new(&messages, &toolbox, &options))
        .await
}

fn openai(base_url: &str) -> toolkit::models::OpenAiClientBuilder {
    OpenAiClient::builder("gpt-4o-mini")
        .base_url(base_url)
        .api_key(OPENAI_KEY)
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(10))
}

fn anthropic(base_url: &str) -> toolkit::models::AnthropicClientBuilder {
    AnthropicClient::builder("claude-3-5-sonnet-20240620")
        .base_url(base_url)
        .api_key(ANTHROPIC_KEY)
        .retry(RetryPolicy::none())
        .timeout(Duration::from_secs(10))
}

fn fast_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy {
        max_retries,
        initial_backoff: Duration::from_millis(1),
        max_delay: Duration::from_millis(20),
    }
}

/// A loopback server that runs `serve` on every connection (after reading the request) and
/// counts connections; it stops when dropped.
struct RawServer {
    address: std::net::SocketAddr,
    connections: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl RawServer {
    async fn start<F, Fut>(serve: F) -> Self
    where
        F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::io::Result<()>> + Send + 'static,
    {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&connections);
        let serve = Arc::new(serve);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let serve = Arc::clone(&serve);
                tokio::spawn(async move {
                    if read_request(&mut stream).await.is_ok() {
                        let _ = serve(stream).await;
                    }
                });
            }
        });
        RawServer {
            address,
            connections,
            task,
        }
    }

    fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

const STREAM_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";

// ---- Redirects ----

#[tokio::test]
async fn an_anthropic_307_to_another_origin_delivers_nothing_there_and_fails_clearly() {
    let elsewhere = ModelServer::start(vec![Reply::json(200, ANTHROPIC_TEXT)]).await;
    let location = format!("{}/messages", elsewhere.base_url());
    let server =
        ModelServer::start(vec![Reply::json(307, "{}").header("location", &location)]).await;
    let model = anthropic(&server.base_url()).build().unwrap();
    let err = ask(&model).await.unwrap_err();
    let origin = elsewhere.base_url().trim_end_matches("/v1").to_owned();
    assert_eq!(
        err,
        ModelError::Redirected {
            status: 307,
            location: origin.clone()
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "the model API answered 307 redirecting to {origin}; redirects are not followed, \
             so that the key and the conversation never go elsewhere: set the base URL to the \
             address that answers"
        )
    );
    assert_eq!(elsewhere.received().len(), 0);
    assert_eq!(server.received().len(), 1);
}

#[tokio::test]
async fn openai_redirects_of_every_kind_are_refused_without_resending_the_conversation() {
    for status in [301, 302, 303, 307, 308] {
        let elsewhere = ModelServer::start(vec![Reply::json(200, OPENAI_TEXT)]).await;
        let location = format!("{}/chat/completions?token=hidden", elsewhere.base_url());
        let server = ModelServer::start(vec![
            Reply::json(status, "{}").header("location", &location),
        ])
        .await;
        // Retries on: a redirect is not retried either.
        let model = openai(&server.base_url())
            .retry(fast_retries(3))
            .build()
            .unwrap();
        let err = ask(&model).await.unwrap_err();
        let origin = elsewhere.base_url().trim_end_matches("/v1").to_owned();
        assert_eq!(
            err,
            ModelError::Redirected {
                status,
                location: origin
            },
            "{status}"
        );
        assert!(!err.to_string().contains("hidden"), "{err}");
        assert_eq!(elsewhere.received().len(), 0, "{status}");
        assert_eq!(server.received().len(), 1, "{status}");
    }
}

#[tokio::test]
async fn a_redirect_without_a_location_is_named_as_such() {
    let server = ModelServer::start(vec![Reply::json(302, "{}")]).await;
    let err = ask(&openai(&server.base_url()).build().unwrap())
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ModelError::Redirected {
            status: 302,
            location: "no Location".into()
        }
    );
}

// ---- Retry-After ----

#[tokio::test]
async fn an_absurd_retry_after_is_an_ordinary_error_or_retry_never_a_panic() {
    let ten_kb = "1".repeat(10 * 1024);
    for value in ["1e20", "inf", "NaN", "-1", ten_kb.as_str()] {
        let busy = || Reply::json(429, r#"{"error": "slow down"}"#).header("retry-after", value);
        // No retries: the 429 is the error.
        let server = ModelServer::start(vec![busy()]).await;
        let err = ask(&openai(&server.base_url()).build().unwrap())
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ModelError::Status {
                status: 429,
                body: r#"{"error": "slow down"}"#.into()
            },
            "{value:.20}"
        );
        // Retries: the wait is bounded by the policy, and the next answer is read.
        let server = ModelServer::start(vec![busy(), Reply::json(200, OPENAI_TEXT)]).await;
        let model = openai(&server.base_url())
            .retry(fast_retries(1))
            .build()
            .unwrap();
        let started = Instant::now();
        let reply = ask(&model).await.unwrap();
        assert!(reply.text.is_some(), "{value:.20}");
        // max_delay is 20 ms; 5 s is 250x headroom and catches a wait of the header's length.
        assert!(started.elapsed() < Duration::from_secs(5), "{value:.20}");
    }
}

// ---- Response bounds ----

#[tokio::test]
async fn a_body_declared_larger_than_the_bound_is_refused() {
    let body = format!(r#"{{"pad": "{}"}}"#, "x".repeat(2048));
    // Only its size matters; it is never read.
    let server = ModelServer::start(vec![Reply::json(200, &body).unchecked()]).await;
    let model = openai(&server.base_url())
        .max_response_bytes(1024)
        .build()
        .unwrap();
    assert_eq!(
        ask(&model).await.unwrap_err(),
        ModelError::TooLarge { limit: 1024 }
    );
}

#[tokio::test]
async fn a_body_without_a_length_is_refused_as_it_passes_the_bound_while_the_server_holds_on() {
    // No Content-Length: the body would end when the connection closes, which it never does.
    let server = RawServer::start(|mut stream| async move {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n";
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(&[b' '; 4096]).await?;
        stream.flush().await?;
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(())
    })
    .await;
    let model = openai(&server.base_url())
        .max_response_bytes(1024)
        .build()
        .unwrap();
    let started = Instant::now();
    assert_eq!(
        ask(&model).await.unwrap_err(),
        ModelError::TooLarge { limit: 1024 }
    );
    // The timeout is 10 s; refusing under 5 s shows the bound, not the timeout, ended it.
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_stream_of_deltas_past_the_bound_is_refused_while_the_server_goes_on() {
    let server = RawServer::start(|mut stream| async move {
        stream.write_all(STREAM_HEAD.as_bytes()).await?;
        let delta =
            "data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"word \"}}]}\n\n";
        loop {
            stream.write_all(delta.repeat(20).as_bytes()).await?;
            stream.flush().await?;
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    let model = openai(&server.base_url())
        .streaming(true)
        .max_response_bytes(64 * 1024)
        .build()
        .unwrap();
    let started = Instant::now();
    assert_eq!(
        ask(&model).await.unwrap_err(),
        ModelError::TooLarge { limit: 64 * 1024 }
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn one_endless_event_stream_line_is_refused_as_it_passes_the_bound() {
    let server = RawServer::start(|mut stream| async move {
        stream.write_all(STREAM_HEAD.as_bytes()).await?;
        stream.write_all(b"data: ").await?;
        loop {
            stream.write_all(&[b'x'; 1024]).await?;
            stream.flush().await?;
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await;
    for model in [
        Arc::new(
            openai(&server.base_url())
                .streaming(true)
                .max_response_bytes(16 * 1024)
                .build()
                .unwrap(),
        ) as Arc<dyn ChatModel>,
        Arc::new(
            anthropic(&server.base_url())
                .streaming(true)
                .max_response_bytes(16 * 1024)
                .build()
                .unwrap(),
        ),
    ] {
        let started = Instant::now();
        assert_eq!(
            ask(&model).await.unwrap_err(),
            ModelError::TooLarge { limit: 16 * 1024 }
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

#[tokio::test]
async fn an_error_body_is_read_only_as_far_as_its_excerpt_needs() {
    // A 500 whose body never ends: only its start is read, and the call does not hang.
    let server = RawServer::start(|mut stream| async move {
        let head = "HTTP/1.1 500 Oops\r\ncontent-type: text/plain\r\n\r\n";
        stream.write_all(head.as_bytes()).await?;
        loop {
            stream.write_all(&[b'e'; 1024]).await?;
            stream.flush().await?;
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await;
    let started = Instant::now();
    let err = ask(&openai(&server.base_url()).build().unwrap())
        .await
        .unwrap_err();
    let ModelError::Status { status: 500, body } = &err else {
        panic!("expected a 500, got {err:?}");
    };
    assert_eq!(body, &format!("{}...", "e".repeat(500)));
    assert!(started.elapsed() < Duration::from_secs(5));
}

// ---- Time ----

#[tokio::test]
async fn a_trickling_stream_is_cut_at_the_calls_total_budget_across_retries() {
    // A comment line every 50 ms: never idle, never done.
    let server = RawServer::start(|mut stream| async move {
        stream.write_all(STREAM_HEAD.as_bytes()).await?;
        loop {
            stream.write_all(b": ping\n\n").await?;
            stream.flush().await?;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    let model = openai(&server.base_url())
        .streaming(true)
        .timeout(Duration::from_secs(1))
        .retry(fast_retries(3))
        .total_timeout(Duration::from_millis(1500))
        .build()
        .unwrap();
    let started = Instant::now();
    let err = ask(&model).await.unwrap_err();
    let elapsed = started.elapsed();
    // 1 s per attempt: the first times out and is retried; the second meets the budget.
    assert_eq!(
        err,
        ModelError::OutOfTime {
            budget: Duration::from_millis(1500),
            attempts: 2
        }
    );
    assert_eq!(server.connections(), 2);
    // Without a budget, 4 attempts of 1 s each; 3 s is 2x headroom over the budget.
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

#[tokio::test]
async fn a_stream_that_stalls_mid_answer_fails_after_the_idle_timeout_and_is_retried() {
    let server = RawServer::start(|mut stream| async move {
        stream.write_all(STREAM_HEAD.as_bytes()).await?;
        let first = "data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"Hel\"}}]}\n\n";
        stream.write_all(first.as_bytes()).await?;
        stream.flush().await?;
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(())
    })
    .await;
    let model = openai(&server.base_url())
        .streaming(true)
        .idle_timeout(Duration::from_millis(200))
        .retry(fast_retries(1))
        .build()
        .unwrap();
    let started = Instant::now();
    let err = ask(&model).await.unwrap_err();
    assert_eq!(
        err,
        ModelError::RetriesExhausted {
            attempts: 2,
            last: Box::new(ModelError::Stalled(Duration::from_millis(200)))
        }
    );
    assert_eq!(
        err.to_string(),
        "gave up after 2 attempts; last error: the model sent nothing for 200ms in the middle \
         of its answer"
    );
    // The request timeout is 10 s; 5 s shows the idle timeout ended each attempt.
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_json_body_that_stalls_fails_after_the_idle_timeout() {
    let server = RawServer::start(|mut stream| async move {
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n";
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(b"{\"id\": ").await?;
        stream.flush().await?;
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(())
    })
    .await;
    let model = anthropic(&server.base_url())
        .idle_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let started = Instant::now();
    assert_eq!(
        ask(&model).await.unwrap_err(),
        ModelError::Stalled(Duration::from_millis(200))
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn the_idle_timeout_does_not_run_while_the_model_thinks_before_its_headers() {
    let slow = Reply::json(200, OPENAI_TEXT).after(Duration::from_millis(600));
    let server = ModelServer::start(vec![slow]).await;
    let model = openai(&server.base_url())
        .idle_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    assert!(ask(&model).await.unwrap().text.is_some());
}

#[tokio::test]
async fn the_longest_budgets_and_timeouts_mean_no_bound_rather_than_a_panic() {
    let busy = Reply::json(503, "{}").header("retry-after", "0");
    let server = ModelServer::start(vec![busy, Reply::json(200, OPENAI_TEXT)]).await;
    let model = openai(&server.base_url())
        .retry(RetryPolicy {
            max_retries: 1,
            initial_backoff: Duration::ZERO,
            max_delay: Duration::MAX,
        })
        .total_timeout(Duration::MAX)
        .idle_timeout(Duration::MAX)
        .build()
        .unwrap();
    assert!(ask(&model).await.unwrap().text.is_some());
}

// ---- Secrets ----

/// Every tracing event's fields, as text.
#[derive(Clone, Default)]
struct EventLog(Arc<Mutex<Vec<String>>>);

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!(" {}={value:?}", field.name()));
    }
}

impl tracing::Subscriber for EventLog {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut text = String::from("span");
        span.record(&mut Fields(&mut text));
        self.0.lock().unwrap().push(text);
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut text = String::from("record");
        values.record(&mut Fields(&mut text));
        self.0.lock().unwrap().push(text);
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut text = format!("{} {}", event.metadata().level(), event.metadata().target());
        event.record(&mut Fields(&mut text));
        self.0.lock().unwrap().push(text);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn a_key_echoed_in_error_bodies_shows_nowhere_not_in_errors_nor_debug_logs() {
    let log = EventLog::default();
    let _guard = tracing::subscriber::set_default(log.clone());
    // The key at the 500-character cut as well, so that no part of it survives the cut.
    let straddling = format!("{}{OPENAI_KEY}", "p".repeat(495));
    let openai_server = ModelServer::start(vec![
        Reply::json(500, &format!(r#"{{"error": "bad key {OPENAI_KEY}"}}"#)),
        Reply::json(401, &straddling),
    ])
    .await;
    let model = openai(&openai_server.base_url())
        .retry(fast_retries(1))
        .build()
        .unwrap();
    let openai_err = ask(&model).await.unwrap_err();
    let anthropic_server = ModelServer::start(vec![
        Reply::json(
            529,
            &format!(r#"{{"error": {{"message": "x-api-key {ANTHROPIC_KEY} is overloaded"}}}}"#),
        ),
        Reply::json(400, &format!(r#"{{"echo": "{ANTHROPIC_KEY}"}}"#)),
    ])
    .await;
    let model = anthropic(&anthropic_server.base_url())
        .retry(fast_retries(1))
        .build()
        .unwrap();
    let anthropic_err = ask(&model).await.unwrap_err();

    assert_eq!(
        anthropic_err.to_string(),
        r#"gave up after 2 attempts; last error: the model API answered 400: {"echo": "***"}"#
    );
    let ModelError::RetriesExhausted { last, .. } = &openai_err else {
        panic!("expected retries, got {openai_err:?}");
    };
    assert_eq!(
        **last,
        ModelError::Status {
            status: 401,
            body: format!("{}***", "p".repeat(495))
        }
    );
    let events = log.0.lock().unwrap().join("\n");
    assert!(events.contains("retrying the model call"), "{events}");
    assert!(events.contains("bad key ***"), "{events}");
    for shown in [
        openai_err.to_string(),
        format!("{openai_err:?}"),
        anthropic_err.to_string(),
        format!("{anthropic_err:?}"),
        events,
    ] {
        for secret in [OPENAI_KEY, ANTHROPIC_KEY, "planted"] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }
}

#[tokio::test]
async fn a_base_urls_credentials_show_as_stars_in_debug_and_connection_errors() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base_url = format!("http://alice:planted-password@127.0.0.1:{port}/v1");
    let builder = openai(&base_url);
    let builder_debug = format!("{builder:?}");
    let model = builder.build().unwrap();
    let err = ask(&model).await.unwrap_err();
    let ModelError::Connect { url, .. } = &err else {
        panic!("expected a connection error, got {err:?}");
    };
    assert_eq!(
        *url,
        format!("http://***@127.0.0.1:{port}/v1/chat/completions")
    );
    let model_debug = format!("{model:?}");
    assert!(
        model_debug.contains(&format!(
            "url: \"http://***@127.0.0.1:{port}/v1/chat/completions\""
        )),
        "{model_debug}"
    );
    assert!(
        builder_debug.contains(&format!("base_url: \"http://***@127.0.0.1:{port}/v1\"")),
        "{builder_debug}"
    );
    for shown in [
        builder_debug,
        model_debug,
        err.to_string(),
        format!("{err:?}"),
    ] {
        for secret in ["planted", "alice", OPENAI_KEY] {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }
}

#[test]
fn mcp_transports_builders_and_server_options_print_their_secrets_as_stars() {
    let http = McpTransport::http("https://bob:planted-pass@mcp.example.com/mcp")
        .bearer_token("planted-token")
        .header("x-api-key", "planted-header");
    let sse = McpTransport::sse("http://127.0.0.1:8000/sse")
        .bearer_token("planted-token")
        .header("x-api-key", "planted-header");
    let stdio = McpTransport::stdio("server").env("GITHUB_TOKEN", "planted-env");
    let options = HttpOptions::default().bearer_token("planted-token");
    let builder = McpClient::builder(http.clone());
    let shown = [
        format!("{http:?}"),
        format!("{sse:?}"),
        format!("{stdio:?}"),
        format!("{options:?}"),
        format!("{builder:?}"),
    ];
    assert_eq!(
        shown[0],
        "StreamableHttp { url: \"https://***@mcp.example.com/mcp\", bearer_token: Some(***), \
         headers: {\"x-api-key\": ***} }"
    );
    assert_eq!(
        shown[2],
        "Stdio { command: \"server\", args: [], env: {\"GITHUB_TOKEN\": ***}, \
         inherit_stderr: true }"
    );
    assert!(shown[3].contains("bearer_token: Some(***)"), "{}", shown[3]);
    assert!(shown[4].contains(&shown[0]), "{}", shown[4]);
    for text in &shown {
        assert!(!text.contains("planted"), "{text}");
        assert!(!text.contains("bob"), "{text}");
    }
}
