//! The `Toolset` trait that `#[toolset]` implements.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::registry::ToolsetRegistration;
use crate::{PromptProxy, ResourceProxy, ResourceTemplateProxy, ToolProxy};

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

    /// One proxy per `#[resource]` method with a fixed URI, all sharing this instance; none
    /// unless the block has some.
    fn into_resources(self: Arc<Self>) -> Vec<ResourceProxy> {
        Vec::new()
    }

    /// One proxy per `#[resource]` method with a URI template, all sharing this instance; none
    /// unless the block has some.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolkit::prelude::*;
    ///
    /// struct Users;
    ///
    /// #[toolset]
    /// impl Users {
    ///     /// A user's profile
    ///     #[resource(uri = "users://{id}/profile", mime_type = "text/plain")]
    ///     fn profile(&self, #[arg(complete = ["7", "42"])] id: u32) -> String {
    ///         format!("user {id}")
    ///     }
    /// }
    ///
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let templates = Arc::new(Users).into_resource_templates();
    /// let read = templates[0].read("users://42/profile").await.unwrap();
    /// assert_eq!(read[0].text.as_deref(), Some("user 42"));
    /// assert!(templates[0].read("users://ada/profile").await.is_err()); // not a u32
    /// # });
    /// ```
    fn into_resource_templates(self: Arc<Self>) -> Vec<ResourceTemplateProxy> {
        Vec::new()
    }

    /// One proxy per `#[prompt]` method, all sharing this instance; none unless the block has
    /// some.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolkit::prelude::*;
    ///
    /// struct Reviews;
    ///
    /// #[toolset]
    /// impl Reviews {
    ///     /// Ask for a code review
    ///     #[prompt]
    ///     fn review(&self, code: String, focus: Option<String>) -> Vec<PromptMessage> {
    ///         let focus = focus.unwrap_or_else(|| "anything".into());
    ///         vec![PromptMessage::user(format!("Review this, looking at {focus}:\n{code}"))]
    ///     }
    /// }
    ///
    /// let prompts = Arc::new(Reviews).into_prompts();
    /// let arguments = &prompts[0].definition().arguments;
    /// assert!(arguments[0].required && !arguments[1].required);
    /// ```
    fn into_prompts(self: Arc<Self>) -> Vec<PromptProxy> {
        Vec::new()
    }

    /// One proxy per `#[tool]` method, sharing one `Default` instance.
    fn to_tools() -> Vec<ToolProxy>
    where
        Self: Default,
    {
        Arc::new(Self::default()).into_tools()
    }
}

/// The registration `#[toolset]` submits to `inventory`, in a `static`: a `const fn`, since the
/// field that builds the tools is not public.
pub const fn toolset_registration(
    name: &'static str,
    type_name: &'static str,
    tool_names: &'static [&'static str],
    make_tools: fn() -> Option<Vec<ToolProxy>>,
) -> ToolsetRegistration {
    ToolsetRegistration {
        name,
        type_name,
        tool_names,
        make_tools,
    }
}

/// Builds a type's tools when it is `Default`, through autoref specialization:
/// `(&DefaultProbe::<T>::new()).make_tools()` picks [`ViaDefault`] when `T: Default` and
/// [`NoDefault`] otherwise.
pub struct DefaultProbe<T>(PhantomData<T>);

impl<T> DefaultProbe<T> {
    /// The probe for `T`.
    pub const fn new() -> Self {
        DefaultProbe(PhantomData)
    }
}

impl<T> Default for DefaultProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The tools of a `Default` toolset, made from its default instance.
pub trait ViaDefault {
    /// `Some` of the tools.
    fn make_tools(&self) -> Option<Vec<ToolProxy>>;
}

impl<T: Toolset + Default> ViaDefault for &DefaultProbe<T> {
    fn make_tools(&self) -> Option<Vec<ToolProxy>> {
        Some(T::to_tools())
    }
}

/// A toolset that is not `Default`: no tools made for the registry.
pub trait NoDefault {
    /// `None`.
    fn make_tools(&self) -> Option<Vec<ToolProxy>>;
}

impl<T> NoDefault for DefaultProbe<T> {
    fn make_tools(&self) -> Option<Vec<ToolProxy>> {
        None
    }
}
