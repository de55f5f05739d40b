//! The `Toolset` trait that `#[toolset]` implements.

use std::sync::Arc;

use crate::ToolProxy;

/// A group of tools made from the `#[tool]` methods of one `impl` block.
///
/// `#[toolset]` implements it; there is nothing to write by hand.
///
/// ```
/// use std::sync::Arc;
/// use toolkit::prelude::*;
///
/// struct Greeter {
///     greeting: String,
/// }
///
/// #[toolset(name = "greet")]
/// impl Greeter {
///     /// Greet someone by name
///     #[tool]
///     fn hello(&self, name: String) -> String {
///         format!("{}, {name}!", self.greeting)
///     }
/// }
///
/// // A toolset that needs constructor arguments shares one configured instance.
/// let tools = Arc::new(Greeter { greeting: "Hi".into() }).into_tools();
/// assert_eq!(tools[0].dynamic_call(json!({"name": "Ada"})), json!("Hi, Ada!"));
/// assert_eq!(Greeter::NAME, "greet");
/// assert_eq!(Greeter::TOOL_NAMES, ["greet_hello"]);
/// ```
pub trait Toolset: Send + Sync + Sized + 'static {
    /// The toolset's name: the prefix of its tools' names.
    const NAME: &'static str;
    /// The exported tool names, in declaration order.
    const TOOL_NAMES: &'static [&'static str];

    /// One proxy per `#[tool]` method, all sharing this instance.
    fn into_tools(self: Arc<Self>) -> Vec<ToolProxy>;

    /// One proxy per `#[tool]` method, sharing one `Default` instance.
    fn to_tools() -> Vec<ToolProxy>
    where
        Self: Default,
    {
        Arc::new(Self::default()).into_tools()
    }
}
