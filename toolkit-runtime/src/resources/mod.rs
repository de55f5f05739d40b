//! Resources a server offers beside its tools (MCP's `resources/*`): fixed ones at a URI
//! ([`ResourceProxy`]) and templated ones that answer every URI their template matches
//! ([`ResourceTemplateProxy`]). A read returns [`ResourceContents`].

mod request_error;
mod returns;
mod template;

use std::future::Future;
use std::sync::Arc;

use serde_json::{Map, Value};

pub(crate) use request_error::guarded;
pub use request_error::{RequestError, arg};
pub use returns::ResourceReturn;
pub use template::{UriTemplate, UriTemplateError};

use crate::completion::Completer;
use crate::{BoxFuture, Icon, ResourceContents};

type ReadFn = dyn Fn(
        String,
        Map<String, Value>,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, RequestError>>
    + Send
    + Sync;

/// Wraps a sync body: called with the URI read and the template's parameters.
fn sync_read<R: ResourceReturn>(
    mime_type: Option<String>,
    body: impl Fn(Map<String, Value>) -> R + Send + Sync + 'static,
) -> Arc<ReadFn> {
    Arc::new(move |uri, params| {
        let contents = body(params).into_contents(&uri, mime_type.as_deref());
        Box::pin(std::future::ready(contents))
    })
}

/// Wraps an async body.
fn async_read<R, Fut>(
    mime_type: Option<String>,
    body: impl Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
) -> Arc<ReadFn>
where
    R: ResourceReturn,
    Fut: Future<Output = R> + Send + 'static,
{
    Arc::new(move |uri, params| {
        let future = body(params);
        let mime_type = mime_type.clone();
        Box::pin(async move { future.await.into_contents(&uri, mime_type.as_deref()) })
    })
}

/// Everything about a fixed resource but its body: what `resources/list` shows.
///
/// ```
/// use toolkit::resources::ResourceDefinition;
///
/// let def = ResourceDefinition::new("config://app", "app-config")
///     .title("Application configuration")
///     .mime_type("application/json");
/// assert_eq!(def.uri, "config://app");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceDefinition {
    /// Its URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// A name for people.
    pub title: Option<String>,
    /// What it holds.
    pub description: Option<String>,
    /// Its MIME type.
    pub mime_type: Option<String>,
    /// Its size in bytes, when known ahead of a read.
    pub size: Option<u64>,
    /// Icons a client may show for it.
    pub icons: Vec<Icon>,
}

/// The builder methods every definition has: resources', templates' and prompts'.
macro_rules! named_setters {
    ($ty:ty) => {
        impl $ty {
            /// With a name for people.
            pub fn title(mut self, title: impl Into<String>) -> Self {
                self.title = Some(title.into());
                self
            }

            /// With one more icon.
            pub fn icon(mut self, icon: $crate::Icon) -> Self {
                self.icons.push(icon);
                self
            }

            /// With a description.
            pub fn description(mut self, description: impl Into<String>) -> Self {
                self.description = Some(description.into());
                self
            }
        }
    };
}
pub(crate) use named_setters;

named_setters!(ResourceDefinition);
named_setters!(ResourceTemplateDefinition);

/// The MIME type a read returns unless its body says otherwise.
macro_rules! mime_type_setter {
    ($ty:ty) => {
        impl $ty {
            /// With a MIME type: the default of what a read returns.
            pub fn mime_type(mut self, mime_type: impl Into<String>) -> Self {
                self.mime_type = Some(mime_type.into());
                self
            }
        }
    };
}

mime_type_setter!(ResourceDefinition);
mime_type_setter!(ResourceTemplateDefinition);

impl ResourceDefinition {
    /// A resource at `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceDefinition {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: Vec::new(),
        }
    }

    /// With its size in bytes.
    pub fn size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }
}

/// A fixed resource: its definition and the body that reads it. Cheap to clone.
///
/// ```
/// use toolkit::ResourceProxy;
/// use toolkit::resources::ResourceDefinition;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let def = ResourceDefinition::new("config://app", "config").mime_type("application/json");
/// let config = ResourceProxy::from_fn(def, || serde_json::json!({"debug": false}));
/// let contents = config.read().await.unwrap();
/// assert_eq!(contents[0].text.as_deref(), Some(r#"{"debug":false}"#));
/// assert_eq!(contents[0].mime_type.as_deref(), Some("application/json"));
/// # }
/// ```
#[derive(Clone)]
pub struct ResourceProxy {
    definition: Arc<ResourceDefinition>,
    read: Arc<ReadFn>,
}

impl ResourceProxy {
    /// A resource read by a sync body.
    pub fn from_fn<F, R>(definition: ResourceDefinition, body: F) -> Self
    where
        F: Fn() -> R + Send + Sync + 'static,
        R: ResourceReturn,
    {
        let read = sync_read(definition.mime_type.clone(), move |_| body());
        ResourceProxy {
            definition: Arc::new(definition),
            read,
        }
    }

    /// A resource read by an async body.
    pub fn from_async_fn<F, Fut, R>(definition: ResourceDefinition, body: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ResourceReturn,
    {
        let read = async_read(definition.mime_type.clone(), move |_| body());
        ResourceProxy {
            definition: Arc::new(definition),
            read,
        }
    }

    /// Its definition.
    pub fn definition(&self) -> &ResourceDefinition {
        &self.definition
    }

    /// Its URI.
    pub fn uri(&self) -> &str {
        &self.definition.uri
    }

    /// Reads it; a panic in the body is [`RequestError::Failed`].
    pub fn read(&self) -> BoxFuture<'static, Result<Vec<ResourceContents>, RequestError>> {
        let uri = self.definition.uri.clone();
        guarded(|| (self.read)(uri, Map::new()))
    }
}

impl std::fmt::Debug for ResourceProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceProxy")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}

/// Everything about a resource template but its body: what `resources/templates/list` shows.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResourceTemplateDefinition {
    /// The template, parsed.
    pub uri_template: UriTemplate,
    /// Its name.
    pub name: String,
    /// A name for people.
    pub title: Option<String>,
    /// What its resources hold.
    pub description: Option<String>,
    /// Their MIME type.
    pub mime_type: Option<String>,
    /// Icons a client may show for it.
    pub icons: Vec<Icon>,
}

impl ResourceTemplateDefinition {
    /// A template called `name`; an error when `uri_template` does not parse (see
    /// [`UriTemplate::parse`]).
    pub fn new(uri_template: &str, name: impl Into<String>) -> Result<Self, UriTemplateError> {
        Ok(Self::from_template(UriTemplate::parse(uri_template)?, name))
    }

    /// A template called `name`, from one already parsed (or kept as a peer wrote it,
    /// [`UriTemplate::as_written`]).
    pub fn from_template(uri_template: UriTemplate, name: impl Into<String>) -> Self {
        ResourceTemplateDefinition {
            uri_template,
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: Vec::new(),
        }
    }
}

/// A templated resource: every URI its template matches, read by one body over the template's
/// parameters (percent-decoded strings, by name; [`arg`] reads one as a typed value). Cheap to
/// clone.
///
/// ```
/// use toolkit::ResourceTemplateProxy;
/// use toolkit::completion::Completer;
/// use toolkit::resources::{ResourceTemplateDefinition, arg};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let def = ResourceTemplateDefinition::new("users://{id}/profile", "profile").unwrap();
/// let profiles = ResourceTemplateProxy::from_fn(def, |params| {
///     let id: u32 = arg(&params, "id")?;
///     Ok::<_, toolkit::resources::RequestError>(format!("user {id}"))
/// })
/// .with_completer("id", Completer::values(["1", "2", "10"]));
///
/// let contents = profiles.read("users://7/profile").await.unwrap();
/// assert_eq!(contents[0].text.as_deref(), Some("user 7"));
/// assert_eq!(contents[0].uri, "users://7/profile");
/// assert_eq!(profiles.read("users://x/profile").await.unwrap_err().code(), -32602);
/// assert_eq!(profiles.read("posts://7").await.unwrap_err().code(), -32002);
/// # }
/// ```
#[derive(Clone)]
pub struct ResourceTemplateProxy {
    definition: Arc<ResourceTemplateDefinition>,
    read: Arc<ReadFn>,
    completers: Vec<(String, Completer)>,
}

impl ResourceTemplateProxy {
    /// A template read by a sync body over its parameters.
    pub fn from_fn<F, R>(definition: ResourceTemplateDefinition, body: F) -> Self
    where
        F: Fn(Map<String, Value>) -> R + Send + Sync + 'static,
        R: ResourceReturn,
    {
        let read = sync_read(definition.mime_type.clone(), body);
        ResourceTemplateProxy {
            definition: Arc::new(definition),
            read,
            completers: Vec::new(),
        }
    }

    /// A template read by an async body over its parameters.
    pub fn from_async_fn<F, Fut, R>(definition: ResourceTemplateDefinition, body: F) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: ResourceReturn,
    {
        let read = async_read(definition.mime_type.clone(), body);
        ResourceTemplateProxy {
            definition: Arc::new(definition),
            read,
            completers: Vec::new(),
        }
    }

    /// With the completer of parameter `param` (replacing one it had).
    pub fn with_completer(mut self, param: impl Into<String>, completer: Completer) -> Self {
        let param = param.into();
        self.completers.retain(|(name, _)| *name != param);
        self.completers.push((param, completer));
        self
    }

    /// Its definition.
    pub fn definition(&self) -> &ResourceTemplateDefinition {
        &self.definition
    }

    /// Its template.
    pub fn uri_template(&self) -> &UriTemplate {
        &self.definition.uri_template
    }

    /// The completer of parameter `param`, when it has one.
    pub fn completer(&self, param: &str) -> Option<&Completer> {
        self.completers
            .iter()
            .find(|(name, _)| name == param)
            .map(|(_, completer)| completer)
    }

    /// Whether its template matches `uri`.
    pub fn matches(&self, uri: &str) -> bool {
        self.definition.uri_template.matches(uri).is_some()
    }

    /// Reads `uri`: [`RequestError::ResourceNotFound`] when the template does not match it,
    /// [`RequestError::InvalidParams`] when a parameter's value is refused (see
    /// [`UriTemplate`]), and a panic in the body is [`RequestError::Failed`].
    pub fn read(
        &self,
        uri: &str,
    ) -> BoxFuture<'static, Result<Vec<ResourceContents>, RequestError>> {
        let params = match self.definition.uri_template.matches(uri) {
            Some(Ok(params)) => params,
            Some(Err(err)) => return Box::pin(std::future::ready(Err(err))),
            None => {
                let err = RequestError::ResourceNotFound {
                    uri: uri.to_owned(),
                };
                return Box::pin(std::future::ready(Err(err)));
            }
        };
        let uri = uri.to_owned();
        guarded(|| (self.read)(uri, params))
    }
}

impl std::fmt::Debug for ResourceTemplateProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceTemplateProxy")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}
