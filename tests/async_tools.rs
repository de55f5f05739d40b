//! Async tools, sync tools called from async code, the async-to-sync opt-in in every runtime
//! flavour, panics in async bodies, and deadlines.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use toolkit::prelude::*;

#[derive(Default)]
struct Weather;

#[toolset(name = "weather")]
impl Weather {
    /// Look up the temperature of a city
    #[tool]
    async fn temperature(&self, city: String) -> Result<f64, String> {
        tokio::task::yield_now().await;
        match city.as_str() {
            "Oslo" => Ok(-3.5),
            other => Err(format!("no station in {other}")),
        }
    }

    /// Fall over
    #[tool]
    async fn broken(&self) -> String {
        tokio::task::yield_now().await;
        panic!("the station is on fire")
    }
}

#[tokio::test]
async fn an_async_tool_round_trips_through_acall() {
    let tools = Weather::to_tools();
    let temperature = &tools[0];
    assert!(temperature.is_async());
    assert_eq!(
        temperature.acall(json!({"city": "Oslo"})).await,
        Ok(json!(-3.5))
    );
    assert_eq!(
        temperature.dynamic_acall(r#"{"city": "Lima"}"#).await,
        json!("Error: no station in Lima")
    );
    assert_eq!(
        temperature.dynamic_acall(json!({})).await,
        json!(r#"Error: missing required argument "city" for weather_temperature"#)
    );
}

#[tokio::test]
async fn a_panic_in_an_async_tool_is_an_error_and_the_runtime_keeps_running() {
    let broken = Weather::to_tools().remove(1);
    assert_eq!(
        broken.dynamic_acall(json!({})).await,
        json!("Error: tool weather_broken panicked: the station is on fire")
    );
    assert_eq!(
        Weather::to_tools()[0].acall(json!({"city": "Oslo"})).await,
        Ok(json!(-3.5))
    );
}

#[test]
fn an_async_tool_called_through_sync_call_is_an_error_without_the_opt_in() {
    let temperature = Weather::to_tools().remove(0);
    assert_eq!(
        temperature.dynamic_call(json!({"city": "Oslo"})),
        json!(
            "Error: tool weather_temperature is async: call it with acall, or allow async-to-sync \
             conversion (toolkit::allow_async_to_sync)"
        )
    );
}

#[test]
fn the_opt_in_runs_an_async_tool_outside_any_runtime() {
    let temperature = Weather::to_tools().remove(0);
    let result = toolkit::allow_async_to_sync(|| temperature.call(json!({"city": "Oslo"})));
    assert_eq!(result, Ok(json!(-3.5)));
    assert!(
        !toolkit::async_to_sync_allowed(),
        "the opt-in ends with its scope"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opt_in_runs_an_async_tool_inside_a_multi_thread_runtime() {
    let temperature = Weather::to_tools().remove(0);
    let result = toolkit::allow_async_to_sync(|| temperature.call(json!({"city": "Oslo"})));
    assert_eq!(result, Ok(json!(-3.5)));
}

#[tokio::test(flavor = "current_thread")]
async fn the_opt_in_inside_a_current_thread_runtime_is_an_error_not_a_deadlock() {
    let temperature = Weather::to_tools().remove(0);
    let result = toolkit::allow_async_to_sync(|| temperature.dynamic_call(json!({"city": "Oslo"})));
    assert_eq!(
        result,
        json!(
            "Error: tool weather_temperature is async and cannot be run synchronously here: this \
             thread runs a current-thread tokio runtime, which would deadlock waiting on itself; \
             call acall instead"
        )
    );
}

/// Tools that wait for the test to let them go, so that "the deadline passed while the body was
/// still running" is a fact the test controls, not a race.
struct Gate {
    release: Mutex<Receiver<()>>,
    finished: Mutex<Sender<&'static str>>,
}

impl Gate {
    fn new() -> (Arc<Gate>, Sender<()>, Receiver<&'static str>) {
        let (release, wait) = channel();
        let (finished, done) = channel();
        let gate = Gate {
            release: Mutex::new(wait),
            finished: Mutex::new(finished),
        };
        (Arc::new(gate), release, done)
    }

    fn wait(&self, who: &'static str) -> &'static str {
        self.release.lock().unwrap().recv().unwrap();
        self.finished.lock().unwrap().send(who).unwrap();
        who
    }
}

#[toolset(name = "gate")]
impl Gate {
    /// Block until released
    #[tool(blocking, timeout_ms = 100)]
    fn blocking(&self) -> &'static str {
        self.wait("blocking")
    }

    /// Block until released, with no blocking marker
    #[tool(timeout_ms = 100)]
    fn plain(&self) -> &'static str {
        self.wait("plain")
    }

    /// Block the runtime thread until released unless run off it
    #[tool(blocking)]
    fn off_the_runtime(&self) -> String {
        match self
            .release
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10))
        {
            Ok(()) => "released".into(),
            Err(_) => "starved: the body ran on the runtime thread".into(),
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_blocking_tool_runs_off_the_runtime_thread() {
    let (gate, release, _done) = Gate::new();
    let tool = gate.into_tools().remove(2);
    // On a current-thread runtime the releasing task can only run while the tool's body runs
    // elsewhere.
    tokio::spawn(async move { release.send(()).unwrap() });
    assert_eq!(tool.acall(json!({})).await, Ok(json!("released")));
}

#[tokio::test]
async fn a_blocking_tool_returns_a_timeout_at_the_deadline_and_its_thread_finishes_on_its_own() {
    let (gate, release, done) = Gate::new();
    let tool = gate.into_tools().remove(0);
    assert_eq!(
        tool.dynamic_acall(json!({})).await,
        json!(
            "Error: tool gate_blocking did not finish within its time limit of 100 ms and the call \
             was abandoned; try a smaller request or a different approach"
        )
    );
    assert!(done.try_recv().is_err(), "the body is still running");
    release.send(()).unwrap();
    assert_eq!(done.recv(), Ok("blocking"), "the body ran to its end");
}

#[test]
fn a_sync_tool_with_a_timeout_called_from_sync_code_keeps_its_deadline() {
    let (gate, release, done) = Gate::new();
    let tool = gate.into_tools().remove(1);
    let err = tool.call(json!({})).unwrap_err();
    assert_eq!(
        err,
        ToolError::TimedOut {
            tool: "gate_plain".into(),
            timeout: Duration::from_millis(100)
        }
    );
    release.send(()).unwrap();
    assert_eq!(done.recv(), Ok("plain"));
}

/// Sets its flag when dropped: proves an abandoned future was cancelled, not left running.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

struct Sleeper {
    dropped: Arc<AtomicBool>,
}

#[toolset(name = "sleeper")]
impl Sleeper {
    /// Sleep forever
    #[tool(timeout_ms = 50)]
    async fn forever(&self) -> String {
        let _flag = DropFlag(Arc::clone(&self.dropped));
        std::future::pending::<()>().await;
        "woke up".into()
    }
}

#[tokio::test]
async fn an_async_tool_is_cancelled_at_its_deadline() {
    let dropped = Arc::new(AtomicBool::new(false));
    let tool = Arc::new(Sleeper {
        dropped: Arc::clone(&dropped),
    })
    .into_tools()
    .remove(0);
    assert_eq!(
        tool.acall(json!({})).await,
        Err(ToolError::TimedOut {
            tool: "sleeper_forever".into(),
            timeout: Duration::from_millis(50)
        })
    );
    assert!(
        dropped.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
}

#[test]
fn an_async_tool_called_through_the_opt_in_keeps_its_deadline_too() {
    let dropped = Arc::new(AtomicBool::new(false));
    let tool = Arc::new(Sleeper {
        dropped: Arc::clone(&dropped),
    })
    .into_tools()
    .remove(0);
    let result = toolkit::allow_async_to_sync(|| tool.dynamic_call(json!({})));
    assert_eq!(
        result,
        json!(
            "Error: tool sleeper_forever did not finish within its time limit of 50 ms and the \
             call was abandoned; try a smaller request or a different approach"
        )
    );
    assert!(dropped.load(Ordering::SeqCst));
}
