//! The task store of the Tasks extension (MCP 2026-07-28, SEP-2663): a `tools/call` the server
//! makes a task starts its tool in the background and answers at once with the task, kept here
//! as rmcp's [`Task`] model; the client reads it with its result inlined once it has ended
//! ([`Tasks::detailed`]), answers its questions ([`Tasks::update`]) or cancels it
//! ([`Tasks::cancel`], which cancels the tool's context).
//!
//! A task is kept for its time to live from its creation (at most [`MAX_TTL`]; [`DEFAULT_TTL`]
//! unless asked otherwise), running or not, then dropped (a running one is cancelled); a store
//! holds at most [`MAX_TASKS`]. Tasks belong to the connection that created them (stdio), or,
//! over HTTP, to the caller ([`CallerTasks`]): another connection's or caller's store has none
//! of them. Finished results are held under one byte budget ([`ResultBudget`]).
//!
//! Why not rmcp 3.11's own `task_manager::TaskManager`, which answers the same three methods:
//! it holds every finished result whole until one more time to live has passed, and any number
//! of tasks, so a client that starts tasks of large results holds the server's memory (512 of
//! 1 MB results held 537 MB before the budget); and its cancellation is only asked of the
//! operation, so a tool that never looks runs on. The upstream report, as it would be filed:
//! "TaskManager: a bound on the tasks one manager holds (refusing the next with an error), a
//! byte budget on retained terminal results (evicting the oldest first), and an abort of an
//! operation that has not settled within a grace period after `tasks/cancel`." With those,
//! this store would be rmcp's, and only [`CallerTasks`] (one store per caller) would stay.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::context::Cancellation as CancellationToken;
use rmcp::ErrorData;
use rmcp::model::{
    DetailedTask, ErrorCode, InputResponses, JsonObject, Task, TaskPayload, TaskStatus,
};
use serde_json::Value;

use super::task_input::TaskInput;
use super::task_results::Kept;
pub(super) use super::task_results::ResultBudget;

/// How long a task is kept unless asked otherwise.
const DEFAULT_TTL: Duration = Duration::from_secs(5 * 60);
/// The longest a task is kept, whatever the client asks.
const MAX_TTL: Duration = Duration::from_secs(60 * 60);
/// The most tasks one session holds; one more is refused until some expire.
const MAX_TASKS: usize = 256;
/// The poll interval suggested to clients.
const POLL_INTERVAL_MS: u64 = 250;

/// How a task ended: the tool call's result (`completed`, an `isError` result included), or
/// the JSON-RPC error it failed with.
#[derive(Clone)]
pub(super) enum Outcome {
    Result(Arc<Kept>),
    Error(ErrorData),
}

/// The tasks of one session.
#[derive(Default)]
pub(super) struct Tasks {
    entries: Mutex<HashMap<String, Entry>>,
}

struct Entry {
    status: TaskStatus,
    message: Option<String>,
    created_at: String,
    updated_at: String,
    created: Instant,
    ttl: Duration,
    cancel: CancellationToken,
    /// What the task's body waits on its client for (MCP 2026-07-28).
    input: Arc<TaskInput>,
    /// How it ended; `None` while it runs.
    outcome: Option<Outcome>,
}

/// A task just created: its id, what cancels it, and what it asks its client.
pub(super) struct Created {
    pub(super) id: String,
    pub(super) cancel: CancellationToken,
    pub(super) input: Arc<TaskInput>,
}

impl Tasks {
    /// A new `working` task, kept `ttl_ms` (bounded). Its cancellation is its own, not the
    /// request's (rmcp cancels that once the request is answered, at once here); the store's
    /// end (the session's) cancels it.
    pub(super) fn create(&self, ttl_ms: Option<u64>) -> Result<Created, ErrorData> {
        let mut entries = self.lock();
        purge(&mut entries);
        if entries.len() >= MAX_TASKS {
            return Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("this session already holds {MAX_TASKS} tasks; wait for some to expire"),
                None,
            ));
        }
        let id = new_id();
        let ttl = ttl_ms
            .map_or(DEFAULT_TTL, Duration::from_millis)
            .min(MAX_TTL);
        let now = timestamp(SystemTime::now());
        let entry = Entry {
            status: TaskStatus::Working,
            message: None,
            created_at: now.clone(),
            updated_at: now,
            created: Instant::now(),
            ttl,
            cancel: CancellationToken::new(),
            input: Arc::default(),
            outcome: None,
        };
        let created = Created {
            id: id.clone(),
            cancel: entry.cancel.clone(),
            input: Arc::clone(&entry.input),
        };
        entries.insert(id, entry);
        Ok(created)
    }

    /// Forgets task `id`, whose call answered before it became a task: no client was told
    /// of it.
    pub(super) fn discard(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Records how task `id` ended (unless it was cancelled or dropped first).
    pub(super) fn finish(&self, id: &str, outcome: Outcome) {
        let mut entries = self.lock();
        let Some(entry) = entries.get_mut(id) else {
            return;
        };
        if entry.outcome.is_some() {
            return;
        }
        entry.status = match outcome {
            Outcome::Result(_) => TaskStatus::Completed,
            Outcome::Error(_) => TaskStatus::Failed,
        };
        entry.changed();
        entry.outcome = Some(outcome);
    }

    /// `tasks/get` (the Tasks extension): the task with how it ended inlined, its tool's
    /// result (an `isError` one included) or the error it failed with.
    pub(super) fn detailed(&self, id: &str) -> Result<DetailedTask, ErrorData> {
        let mut entries = self.lock();
        purge(&mut entries);
        let entry = entries.get(id).ok_or_else(|| unknown(id))?;
        let payload = match (&entry.outcome, entry.status) {
            (_, TaskStatus::Cancelled) => TaskPayload::Cancelled,
            (Some(Outcome::Result(kept)), _) => match kept.value() {
                Some(Ok(Value::Object(result))) => TaskPayload::Completed { result },
                Some(Ok(_)) => {
                    failed_with(&ErrorData::internal_error("a result not an object", None))
                }
                Some(Err(err)) => failed_with(&ErrorData::internal_error(err.to_string(), None)),
                None => failed_with(&expired(id, kept.limit())),
            },
            (Some(Outcome::Error(error)), _) => failed_with(error),
            (None, _) => match entry.input.pending() {
                Some(input_requests) => TaskPayload::InputRequired { input_requests },
                None => TaskPayload::Working,
            },
        };
        Ok(DetailedTask::new(entry.task(id), payload))
    }

    /// `tasks/update` (the Tasks extension): the answers to what task `id` waits on.
    pub(super) fn update(&self, id: &str, responses: InputResponses) -> Result<(), ErrorData> {
        let input = (self.lock().get(id)).map(|entry| Arc::clone(&entry.input));
        input.ok_or_else(|| unknown(id))?.answer(responses);
        Ok(())
    }

    /// Whether the store holds no task (expired ones aside).
    fn is_empty(&self) -> bool {
        let mut entries = self.lock();
        purge(&mut entries);
        entries.is_empty()
    }

    /// `tasks/cancel`: cancels the tool's context, unless the task ended already (the
    /// extension acknowledges both alike); an unknown id is an error.
    pub(super) fn cancel(&self, id: &str) -> Result<(), ErrorData> {
        let mut entries = self.lock();
        purge(&mut entries);
        let entry = entries.get_mut(id).ok_or_else(|| unknown(id))?;
        if entry.outcome.is_some() {
            return Ok(());
        }
        entry.cancel.cancel();
        entry.status = TaskStatus::Cancelled;
        entry.message = Some("cancelled by the client".into());
        entry.changed();
        let cancelled = ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!("task {id} was cancelled"),
            None,
        );
        entry.outcome = Some(Outcome::Error(cancelled));
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panic while holding the lock leaves the map whole (no code here panics mid-change).
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The tasks of requests that have no session (2026-07-28 over HTTP, a stateless server): a
/// store per caller, the principal its bearer token verified, and one for every caller of a
/// server without tokens. Task ids are random v4 UUIDs, so there a task is reached only by the
/// client that was told its id.
#[derive(Default)]
pub(super) struct CallerTasks {
    anonymous: Arc<Tasks>,
    verified: Mutex<Verified>,
}

#[derive(Default)]
struct Verified {
    stores: HashMap<String, Arc<Tasks>>,
    /// The length at which the empty stores are swept out next.
    sweep_at: usize,
}

impl CallerTasks {
    /// The store of `principal` (`None`: a caller no token named).
    pub(super) fn of(&self, principal: Option<&str>) -> Arc<Tasks> {
        let Some(principal) = principal else {
            return Arc::clone(&self.anonymous);
        };
        let mut verified = self.verified.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(store) = verified.stores.get(principal) {
            return Arc::clone(store);
        }
        // Sweeping the callers whose tasks are all gone when the map has doubled keeps it
        // within twice the callers with tasks, at a constant cost per new caller.
        if verified.stores.len() >= verified.sweep_at {
            verified.stores.retain(|_, store| !store.is_empty());
            verified.sweep_at = (2 * verified.stores.len()).max(64);
        }
        let store = Arc::<Tasks>::default();
        verified
            .stores
            .insert(principal.to_owned(), Arc::clone(&store));
        store
    }
}

impl Drop for Tasks {
    /// The session is over: its running tasks have no one left to report to.
    fn drop(&mut self) {
        for entry in self.lock().values() {
            entry.cancel.cancel();
        }
    }
}

impl Entry {
    /// The task as rmcp models it.
    fn task(&self, id: &str) -> Task {
        let ttl = u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX);
        let mut task = Task::new(id, self.status, &self.created_at, &self.updated_at)
            .with_ttl_ms(ttl)
            .with_poll_interval_ms(POLL_INTERVAL_MS);
        task.status_message.clone_from(&self.message);
        if let Some(Outcome::Result(kept)) = &self.outcome
            && kept.expired()
        {
            task.status_message = Some(expired(id, kept.limit()).message.into_owned());
        }
        task
    }

    /// Stamps a status change.
    fn changed(&mut self) {
        self.updated_at = timestamp(SystemTime::now());
    }
}

/// A failed task's payload: the JSON-RPC error inlined.
fn failed_with(error: &ErrorData) -> TaskPayload {
    let error = match serde_json::to_value(error) {
        Ok(Value::Object(error)) => error,
        _ => JsonObject::new(),
    };
    TaskPayload::Failed { error }
}

/// Drops the tasks whose time to live is over, cancelling those still running.
fn purge(entries: &mut HashMap<String, Entry>) {
    let now = Instant::now();
    entries.retain(|_, entry| {
        let keep = now.duration_since(entry.created) < entry.ttl;
        if !keep {
            entry.cancel.cancel();
        }
        keep
    });
}

/// What `tasks/get` says of a result the [`ResultBudget`] dropped.
fn expired(id: &str, limit: usize) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "the result of task {id} expired before its time to live: the server keeps at \
             most {limit} bytes of finished task results, and newer ones took its place"
        ),
        None,
    )
}

fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("no task {id} in this session"), None)
}

/// `time` as ISO 8601 in UTC, to the millisecond (`2026-12-06T04:01:19.123Z`).
/// A task's id: a random (v4) UUID, so no one guesses another session's tasks from their own.
fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil, for days since 1970-01-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_random_v4_uuids() {
        let ids: Vec<String> = (0..64).map(|_| new_id()).collect();
        for id in &ids {
            let parsed = uuid::Uuid::parse_str(id).expect("a UUID");
            assert_eq!(parsed.get_version(), Some(uuid::Version::Random), "{id}");
            assert_eq!(parsed.hyphenated().to_string(), *id);
        }
        let distinct: std::collections::HashSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
    }

    #[test]
    fn a_store_holds_at_most_max_tasks_and_refuses_the_next_one_with_a_reason() {
        let tasks = Tasks::default();
        for _ in 0..MAX_TASKS {
            tasks.create(None).expect("room for it");
        }
        let refused = tasks.create(None).err().expect("no room");
        assert_eq!(
            refused.message,
            "this session already holds 256 tasks; wait for some to expire"
        );
    }

    #[test]
    fn a_tasks_time_to_live_is_bounded_and_once_over_it_is_dropped_and_cancelled() {
        let tasks = Tasks::default();
        let ttl = |asked| {
            let created = tasks.create(asked).expect("created");
            tasks.detailed(&created.id).expect("the task").task.ttl_ms
        };
        assert_eq!(ttl(None), Some(300_000));
        assert_eq!(ttl(Some(u64::MAX)), Some(3_600_000));
        let short = tasks.create(Some(1)).expect("created");
        std::thread::sleep(Duration::from_millis(5));
        let gone = tasks.detailed(&short.id).expect_err("dropped");
        assert_eq!(
            gone.message,
            format!("no task {} in this session", short.id)
        );
        assert!(
            short.cancel.is_cancelled(),
            "its tool's context was cancelled"
        );
    }

    #[test]
    fn timestamps_are_iso_8601_in_utc() {
        let at = UNIX_EPOCH + Duration::from_millis(1_796_529_679_123);
        assert_eq!(timestamp(at), "2026-12-06T04:01:19.123Z");
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(timestamp(leap), "2000-02-29T00:00:00.000Z");
    }
}
