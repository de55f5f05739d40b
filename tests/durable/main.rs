//! Durable agents on a real Restate server (restate-server 1.7.12, installed by
//! `scripts/durable install`): each test starts a server, a scripted model and a worker serving
//! `toolkit::durable::DurableAgent` in this process, and kills the worker by dropping it, which
//! stops every connection and run in flight at once, as a SIGKILL would.

#[path = "../common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::durable_agent::{self, Ledger, effects, run_and_step};
use common::model_server::ModelServer;
use common::restate::Restate;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use toolkit::agent::Decision;
use toolkit::durable::{DurableAgent, DurableClient, RunOutcome, RunStatus};

/// A Restate server, a scripted model, and where the tools record what they did.
struct Setup {
    restate: Restate,
    model: ModelServer,
    effects: PathBuf,
    client: DurableClient,
    port: u16,
}

impl Setup {
    /// The model holds its reply to a run's second step for `second_step`.
    async fn start(name: &str, second_step: Duration) -> Setup {
        let restate = Restate::start();
        let model = ModelServer::answering(move |body| {
            let delay = match run_and_step(body).1 {
                1 => second_step,
                _ => Duration::ZERO,
            };
            durable_agent::reply(body, delay)
        })
        .await;
        let effects = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("durable-{name}-{}.log", std::process::id()));
        let _ = std::fs::remove_file(&effects);
        let port = common::mcp::free_port();
        let client = DurableClient::new(&restate.ingress);
        Setup {
            restate,
            model,
            effects,
            client,
            port,
        }
    }

    /// A worker on the setup's port; registered with Restate when `register`.
    async fn worker(&self, name: &str, register: bool) -> JoinHandle<std::io::Result<()>> {
        let agent =
            durable_agent::agent(&self.model.base_url(), &self.effects, name, Duration::ZERO);
        let listener = TcpListener::bind(("127.0.0.1", self.port)).await.unwrap();
        let durable = DurableAgent::new(agent).with_state::<Ledger>();
        let worker = tokio::spawn(durable.serve(listener));
        if register {
            let url = format!("http://127.0.0.1:{}", self.port);
            DurableClient::register(&self.restate.admin, &url)
                .await
                .unwrap();
        }
        worker
    }

    /// How many model calls run `run` made at step `step`.
    fn model_calls(&self, run: &str, step: usize) -> usize {
        let received = self.model.received();
        let asked = received.iter().map(|request| run_and_step(&request.body));
        asked
            .filter(|(input, at)| input == run && *at == step)
            .count()
    }

    /// Waits (at most 10 s) until the model is asked for the second step of the run on `input`.
    async fn second_model_call(&self, input: &str) {
        for _ in 0..200 {
            if self.model_calls(input, 1) > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let asked = self.model_calls(input, 1);
        assert_eq!(asked, 1, "the run reached its second step");
    }

    /// How many times `tool` ran for `run`.
    fn executions(&self, tool: &str, run: &str) -> usize {
        let lines = effects(&self.effects);
        lines
            .iter()
            .filter(|(t, r, _)| t == tool && r == run)
            .count()
    }
}

/// Runs `input` as `run` on worker w1, kills w1 while the model holds its answer to the run's
/// second step, and waits for the run on w2, which serves on the same port.
async fn crash_at_second_step(run: &str, input: &str) -> (Setup, RunOutcome) {
    let setup = Setup::start(run, Duration::from_millis(1500)).await;
    let first = setup.worker("w1", true).await;
    setup.client.start(run, input).await.unwrap();
    setup.second_model_call(input).await;
    kill(first).await;
    let second = setup.worker("w2", false).await;
    let outcome = setup.client.outcome(run).await.unwrap();
    kill(second).await;
    (setup, outcome)
}

/// Kills a worker: its connections and runs stop where they are.
async fn kill(worker: JoinHandle<std::io::Result<()>>) {
    worker.abort();
    let _ = worker.await;
}

#[tokio::test]
async fn a_durable_run_answers_and_makes_each_model_and_tool_call_once() {
    let setup = Setup::start("single", Duration::ZERO).await;
    let _worker = setup.worker("w1", true).await;
    setup.client.start("run-s", "run-s").await.unwrap();
    let outcome = setup.client.outcome("run-s").await.unwrap();
    assert_eq!(outcome.answer, "done run-s");
    assert_eq!(
        (outcome.steps, outcome.tool_calls, outcome.failed_tool_calls),
        (3, 3, 0)
    );
    let calls: Vec<usize> = (0..3)
        .map(|step| setup.model_calls("run-s", step))
        .collect();
    assert_eq!(calls, [1, 1, 1]);
    for tool in ["lookup", "book", "notify"] {
        assert_eq!(setup.executions(tool, "run-s"), 1, "{tool}");
    }
    let status = setup.client.inspect("run-s").await.unwrap();
    assert_eq!(status, RunStatus::Finished(outcome));
}

#[tokio::test]
async fn a_tool_that_ran_before_its_worker_died_is_not_run_again_when_the_run_resumes() {
    // The model holds its second answer, so the worker dies after the first step's tools ran
    // and while the model's next call is in flight.
    let (setup, outcome) = crash_at_second_step("run-c", "run-c").await;
    assert_eq!(outcome.answer, "done run-c");
    assert_eq!(outcome.failed_tool_calls, 0);
    assert_eq!(setup.executions("book", "run-c"), 1);
    assert_eq!(setup.executions("lookup", "run-c"), 1);
    assert_eq!(setup.executions("notify", "run-c"), 1);
    // The first model call is replayed from the journal; the cut-off second one is made again.
    assert_eq!(setup.model_calls("run-c", 0), 1);
    assert_eq!(setup.model_calls("run-c", 1), 2);
    let workers: Vec<String> = effects(&setup.effects)
        .into_iter()
        .map(|(.., w)| w)
        .collect();
    assert_eq!(workers, ["w1", "w1", "w2"]);
}

#[tokio::test]
async fn a_run_waiting_for_approval_survives_its_workers_restart_and_runs_the_approved_call_once() {
    let setup = Setup::start("approval", Duration::ZERO).await;
    let first = setup.worker("w1", true).await;
    setup.client.start("run-a", "pay:run-a").await.unwrap();
    let mut pending = Vec::new();
    for _ in 0..200 {
        if let RunStatus::Waiting { pending: calls, .. } =
            setup.client.inspect("run-a").await.unwrap()
        {
            pending = calls;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let names: Vec<&str> = pending.iter().map(|call| call.name.as_str()).collect();
    assert_eq!(names, ["errand_pay"]);
    kill(first).await;
    let _second = setup.worker("w2", false).await;
    let decisions = pending.iter().map(Decision::approve).collect();
    setup.client.approve("run-a", decisions).await.unwrap();
    let outcome = setup.client.outcome("run-a").await.unwrap();
    assert_eq!(outcome.answer, "done run-a");
    assert_eq!(setup.executions("pay", "run-a"), 1);
    assert_eq!(setup.model_calls("pay:run-a", 0), 1);
    assert_eq!(setup.model_calls("pay:run-a", 1), 1);
}

#[tokio::test]
async fn a_run_resumed_on_another_worker_keeps_the_agent_state_its_journaled_calls_wrote() {
    // The worker dies while the model's second call is in flight, after the first write.
    let (setup, outcome) = crash_at_second_step("run-l", "ledger:run-l").await;
    assert_eq!(outcome.answer, "done run-l");
    assert_eq!(setup.model_calls("ledger:run-l", 0), 1);
    let state = outcome.state.expect("the agent keeps state");
    assert_eq!(state, serde_json::json!({"entries": ["first", "second"]}));
}
