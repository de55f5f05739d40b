//! The tools a request offers a model, rendered in each provider's format on first use and kept.

use serde_json::{Value, json};

use crate::call::DefinitionCache;
use crate::format::Format;
use crate::{ToolError, ToolProxy};

/// The tools a model request offers, rendered in each [`Format`] the first time a client asks
/// and kept: a request carries them every time, and the strict rewrite costs more than a call.
///
/// A [`Toolbox`](crate::Toolbox) keeps one for its tools and lends it (`&toolbox` converts), so
/// every request of an agent's run reuses one rendering; [`ToolDefinitions::none`] offers no
/// tools.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::providers::{Format, ToolDefinitions};
///
/// /// Add two numbers
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let offered = ToolDefinitions::new(vec![add_tool()]);
/// assert_eq!(offered.len(), 1);
/// assert_eq!(offered.render(Format::Gemini).unwrap()["functionDeclarations"][0]["name"], "add");
/// assert!(ToolDefinitions::none().is_empty());
/// ```
#[derive(Debug, Default)]
pub struct ToolDefinitions {
    tools: Vec<ToolProxy>,
    rendered: DefinitionCache,
}

impl ToolDefinitions {
    /// The definitions of `tools`, in their order.
    pub fn new(tools: Vec<ToolProxy>) -> Self {
        ToolDefinitions {
            tools,
            rendered: DefinitionCache::default(),
        }
    }

    /// No tools: what a request sends when the tools are in the prompt (ReAct).
    pub fn none() -> &'static ToolDefinitions {
        static NONE: std::sync::OnceLock<ToolDefinitions> = std::sync::OnceLock::new();
        NONE.get_or_init(ToolDefinitions::default)
    }

    /// Every tool's definition in `format`: the array (or, for Gemini, the one
    /// `{"functionDeclarations": [...]}` object) a request carries. Only
    /// [`Format::OpenAiStrict`] can fail, with the first tool that cannot be converted.
    pub fn render(&self, format: Format) -> Result<&Value, ToolError> {
        self.rendered.get(format, || {
            let rendered = self
                .tools
                .iter()
                .map(|tool| tool.definition_in(format))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(match format {
                Format::Gemini => json!({ "functionDeclarations": rendered }),
                _ => Value::Array(rendered),
            })
        })
    }

    /// The tools offered.
    pub fn tools(&self) -> &[ToolProxy] {
        &self.tools
    }

    /// How many tools are offered.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is offered (a request then sends none).
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}
