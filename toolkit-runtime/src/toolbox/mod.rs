//! `Toolbox`: the tools an agent may call, keyed by name, and the dispatch of a model's calls
//! to them, one at a time or concurrently, under limits and the application's own policy.
//!
//! `builder` collects tools and settings, `dispatch` holds the one dispatch core every call goes
//! through, `with_state` its doors and steps for calls with state, `hooks` holds the application's
//! before/after policy, and `formats` renders the whole toolbox for each provider.

mod batch;
mod batch_request;
mod builder;
mod dispatch;
mod formats;
mod hooks;
mod narrow;
mod resolved;
mod with_state;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::call::{Limits, ToolProxy};
use crate::context::Data;
use crate::names::{NameTaken, first_of_each_name};
use crate::providers::ToolDefinitions;

pub use batch_request::BatchRequest;
pub use builder::ToolboxBuilder;
use hooks::Hooks;
pub use resolved::ToolRef;

/// The tools an agent may call, in order and keyed by name, and the dispatch of calls to them.
///
/// Build one from any mix of toolsets and single tools; a name defined twice is an error that
/// names both sources. [`call`](Self::call), [`acall`](Self::acall) and
/// [`call_all`](Self::call_all) always return a [`ToolCallResult`](crate::ToolCallResult): an unknown tool, invalid
/// arguments, a panic or a timeout are error results the model reads, never an `Err` or a panic
/// the agent loop must handle.
///
/// ```
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct TextStatsToolset;
///
/// #[toolset(name = "stats")]
/// impl TextStatsToolset {
///     /// Count whitespace-separated words
///     #[tool]
///     fn word_count(&self, text: String) -> usize {
///         text.split_whitespace().count()
///     }
/// }
///
/// let toolbox = Toolbox::builder().toolset::<TextStatsToolset>().build().unwrap();
/// let result = toolbox.call(&ToolCall::new("stats_word_count", json!({"text": "a b"})));
/// assert_eq!((result.value, result.is_error), (json!(2), false));
///
/// let wrong = toolbox.call(&ToolCall::new("stats_char_count", json!({})).with_id("c1"));
/// assert_eq!(wrong.call_id.as_deref(), Some("c1"));
/// assert_eq!(
///     wrong.value,
///     json!("Error: Unknown tool: stats_char_count. Available: stats_word_count")
/// );
/// ```
#[derive(Clone)]
pub struct Toolbox {
    /// The tools in the order they were added, and where each came from.
    tools: Vec<ToolProxy>,
    sources: Vec<Source>,
    index: HashMap<String, usize>,
    limits: Limits,
    concurrency: usize,
    hooks: Arc<Hooks>,
    /// The application's data, which tools taking a context read (under a scope's own).
    data: Data,
    /// The whole toolbox in each provider's format, rendered on first use; shared by clones and
    /// replaced whenever the tools change.
    definitions: Arc<ToolDefinitions>,
}

/// A tool and where it came from, before it joins a toolbox.
#[derive(Clone)]
struct Entry {
    tool: ToolProxy,
    source: Source,
}

/// Where a tool came from, to name both sides of a duplicate.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Source {
    Toolset {
        name: &'static str,
        rust_type: &'static str,
    },
    Group(String),
    Single,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Toolset { name, rust_type } => write!(f, "toolset \"{name}\" ({rust_type})"),
            Source::Group(label) => write!(f, "\"{label}\""),
            Source::Single => f.write_str("a tool added on its own"),
        }
    }
}

/// Why a toolbox could not be built, merged or narrowed.
///
/// ```
/// use toolkit::prelude::*;
///
/// #[derive(Default)]
/// struct Stats;
///
/// #[toolset(name = "stats")]
/// impl Stats {
///     /// Count words
///     #[tool]
///     fn word_count(&self, text: String) -> usize {
///         text.split_whitespace().count()
///     }
/// }
///
/// let err = Toolbox::builder()
///     .tools("local copy", Stats::to_tools())
///     .tools("remote copy", Stats::to_tools())
///     .build()
///     .unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "tool \"stats_word_count\" is defined twice: by \"local copy\" and by \"remote copy\""
/// );
/// // A toolset names itself and its Rust type: `toolset "stats" (my_crate::Stats)`.
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolboxError {
    /// Two tools have the same name; `first` and `second` say where each came from.
    #[error("tool \"{name}\" is defined twice: by {first} and by {second}")]
    DuplicateTool {
        /// The name both tools have.
        name: String,
        /// Where the first tool came from (`toolset "stats" (my_crate::Stats)`).
        first: String,
        /// Where the second tool came from.
        second: String,
    },
    /// [`Toolbox::select`] named tools the toolbox does not hold.
    #[error("no tool named {} in this toolbox; it holds: {}", quoted(missing), available.join(", "))]
    UnknownTools {
        /// The names asked for that the toolbox does not hold.
        missing: Vec<String>,
        /// The names the toolbox does hold.
        available: Vec<String>,
    },
    /// [`Toolbox::renamed`] or [`Toolbox::prefixed`] made a name providers refuse.
    #[error("cannot name a tool \"{name}\": {message}")]
    InvalidName {
        /// The name made.
        name: String,
        /// What is wrong with it.
        message: String,
    },
}

fn quoted(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    quoted.join(", ")
}

impl Default for Toolbox {
    fn default() -> Self {
        Toolbox::empty(
            Limits::default(),
            Toolbox::DEFAULT_CONCURRENCY,
            Arc::default(),
        )
    }
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.names().collect::<Vec<_>>())
            .field("limits", &self.limits)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

impl Toolbox {
    /// How many calls [`call_all`](Self::call_all) runs at once unless told otherwise.
    pub const DEFAULT_CONCURRENCY: usize = 16;

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&ToolProxy> {
        self.index.get(name).map(|&i| &self.tools[i])
    }

    /// Where the tool called `name` stands in [`tools`](Self::tools) (as `IndexMap::get_index_of`).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The tools, in the order they were added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &ToolProxy> {
        self.tools.iter()
    }

    /// The tools, in the order they were added, as a slice.
    pub fn tools(&self) -> &[ToolProxy] {
        &self.tools
    }

    /// The tool names, in order.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.iter().map(ToolProxy::name)
    }

    /// How many tools it holds.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether it holds no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The data tools read through their context ([`ToolContext::data`](crate::ToolContext::data)).
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The default limits of a call; a tool's own settings win over them.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// How many calls [`call_all`](Self::call_all) runs at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Takes a tool out, keeping the order of the rest.
    pub fn remove(&mut self, name: &str) -> Option<ToolProxy> {
        let position = self.index.remove(name)?;
        self.sources.remove(position);
        let tool = self.tools.remove(position);
        self.renew_definitions();
        for index in self.index.values_mut() {
            if *index > position {
                *index -= 1;
            }
        }
        Some(tool)
    }

    /// Adds `other`'s tools after this one's. Limits, concurrency and hooks stay this toolbox's.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Stats;
    ///
    /// #[toolset(name = "stats")]
    /// impl Stats {
    ///     /// Count words
    ///     #[tool]
    ///     fn words(&self, text: String) -> usize {
    ///         text.split_whitespace().count()
    ///     }
    /// }
    ///
    /// let words = Stats::to_tools().remove(0);
    /// let base = Toolbox::builder().tools("base", Stats::to_tools()).build().unwrap();
    /// let extra = Toolbox::builder().tool(words).build().unwrap();
    /// assert_eq!(
    ///     base.clone().merge(extra).unwrap_err().to_string(),
    ///     "tool \"stats_words\" is defined twice: by \"base\" and by a tool added on its own"
    /// );
    /// let empty = Toolbox::builder().build().unwrap();
    /// assert_eq!(base.merge(empty).unwrap().names().collect::<Vec<_>>(), ["stats_words"]);
    /// ```
    pub fn merge(mut self, other: Toolbox) -> Result<Toolbox, ToolboxError> {
        self.extend(other.entries().collect())?;
        Ok(self)
    }

    /// A toolbox of just the named tools, in this toolbox's order, with its limits, hooks and
    /// data: to offer an agent a subset. Naming a tool it does not hold is an error (for a
    /// subset by rule, see [`filtered`](Self::filtered)).
    pub fn select<I>(&self, names: I) -> Result<Toolbox, ToolboxError>
    where
        I: IntoIterator,
        I::Item: AsRef<str>,
    {
        let mut wanted = vec![false; self.tools.len()];
        let mut missing = Vec::new();
        for name in names {
            match self.index.get(name.as_ref()) {
                Some(&i) => wanted[i] = true,
                None => missing.push(name.as_ref().to_owned()),
            }
        }
        if !missing.is_empty() {
            return Err(self.lacks(missing));
        }
        let chosen = self.entries().zip(wanted).filter(|(_, keep)| *keep);
        self.rebuilt(chosen.map(|(entry, _)| entry).collect())
    }

    /// Adds `entries`, or leaves the toolbox as it was and fails at the first name taken (the
    /// toolbox's reaction to [`first_of_each_name`]'s clashes).
    fn extend(&mut self, entries: Vec<Entry>) -> Result<(), ToolboxError> {
        let all = self.entries().chain(entries);
        let (kept, taken) = first_of_each_name(all, |entry| entry.tool.name());
        if let Some(NameTaken { first, second }) = taken.into_iter().next() {
            return Err(ToolboxError::DuplicateTool {
                name: second.tool.name().to_owned(),
                first: kept[first].source.to_string(),
                second: second.source.to_string(),
            });
        }
        self.index.clear();
        self.tools.clear();
        self.sources.clear();
        for Entry { tool, source } in kept {
            self.index.insert(tool.name().to_owned(), self.tools.len());
            self.tools.push(tool);
            self.sources.push(source);
        }
        self.renew_definitions();
        Ok(())
    }

    /// The tools with their sources, to rebuild a toolbox from.
    fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.tools
            .iter()
            .zip(&self.sources)
            .map(|(tool, source)| Entry {
                tool: tool.clone(),
                source: source.clone(),
            })
    }

    fn empty(limits: Limits, concurrency: usize, hooks: Arc<Hooks>) -> Toolbox {
        Toolbox {
            tools: Vec::new(),
            sources: Vec::new(),
            index: HashMap::new(),
            limits,
            concurrency,
            hooks,
            data: Data::default(),
            definitions: Arc::default(),
        }
    }
}

impl<'a> IntoIterator for &'a Toolbox {
    type Item = &'a ToolProxy;
    type IntoIter = Box<dyn ExactSizeIterator<Item = &'a ToolProxy> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}
