//! The crate's one boxed future type.

use std::future::Future;
use std::pin::Pin;

/// A boxed future that can move between threads, as async tool bodies and object-safe async
/// traits (a model client's `chat`) return; the crate's one such type.
///
/// ```
/// use toolkit_runtime::BoxFuture;
///
/// fn answer() -> BoxFuture<'static, u32> {
///     Box::pin(async { 42 })
/// }
/// # let _ = answer();
/// ```
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
