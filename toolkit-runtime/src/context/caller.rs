//! Who and what a call serves: the MCP session, the HTTP request's headers, the verified caller,
//! and the application's typed data.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

/// The caller a server verified, from its token.
///
/// ```
/// use toolkit::context::Caller;
///
/// let caller = Caller::new("alice").scopes(["repo:read"]);
/// assert!(caller.has_scope("repo:read"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Caller {
    /// Who: the token's subject, or the name a static token was given.
    pub principal: String,
    /// The scopes the token grants.
    pub scopes: Vec<String>,
    /// The token's claims, when it has any (a JWT).
    pub claims: Value,
}

impl Caller {
    /// A caller known by `principal`, without scopes or claims.
    pub fn new(principal: impl Into<String>) -> Self {
        Caller {
            principal: principal.into(),
            scopes: Vec::new(),
            claims: Value::Null,
        }
    }

    /// The caller with these scopes.
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The caller with these claims.
    pub fn claims(mut self, claims: Value) -> Self {
        self.claims = claims;
        self
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }
}

/// The request a call came with: its MCP session, the HTTP headers, the verified caller.
#[derive(Debug, Clone, Default)]
pub struct RequestInfo {
    /// The MCP session id, for a stateful server.
    pub session_id: Option<String>,
    /// The HTTP request's headers (empty over stdio).
    pub headers: http::HeaderMap,
    /// The caller, when the server checks tokens.
    pub caller: Option<Caller>,
}

/// Typed application data a tool reads through its context (what Pydantic AI calls deps),
/// given when the toolbox, the server or the agent is built. One value per type.
///
/// ```
/// use toolkit::context::Data;
///
/// struct Db(&'static str);
/// let data = Data::new().with(Db("postgres://..."));
/// assert_eq!(data.get::<Db>().map(|db| db.0), Some("postgres://..."));
/// assert!(data.get::<String>().is_none());
/// ```
#[derive(Clone, Default)]
pub struct Data {
    /// `None` for no data: every call in no scope makes an empty `Data`, without allocating.
    values: Option<Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>,
}

impl Data {
    /// No data.
    pub fn new() -> Self {
        Self::default()
    }

    /// The data with `value`, replacing any value of its type.
    pub fn with<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        let values = Arc::make_mut(self.values.get_or_insert_with(Default::default));
        values.insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// No data, shared: what a call made on a proxy itself passes, without allocating.
    pub(crate) fn none() -> &'static Data {
        static NONE: Data = Data { values: None };
        &NONE
    }

    /// The value of type `T`, when given.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.values
            .as_ref()?
            .get(&TypeId::of::<T>())?
            .downcast_ref::<T>()
    }

    /// Whether no data was given.
    pub fn is_empty(&self) -> bool {
        self.values.as_ref().is_none_or(|values| values.is_empty())
    }

    /// This data with `other`'s values added where this has none of their type.
    pub fn or(mut self, other: &Data) -> Self {
        if self.is_empty() {
            return other.clone();
        }
        // Copied only when `other` adds something: a scope's data over a toolbox without any
        // costs no copy per call.
        let Some(others) = other.values.as_ref().filter(|values| !values.is_empty()) else {
            return self;
        };
        // Nor when this already holds every type `other` has (an agent's run data, made once
        // over its toolbox's).
        if let Some(values) = &self.values
            && others.keys().all(|type_id| values.contains_key(type_id))
        {
            return self;
        }
        let values = Arc::make_mut(self.values.get_or_insert_with(Default::default));
        for (type_id, value) in others.iter() {
            values.entry(*type_id).or_insert_with(|| Arc::clone(value));
        }
        self
    }
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.values.as_ref().map_or(0, |values| values.len());
        f.debug_struct("Data").field("values", &count).finish()
    }
}
