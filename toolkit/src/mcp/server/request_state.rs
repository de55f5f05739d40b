//! The `requestState` of a multi-round call (MCP 2026-07-28, [`input_required`](super::input_required)):
//! sealed with rmcp's [`RequestStateCodec`] (HMAC-SHA256: signed, not encrypted, so the client
//! can read what it holds, the answers it gave among them), bound to the caller and to the call,
//! expiring, bounded in size, and taken once per process.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{ErrorCode, RequestStateCodec, RequestStateError, SealOptions};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::auth::caller_of;
use super::sessions::SESSION_ID;
use crate::ToolCall;

/// How a server seals the `requestState` of its multi-round calls (MCP 2026-07-28):
/// the key, how long a state lives, and how large one may be.
///
/// By default the key is random, made once per process: a state then opens only on the
/// process that sealed it. **A fleet behind a load balancer must give every replica the same
/// key**, or an answer reaching another replica is refused as forged.
///
/// ```
/// use std::time::Duration;
/// use toolkit::mcp::{McpServer, RequestStateOptions};
///
/// let secret = [7_u8; 32]; // from the fleet's secret store, the same on every replica
/// let options = RequestStateOptions::new()
///     .key(secret)
///     .expect("32 bytes or more")
///     .ttl(Duration::from_secs(300))
///     .max_bytes(32 << 10);
/// let server = McpServer::new(Vec::new()).with_request_state(options);
/// # let _ = server;
/// ```
#[derive(Clone, Default)]
pub struct RequestStateOptions {
    key: Option<Arc<[u8]>>,
    ttl: Option<Duration>,
    max_bytes: Option<usize>,
}

impl std::fmt::Debug for RequestStateOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestStateOptions")
            .field("key", &self.key.as_ref().map(|_| "redacted"))
            .field("ttl", &self.ttl)
            .field("max_bytes", &self.max_bytes)
            .finish()
    }
}

/// A `requestState` key shorter than [`RequestStateCodec::MIN_KEY_LENGTH`] (32) bytes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a requestState key needs at least 32 bytes, this one has {0}")]
pub struct KeyTooShort(pub usize);

impl RequestStateOptions {
    /// How long a state lives unless [`ttl`](Self::ttl) says otherwise: 15 minutes, time for a
    /// person to read a question and answer it.
    pub const DEFAULT_TTL: Duration = Duration::from_secs(15 * 60);
    /// How large a state may be unless [`max_bytes`](Self::max_bytes) says otherwise: 64 KiB.
    /// The state holds the answers of the rounds before the last, so this bounds them too.
    pub const DEFAULT_MAX_BYTES: usize = 64 << 10;

    /// The defaults: a random key per process, [`DEFAULT_TTL`](Self::DEFAULT_TTL),
    /// [`DEFAULT_MAX_BYTES`](Self::DEFAULT_MAX_BYTES).
    pub fn new() -> Self {
        Self::default()
    }

    /// The HMAC key states are sealed with, at least 32 bytes: the same on every replica of a
    /// fleet.
    pub fn key(mut self, key: impl AsRef<[u8]>) -> Result<Self, KeyTooShort> {
        let key = key.as_ref();
        if key.len() < RequestStateCodec::MIN_KEY_LENGTH {
            return Err(KeyTooShort(key.len()));
        }
        self.key = Some(Arc::from(key));
        Ok(self)
    }

    /// How long a state may wait for its answers; an older one is refused.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The most bytes a state may have: a larger one sent back is refused unopened, and a
    /// call whose answers would not fit ends with an error.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = Some(bytes);
        self
    }
}

/// The most states one process remembers as taken; past it, a new answer is refused as busy
/// rather than forgetting one still valid (which would let it be replayed).
const MAX_TAKEN: usize = 100_000;

/// Seals and opens the states of one server, and remembers which were taken.
pub(crate) struct Sealer {
    /// `Err` when no key was given and the system had no randomness for one.
    codec: Result<RequestStateCodec, String>,
    ttl: Duration,
    max_bytes: usize,
    /// The nonces of the states taken and until when each would open.
    taken: Mutex<HashMap<String, Instant>>,
}

impl Sealer {
    pub(crate) fn new(options: &RequestStateOptions) -> Self {
        let codec = match &options.key {
            Some(key) => RequestStateCodec::try_new(key.to_vec()).map_err(|err| err.to_string()),
            None => random_bytes::<32>()
                .map_err(|err| format!("no key for requestState: {err}"))
                .and_then(|key| {
                    RequestStateCodec::try_new(key.to_vec()).map_err(|err| err.to_string())
                }),
        };
        Sealer {
            codec,
            ttl: options.ttl.unwrap_or(RequestStateOptions::DEFAULT_TTL),
            max_bytes: options
                .max_bytes
                .unwrap_or(RequestStateOptions::DEFAULT_MAX_BYTES),
            taken: Mutex::default(),
        }
    }

    fn codec(&self) -> Result<&RequestStateCodec, ErrorData> {
        self.codec
            .as_ref()
            .map_err(|why| ErrorData::internal_error(why.clone(), None))
    }

    pub(super) fn seal(&self, sealed: &Sealed) -> Result<String, ErrorData> {
        let options = SealOptions::new().ttl(self.ttl);
        let state = (self.codec()?.seal_json_with(sealed, &options))
            .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
        if state.len() > self.max_bytes {
            return Err(ErrorData::internal_error(
                format!(
                    "the answers this call has gathered need a requestState of {} bytes, over \
                     the {} this server allows (RequestStateOptions::max_bytes)",
                    state.len(),
                    self.max_bytes
                ),
                None,
            ));
        }
        Ok(state)
    }

    /// The state sent back, opened and checked: sealed here (or with the fleet's key), not
    /// expired, the caller's and this call's, and not taken before in this process.
    pub(super) fn open(&self, state: &str, binding: &Binding) -> Result<Sealed, ErrorData> {
        if state.len() > self.max_bytes {
            return Err(refused(format!(
                "requestState is {} bytes, over the {} this server accepts",
                state.len(),
                self.max_bytes
            )));
        }
        let sealed: Sealed = self.codec()?.open_json(state).map_err(|err| match err {
            RequestStateError::Expired => refused(format!(
                "requestState has expired (a state lives {} s): call the tool again",
                self.ttl.as_secs()
            )),
            // One answer for every other failure, as rmcp asks: which check failed is no
            // business of whoever sent a forged state.
            _ => refused(
                "requestState was not sealed by this server or was changed (replicas of one \
                 fleet must share one key: RequestStateOptions::key)"
                    .to_owned(),
            ),
        })?;
        if sealed.caller != binding.caller {
            return Err(refused(
                "requestState was issued to another caller".to_owned(),
            ));
        }
        if sealed.call != binding.call {
            return Err(refused(
                "requestState was issued for another call: the tool or its arguments differ"
                    .to_owned(),
            ));
        }
        self.mark_taken(&sealed.nonce)?;
        Ok(sealed)
    }

    /// Marks a state taken, or refuses it as taken before. Entries leave once their state
    /// has expired, when it would be refused anyway.
    fn mark_taken(&self, nonce: &str) -> Result<(), ErrorData> {
        let mut taken = self.taken.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        if taken.len() >= MAX_TAKEN {
            taken.retain(|_, until| *until > now);
        }
        if taken.get(nonce).is_some_and(|until| *until > now) {
            return Err(refused(
                "requestState has been used already: each state answers one round once".to_owned(),
            ));
        }
        if taken.len() >= MAX_TAKEN {
            return Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                "too many multi-round calls answered within a state's lifetime: try again later",
                None,
            ));
        }
        taken.insert(nonce.to_owned(), now + self.ttl);
        Ok(())
    }
}

pub(super) fn refused(message: String) -> ErrorData {
    ErrorData::invalid_params(message, None)
}

pub(super) fn random_bytes<const N: usize>() -> Result<[u8; N], getrandom::Error> {
    let mut bytes = [0; N];
    getrandom::fill(&mut bytes)?;
    Ok(bytes)
}

/// What a state holds, sealed: whose call it is, which round comes next, and the answers so
/// far in the order the body asked.
#[derive(Serialize, Deserialize)]
pub(super) struct Sealed {
    pub(super) caller: String,
    pub(super) call: String,
    pub(super) round: u32,
    pub(super) nonce: String,
    pub(super) answers: Vec<Answered>,
}

#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Answered {
    pub(super) key: String,
    pub(super) answer: Value,
}

/// Whose call a state belongs to, and which call.
pub(super) struct Binding {
    /// The verified principal when the server checks tokens, else the session, else the name
    /// and version the client gives (which any client can claim: authenticate callers to make
    /// the binding mean something).
    pub(super) caller: String,
    /// The tool's name and the SHA-256 of its arguments (keys sorted).
    pub(super) call: String,
}

impl Binding {
    pub(super) fn of(context: &RequestContext<RoleServer>, call: &ToolCall) -> Self {
        let session = (context.extensions.get::<axum::http::request::Parts>())
            .and_then(|parts| parts.headers.get(SESSION_ID))
            .and_then(|value| value.to_str().ok());
        let caller = match (caller_of(context), session, context.client_info()) {
            (Some(caller), _, _) => format!("principal:{}", caller.principal),
            (None, Some(session), _) => format!("session:{session}"),
            (None, None, Some(client)) => format!("client:{}@{}", client.name, client.version),
            (None, None, None) => "anonymous".to_owned(),
        };
        let mut digest = Sha256::new();
        write_canonical(&mut digest, &call.args);
        let mut hex = String::with_capacity(64);
        for byte in digest.finalize() {
            let _ = write!(hex, "{byte:02x}");
        }
        Binding {
            caller,
            call: format!("{}:{hex}", call.name),
        }
    }
}

/// `value` as JSON with every object's keys sorted, so that a client re-sending the same
/// arguments in another key order makes the same digest.
fn write_canonical(digest: &mut Sha256, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            digest.update(b"{");
            for key in keys {
                digest.update(Value::String(key.clone()).to_string().as_bytes());
                digest.update(b":");
                write_canonical(digest, &map[key.as_str()]);
                digest.update(b",");
            }
            digest.update(b"}");
        }
        Value::Array(items) => {
            digest.update(b"[");
            for item in items {
                write_canonical(digest, item);
                digest.update(b",");
            }
            digest.update(b"]");
        }
        other => digest.update(other.to_string().as_bytes()),
    }
}
