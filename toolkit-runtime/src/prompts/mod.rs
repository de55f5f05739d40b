//! Prompts a server offers beside its tools (MCP's `prompts/*`): templates of messages a user
//! picks, filled from string arguments ([`PromptProxy`]).

use std::future::Future;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::completion::Completer;
use crate::context::{CallScope, Role, ToolContext};
use crate::resources::{RequestError, guarded};
use crate::{BoxFuture, Content, Icon};

/// One message of a prompt: a role ([`Role`], as sampling's messages have) and one content block (text, an image, audio, an embedded
/// resource or a resource link).
///
/// ```
/// use toolkit::prelude::*;
///
/// let message = PromptMessage::user("Review this code");
/// assert_eq!(
///     serde_json::to_value(&message).unwrap(),
///     json!({"role": "user", "content": {"type": "text", "text": "Review this code"}})
/// );
/// let image = PromptMessage::assistant(Image::png([1, 2, 3]));
/// assert_eq!(serde_json::to_value(&image).unwrap()["content"]["type"], "image");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What it says.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message from the assistant.
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content: content.into(),
        }
    }
}

/// What a prompt's body may return: text (one user message), one [`PromptMessage`] or several,
/// or `Result<T, E>` of any of them with `E: Display` (a [`RequestError`] keeps its code).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a prompt: return text or `PromptMessage`s",
    note = "a prompt returns `String`, `PromptMessage`, `Vec<PromptMessage>`, or `Result<T, E>` of one with `E: Display`"
)]
pub trait PromptReturn {
    /// The messages.
    fn into_messages(self) -> Result<Vec<PromptMessage>, RequestError>;
}

impl PromptReturn for String {
    fn into_messages(self) -> Result<Vec<PromptMessage>, RequestError> {
        Ok(vec![PromptMessage::user(self)])
    }
}

impl PromptReturn for &'static str {
    fn into_messages(self) -> Result<Vec<PromptMessage>, RequestError> {
        Ok(vec![PromptMessage::user(self)])
    }
}

impl PromptReturn for PromptMessage {
    fn into_messages(self) -> Result<Vec<PromptMessage>, RequestError> {
        Ok(vec![self])
    }
}

impl PromptReturn for Vec<PromptMessage> {
    fn into_messages(self) -> Result<Vec<PromptMessage>, RequestError> {
        Ok(self)
    }
}

impl<T: PromptReturn, E: std::fmt::Display + 'static> PromptReturn for Result<T, E> {
    fn into_messages(self) -> Result<Vec<PromptMessage>, RequestError> {
        self.map_err(RequestError::from_error)?.into_messages()
    }
}

/// One argument of a prompt, as `prompts/list` shows it. Its value always arrives as a string.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// A name for people.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// Whether a get without it is refused.
    pub required: bool,
}

impl PromptArgument {
    /// A required argument.
    pub fn required(name: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: None,
            required: true,
        }
    }

    /// An optional argument.
    pub fn optional(name: impl Into<String>) -> Self {
        PromptArgument {
            required: false,
            ..PromptArgument::required(name)
        }
    }

    /// With a description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With a name for people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// Everything about a prompt but its body: what `prompts/list` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptDefinition {
    /// Its name.
    pub name: String,
    /// A name for people.
    pub title: Option<String>,
    /// What it is for.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
    /// Icons a client may show for it.
    pub icons: Vec<Icon>,
}

impl PromptDefinition {
    /// A prompt called `name`, without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        PromptDefinition {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            icons: Vec::new(),
        }
    }

    /// With one more argument.
    pub fn argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.push(argument);
        self
    }
}

crate::resources::named_setters!(PromptDefinition);

type GetFn = dyn Fn(Map<String, Value>) -> BoxFuture<'static, Result<Vec<PromptMessage>, RequestError>>
    + Send
    + Sync;

/// A prompt: its definition and the body that fills it from its arguments (strings, by name;
/// [`arg`](crate::resources::arg) reads one as a typed value). Cheap to clone.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::PromptProxy;
/// use toolkit::prompts::{PromptArgument, PromptDefinition};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let def = PromptDefinition::new("review")
///     .description("Review code")
///     .argument(PromptArgument::required("code"));
/// let review = PromptProxy::from_fn(def, |args| {
///     format!("Please review:\n{}", args["code"].as_str().unwrap_or_default())
/// });
/// let args = json!({"code": "fn main() {}"}).as_object().cloned().unwrap();
/// let messages = review.get(args).await.unwrap();
/// assert_eq!(messages[0].content.as_text(), Some("Please review:\nfn main() {}"));
/// let missing = review.get(Default::default()).await.unwrap_err();
/// assert_eq!(missing.to_string(), "Missing required argument: code");
/// # }
/// ```
#[derive(Clone)]
pub struct PromptProxy {
    definition: Arc<PromptDefinition>,
    get: Arc<GetFn>,
    completers: Vec<(String, Completer)>,
    takes_context: bool,
}

impl PromptProxy {
    /// A prompt filled by a sync body.
    pub fn from_fn<F, R>(definition: PromptDefinition, body: F) -> Self
    where
        F: Fn(Map<String, Value>) -> R + Send + Sync + 'static,
        R: PromptReturn,
    {
        let get = move |args| {
            let messages = body(args).into_messages();
            let future: BoxFuture<'static, _> = Box::pin(std::future::ready(messages));
            future
        };
        PromptProxy::from_parts(definition, Arc::new(get))
    }

    /// A prompt filled by an async body.
    pub fn from_async_fn<F, Fut, R>(definition: PromptDefinition, body: F) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: PromptReturn,
    {
        let get = move |args| {
            let future = body(args);
            let messages: BoxFuture<'static, _> =
                Box::pin(async move { future.await.into_messages() });
            messages
        };
        PromptProxy::from_parts(definition, Arc::new(get))
    }

    /// A prompt filled by an async body that may ask the client (`ctx.elicit`, `ctx.sample`,
    /// `ctx.roots`), as a tool does: its context is named after the prompt and made from the
    /// scope the prompt is filled in (an MCP server's `prompts/get`), and asks nobody outside
    /// one.
    ///
    /// ```
    /// use toolkit::PromptProxy;
    /// use toolkit::prelude::*;
    /// use toolkit::prompts::PromptDefinition;
    ///
    /// #[derive(serde::Deserialize, toolkit::schemars::JsonSchema)]
    /// struct Topic {
    ///     topic: String,
    /// }
    ///
    /// let brainstorm = PromptProxy::from_context_fn(
    ///     PromptDefinition::new("brainstorm"),
    ///     |_args, ctx| async move {
    ///         match ctx.elicit::<Topic>("What about?").await {
    ///             Ok(Elicited::Accepted(Topic { topic })) => format!("Ideas about {topic}"),
    ///             _ => "Ideas about anything".to_owned(),
    ///         }
    ///     },
    /// );
    /// assert!(brainstorm.takes_context());
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let messages = brainstorm.get(Default::default()).await.unwrap();
    /// assert_eq!(messages[0].content.as_text(), Some("Ideas about anything"));
    /// # });
    /// ```
    pub fn from_context_fn<F, Fut, R>(definition: PromptDefinition, body: F) -> Self
    where
        F: Fn(Map<String, Value>, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: PromptReturn,
    {
        let name: Arc<str> = Arc::from(definition.name.as_str());
        let body = Arc::new(body);
        let get = move |args| {
            let (name, body) = (Arc::clone(&name), Arc::clone(&body));
            // The scope is read when the body first runs, inside the one the server set.
            let messages: BoxFuture<'static, _> = Box::pin(async move {
                let scope = CallScope::current().unwrap_or_default();
                let ctx = scope.context_for(&name, None);
                body(args, ctx).await.into_messages()
            });
            messages
        };
        let mut prompt = PromptProxy::from_parts(definition, Arc::new(get));
        prompt.takes_context = true;
        prompt
    }

    fn from_parts(definition: PromptDefinition, get: Arc<GetFn>) -> Self {
        PromptProxy {
            definition: Arc::new(definition),
            get,
            completers: Vec::new(),
            takes_context: false,
        }
    }

    /// Whether its body takes a context ([`from_context_fn`](Self::from_context_fn)): only
    /// then does a server give it one.
    pub fn takes_context(&self) -> bool {
        self.takes_context
    }

    /// With the completer of argument `argument` (replacing one it had).
    pub fn with_completer(mut self, argument: impl Into<String>, completer: Completer) -> Self {
        let argument = argument.into();
        self.completers.retain(|(name, _)| *name != argument);
        self.completers.push((argument, completer));
        self
    }

    /// Its definition.
    pub fn definition(&self) -> &PromptDefinition {
        &self.definition
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// The completer of argument `argument`, when it has one.
    pub fn completer(&self, argument: &str) -> Option<&Completer> {
        self.completers
            .iter()
            .find(|(name, _)| name == argument)
            .map(|(_, completer)| completer)
    }

    /// Fills the prompt: [`RequestError::MissingArgument`] names the first required argument
    /// absent (or `null`), and a panic in the body is [`RequestError::Failed`].
    pub fn get(
        &self,
        args: Map<String, Value>,
    ) -> BoxFuture<'static, Result<Vec<PromptMessage>, RequestError>> {
        let missing = self.definition.arguments.iter().find(|argument| {
            argument.required && args.get(&argument.name).is_none_or(Value::is_null)
        });
        if let Some(argument) = missing {
            let err = RequestError::MissingArgument {
                name: argument.name.clone(),
            };
            return Box::pin(std::future::ready(Err(err)));
        }
        guarded(|| (self.get)(args))
    }
}

impl std::fmt::Debug for PromptProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptProxy")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}
