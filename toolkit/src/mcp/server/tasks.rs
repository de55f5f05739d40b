//! The task store, one for both eras: a task-augmented `tools/call` starts its tool in the
//! background and answers at once with the task, kept here as rmcp's [`Task`] model. MCP
//! 2025-11-25 clients then read it (`tasks/get`), wait for its result (`tasks/result`), list
//! the session's tasks (`tasks/list`) or cancel one (`tasks/cancel`, which cancels the tool's
//! context), and hear each status change (`notifications/tasks/status`); 2026-07-28 clients
//! (the Tasks extension, SEP-2663) read it with its result inlined ([`Tasks::detailed`]) and
//! cancel it. The two wire shapes differ only at the edge ([`legacy`], `task_calls.rs`).
//!
//! A task is kept for its time to live from its creation (the client's `ttl`, at most
//! [`MAX_TTL`]; [`DEFAULT_TTL`] without one), running or not, then dropped (a running one is
//! cancelled); a store holds at most [`MAX_TASKS`]. Tasks belong to the session that created
//! them, or, where a request has no session (2026-07-28 over HTTP, a stateless server), to
//! the caller ([`CallerTasks`]): another session's or caller's store has none of them.
//! Finished results are held under one byte budget ([`ResultBudget`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::context::Cancellation as CancellationToken;
use rmcp::model::{
    CustomNotification, DetailedTask, ErrorCode, InputResponses, JsonObject, ServerNotification,
    Task, TaskPayload, TaskStatus,
};
use rmcp::{ErrorData, Peer, RoleServer};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::task_input::TaskInput;
pub(super) use super::task_results::{Kept, ResultBudget};

/// How long a task is kept when the client asks for no `ttl`.
pub(super) const DEFAULT_TTL: Duration = Duration::from_secs(5 * 60);
/// The longest a task is kept, whatever the client asks.
pub(super) const MAX_TTL: Duration = Duration::from_secs(60 * 60);
/// The most tasks one session holds; one more is refused until some expire.
pub(super) const MAX_TASKS: usize = 256;
/// The poll interval suggested to clients.
const POLL_INTERVAL_MS: u64 = 250;

/// What `_meta` key ties a result to its task.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

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
    outcome: watch::Receiver<Option<Outcome>>,
    done: Option<watch::Sender<Option<Outcome>>>,
    /// The session told of each status change (MCP 2025-11-25); none for a task without one.
    peer: Option<Peer<RoleServer>>,
    number: u64,
}

/// A task just created: its id, what cancels it, and what it asks its client.
pub(super) struct Created {
    pub(super) id: String,
    pub(super) cancel: CancellationToken,
    pub(super) input: Arc<TaskInput>,
}

/// What `tasks/cancel` did: cancelled the task, or found it ended already (2025-11-25 refuses
/// that; 2026-07-28 acknowledges it alike).
pub(super) enum Cancelled {
    Now,
    Already(TaskStatus),
}

impl Tasks {
    /// A new `working` task, kept `ttl_ms` (bounded). Its cancellation is its own, not the
    /// request's (rmcp cancels that once the request is answered, at once here); the store's
    /// end (the session's) cancels it.
    pub(super) fn create(
        &self,
        ttl_ms: Option<u64>,
        peer: Option<Peer<RoleServer>>,
    ) -> Result<Created, ErrorData> {
        let mut entries = self.lock();
        purge(&mut entries);
        if entries.len() >= MAX_TASKS {
            return Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                format!("this session already holds {MAX_TASKS} tasks; wait for some to expire"),
                None,
            ));
        }
        let number = entries
            .values()
            .map(|entry| entry.number)
            .max()
            .unwrap_or(0)
            + 1;
        let id = new_id();
        let ttl = ttl_ms
            .map_or(DEFAULT_TTL, Duration::from_millis)
            .min(MAX_TTL);
        let (done, outcome) = watch::channel(None);
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
            outcome,
            done: Some(done),
            peer,
            number,
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
        let Some(done) = entry.done.take() else {
            return;
        };
        entry.status = match outcome {
            Outcome::Result(_) => TaskStatus::Completed,
            Outcome::Error(_) => TaskStatus::Failed,
        };
        entry.changed(id);
        done.send_replace(Some(outcome));
    }

    /// `tasks/get` (MCP 2025-11-25): the task.
    pub(super) fn get(&self, id: &str) -> Result<Task, ErrorData> {
        let mut entries = self.lock();
        purge(&mut entries);
        entries
            .get(id)
            .map(|entry| entry.task(id))
            .ok_or_else(|| unknown(id))
    }

    /// `tasks/get` (the Tasks extension): the task with how it ended inlined, its tool's
    /// result (an `isError` one included) or the error it failed with.
    pub(super) fn detailed(&self, id: &str) -> Result<DetailedTask, ErrorData> {
        let mut entries = self.lock();
        purge(&mut entries);
        let entry = entries.get(id).ok_or_else(|| unknown(id))?;
        let payload = match (&*entry.outcome.borrow(), entry.status) {
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

    /// `tasks/result`: waits for the task to end, then its result, tied to the task in `_meta`.
    pub(super) async fn result(&self, id: &str) -> Result<Value, ErrorData> {
        let mut outcome = {
            let mut entries = self.lock();
            purge(&mut entries);
            entries.get(id).ok_or_else(|| unknown(id))?.outcome.clone()
        };
        let ended = outcome
            .wait_for(Option::is_some)
            .await
            .map_err(|_| unknown(id))?
            .clone();
        match ended {
            Some(Outcome::Result(kept)) => {
                let Some(result) = kept.value() else {
                    return Err(expired(id, kept.limit()));
                };
                let mut result =
                    result.map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
                if let Some(result) = result.as_object_mut() {
                    let meta = result.entry("_meta").or_insert_with(|| json!({}));
                    if let Some(meta) = meta.as_object_mut() {
                        meta.insert(RELATED_TASK.into(), json!({"taskId": id}));
                    }
                }
                Ok(result)
            }
            Some(Outcome::Error(error)) => Err(error),
            None => Err(unknown(id)),
        }
    }

    /// `tasks/list`: every task of the store, oldest first.
    pub(super) fn list(&self) -> Vec<Task> {
        let mut entries = self.lock();
        purge(&mut entries);
        let mut listed: Vec<(&String, &Entry)> = entries.iter().collect();
        listed.sort_by_key(|(_, entry)| entry.number);
        listed.iter().map(|(id, entry)| entry.task(id)).collect()
    }

    /// Whether the store holds no task (expired ones aside).
    fn is_empty(&self) -> bool {
        let mut entries = self.lock();
        purge(&mut entries);
        entries.is_empty()
    }

    /// `tasks/cancel`: cancels the tool's context, unless the task ended already.
    pub(super) fn cancel(&self, id: &str) -> Result<Cancelled, ErrorData> {
        let mut entries = self.lock();
        purge(&mut entries);
        let entry = entries.get_mut(id).ok_or_else(|| unknown(id))?;
        let Some(done) = entry.done.take() else {
            return Ok(Cancelled::Already(entry.status));
        };
        entry.cancel.cancel();
        entry.status = TaskStatus::Cancelled;
        entry.message = Some("cancelled by the client".into());
        entry.changed(id);
        let cancelled = ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!("task {id} was cancelled"),
            None,
        );
        done.send_replace(Some(Outcome::Error(cancelled)));
        Ok(Cancelled::Now)
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
        if let Some(Outcome::Result(kept)) = &*self.outcome.borrow()
            && kept.expired()
        {
            task.status_message = Some(expired(id, kept.limit()).message.into_owned());
        }
        task
    }

    /// Stamps a status change and tells the session, if any (`notifications/tasks/status`).
    fn changed(&mut self, id: &str) {
        self.updated_at = timestamp(SystemTime::now());
        let Some(peer) = self.peer.clone() else {
            return;
        };
        let notice = ServerNotification::CustomNotification(CustomNotification::new(
            "notifications/tasks/status",
            Some(legacy(&self.task(id))),
        ));
        tokio::spawn(async move {
            if let Err(err) = peer.send_notification(notice).await {
                tracing::debug!(%err, "notifications/tasks/status not sent");
            }
        });
    }
}

/// A task as MCP 2025-11-25 writes it: `ttl` and `pollInterval`, where the Tasks extension
/// (rmcp's [`Task`]) writes `ttlMs` and `pollIntervalMs`.
pub(super) fn legacy(task: &Task) -> Value {
    let mut json = json!({
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms,
        "pollInterval": task.poll_interval_ms,
    });
    if let Some(message) = &task.status_message {
        json["statusMessage"] = json!(message);
    }
    json
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

/// What `tasks/result` answers for a result the [`ResultBudget`] dropped.
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
    fn timestamps_are_iso_8601_in_utc() {
        let at = UNIX_EPOCH + Duration::from_millis(1_796_529_679_123);
        assert_eq!(timestamp(at), "2026-12-06T04:01:19.123Z");
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(timestamp(leap), "2000-02-29T00:00:00.000Z");
    }
}
