//! Completion of prompt arguments and template parameters (MCP's `completion/complete`): a
//! [`Completer`] per argument, a fixed list or a function of what the user has typed so far.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::future::BoxFuture;

/// The most values one completion answers with, as the MCP spec caps them.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// The values a completion offers: at most [`MAX_COMPLETION_VALUES`], with how many there were
/// in all (`total`) and whether some were left out (`has_more`).
///
/// ```
/// use toolkit::completion::Completion;
///
/// let completion = Completion::new((0..150).map(|n| n.to_string()));
/// assert_eq!(completion.values.len(), 100);
/// assert_eq!((completion.total, completion.has_more), (Some(150), true));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Completion {
    /// The values, best first.
    pub values: Vec<String>,
    /// How many values there were before the cap.
    pub total: Option<u32>,
    /// Whether values were left out.
    pub has_more: bool,
}

impl Completion {
    /// The first [`MAX_COMPLETION_VALUES`] of `values`, with their total.
    pub fn new<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut values: Vec<String> = values.into_iter().map(Into::into).collect();
        let total = values.len();
        values.truncate(MAX_COMPLETION_VALUES);
        Completion {
            has_more: total > values.len(),
            total: Some(u32::try_from(total).unwrap_or(u32::MAX)),
            values,
        }
    }
}

type CompleteFn =
    dyn Fn(String, Map<String, Value>) -> BoxFuture<'static, Vec<String>> + Send + Sync;

/// Where the values of one prompt argument or template parameter come from: a fixed list,
/// filtered by what the user typed, or a function of it and of the other arguments already
/// given.
///
/// ```
/// use toolkit::completion::Completer;
/// use serde_json::Map;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let languages = Completer::values(["python", "pytorch", "rust"]);
/// assert_eq!(languages.complete("py", Map::new()).await.values, ["python", "pytorch"]);
///
/// let numbers = Completer::from_fn(|typed, _args| (1..=3).map(|n| format!("{typed}{n}")).collect::<Vec<_>>());
/// assert_eq!(numbers.complete("v", Map::new()).await.values, ["v1", "v2", "v3"]);
/// # }
/// ```
#[derive(Clone)]
pub struct Completer(Arc<CompleteFn>);

impl Completer {
    /// The values of `values` that start with what the user typed, ignoring ASCII case, in
    /// their order.
    pub fn values<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let values: Arc<[String]> = values.into_iter().map(Into::into).collect();
        Completer::from_fn(move |typed, _| {
            let typed = typed.to_ascii_lowercase();
            values
                .iter()
                .filter(|value| value.to_ascii_lowercase().starts_with(&typed))
                .cloned()
                .collect::<Vec<_>>()
        })
    }

    /// Values from a function of what the user typed and the other arguments already given
    /// (strings, by name).
    pub fn from_fn<F, I, S>(complete: F) -> Self
    where
        F: Fn(&str, &Map<String, Value>) -> I + Send + Sync + 'static,
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Completer(Arc::new(move |typed, args| {
            let values = complete(&typed, &args)
                .into_iter()
                .map(Into::into)
                .collect();
            Box::pin(async move { values })
        }))
    }

    /// Values from an async function; see [`from_fn`](Self::from_fn).
    pub fn from_async_fn<F, Fut, I, S>(complete: F) -> Self
    where
        F: Fn(String, Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = I> + Send + 'static,
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Completer(Arc::new(move |typed, args| {
            let future = complete(typed, args);
            Box::pin(async move { future.await.into_iter().map(Into::into).collect() })
        }))
    }

    /// The completion of `typed`, given the other arguments, capped at
    /// [`MAX_COMPLETION_VALUES`].
    pub fn complete(
        &self,
        typed: &str,
        args: Map<String, Value>,
    ) -> BoxFuture<'static, Completion> {
        let future = (self.0)(typed.to_owned(), args);
        Box::pin(async move { Completion::new(future.await) })
    }
}

impl fmt::Debug for Completer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Completer(..)")
    }
}
