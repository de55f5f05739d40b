//! New toolboxes from one: a subset by rule, and the same tools under other names. Each keeps
//! the toolbox's limits, concurrency, hooks and data.
//!
//! One way per job: [`Toolbox::select`] takes a subset by names (a name it lacks is an error,
//! so a typo is caught), [`Toolbox::filtered`] by a rule over each tool (annotations, options);
//! [`Toolbox::renamed`] renames some tools, [`Toolbox::prefixed`] every tool; and
//! [`Toolbox::merge`] joins two. An agent's `prepare` hook narrows what one step offers.

use std::collections::HashMap;

use super::{Entry, Toolbox, ToolboxError};
use crate::ToolProxy;

impl Toolbox {
    /// A toolbox of the tools `keep` accepts, in this toolbox's order.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// #[derive(Default)]
    /// struct Files;
    ///
    /// #[toolset(name = "files")]
    /// impl Files {
    ///     /// Read a file
    ///     #[tool(read_only)]
    ///     fn read(&self, path: String) -> String {
    ///         path
    ///     }
    ///
    ///     /// Delete a file
    ///     #[tool(destructive)]
    ///     fn delete(&self, path: String) -> String {
    ///         path
    ///     }
    /// }
    ///
    /// let toolbox = Toolbox::builder().toolset::<Files>().build().unwrap();
    /// let safe = toolbox.filtered(|tool| tool.options().annotations.read_only == Some(true));
    /// assert_eq!(safe.names().collect::<Vec<_>>(), ["files_read"]);
    /// ```
    pub fn filtered(&self, keep: impl Fn(&ToolProxy) -> bool) -> Toolbox {
        let kept = self.entries().filter(|entry| keep(&entry.tool)).collect();
        // A subset of a toolbox's names has no duplicates.
        self.rebuilt(kept)
            .unwrap_or_else(|_| unreachable!("a subset of distinct names"))
    }

    /// The toolbox with the tools named as `from` renamed `to`, the rest as they are. A `from`
    /// the toolbox lacks, a `to` providers refuse or one another tool has is an error.
    /// Hooks see the new names.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let toolbox = Toolbox::builder().tool(add_tool()).build().unwrap();
    /// let renamed = toolbox.renamed([("add", "sum")]).unwrap();
    /// assert_eq!(renamed.call(&ToolCall::new("sum", json!({"a": 1, "b": 2}))).value, json!(3));
    /// assert_eq!(
    ///     toolbox.renamed([("minus", "difference")]).unwrap_err().to_string(),
    ///     "no tool named \"minus\" in this toolbox; it holds: add"
    /// );
    /// ```
    pub fn renamed<I, A, B>(&self, renames: I) -> Result<Toolbox, ToolboxError>
    where
        I: IntoIterator<Item = (A, B)>,
        A: AsRef<str>,
        B: Into<String>,
    {
        let mut new_names = HashMap::new();
        let mut missing = Vec::new();
        for (from, to) in renames {
            match self.index.contains_key(from.as_ref()) {
                true => drop(new_names.insert(from.as_ref().to_owned(), to.into())),
                false => missing.push(from.as_ref().to_owned()),
            }
        }
        if !missing.is_empty() {
            return Err(self.lacks(missing));
        }
        self.renaming(|name| new_names.get(name).cloned())
    }

    /// The toolbox with every tool named `prefix` + its name: two toolboxes with the same
    /// names side by side, as MCP clients prefix a server's tools. A name that grows past
    /// what providers accept (64 characters) is an error.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let local = Toolbox::builder().tool(add_tool()).build().unwrap();
    /// let both = local.prefixed("fast_").unwrap().merge(local.clone()).unwrap();
    /// assert_eq!(both.names().collect::<Vec<_>>(), ["fast_add", "add"]);
    /// ```
    pub fn prefixed(&self, prefix: &str) -> Result<Toolbox, ToolboxError> {
        self.renaming(|name| Some(format!("{prefix}{name}")))
    }

    /// The toolbox with each tool that `rename` gives a name renamed to it.
    fn renaming(&self, rename: impl Fn(&str) -> Option<String>) -> Result<Toolbox, ToolboxError> {
        let mut entries = Vec::with_capacity(self.tools.len());
        for Entry { tool, source } in self.entries() {
            let tool = match rename(tool.name()) {
                Some(name) => {
                    tool.renamed(name.clone())
                        .map_err(|error| ToolboxError::InvalidName {
                            name,
                            message: error.to_string(),
                        })?
                }
                None => tool,
            };
            entries.push(Entry { tool, source });
        }
        self.rebuilt(entries)
    }

    /// A toolbox of `tools` (this toolbox's own, edited, or others) with this one's limits,
    /// concurrency, hooks and data: what an agent's `prepare` hook offers one step, so a call
    /// to a tool it left out is refused as unknown. A name given twice is an error.
    ///
    /// ```
    /// use toolkit::prelude::*;
    ///
    /// /// Add two numbers
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let toolbox = Toolbox::builder().tool(add_tool()).concurrency(2).build().unwrap();
    /// let edited = add_tool().with_description("Add two integers");
    /// let narrowed = toolbox.with_tools([edited]).unwrap();
    /// assert_eq!(narrowed.tools()[0].description(), "Add two integers");
    /// assert_eq!(narrowed.with_tools([]).unwrap().len(), 0);
    /// ```
    pub fn with_tools(
        &self,
        tools: impl IntoIterator<Item = ToolProxy>,
    ) -> Result<Toolbox, ToolboxError> {
        let sources: HashMap<&str, &super::Source> = self.names().zip(&self.sources).collect();
        let entries = tools.into_iter().map(|tool| {
            let source = sources
                .get(tool.name())
                .map_or(super::Source::Single, |s| (*s).clone());
            Entry { tool, source }
        });
        self.rebuilt(entries.collect())
    }

    /// A toolbox of `entries` with this one's limits, concurrency, hooks and data.
    pub(super) fn rebuilt(&self, entries: Vec<Entry>) -> Result<Toolbox, ToolboxError> {
        let mut toolbox = Toolbox::empty(self.limits, self.concurrency, self.hooks.clone());
        toolbox.data = self.data.clone();
        toolbox.extend(entries)?;
        Ok(toolbox)
    }

    /// The error for names the toolbox lacks.
    pub(super) fn lacks(&self, missing: Vec<String>) -> ToolboxError {
        ToolboxError::UnknownTools {
            missing,
            available: self.names().map(str::to_owned).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{ToolBuilder, ToolCall, ToolProxy, Toolbox, ToolboxError};

    fn tool(name: &str) -> ToolProxy {
        let reply = name.to_owned();
        ToolBuilder::new(name)
            .description("Says its name")
            .build(move |_| Ok::<_, String>(reply.clone()))
            .unwrap()
    }

    fn toolbox(names: &[&str]) -> Toolbox {
        let tools = names.iter().map(|name| tool(name));
        tools
            .fold(Toolbox::builder(), |builder, tool| builder.tool(tool))
            .concurrency(3)
            .build()
            .unwrap()
    }

    fn names(toolbox: &Toolbox) -> Vec<&str> {
        toolbox.names().collect()
    }

    #[test]
    fn filtered_keeps_the_order_and_the_settings() {
        let all = toolbox(&["a", "b", "c"]);
        let some = all.filtered(|tool| tool.name() != "b");
        assert_eq!(names(&some), ["a", "c"]);
        assert_eq!(some.concurrency(), 3);
        assert!(all.filtered(|_| false).is_empty());
        assert_eq!(some.offered().len(), 2);
    }

    #[test]
    fn renamed_calls_reach_the_same_body_under_the_new_name() {
        let renamed = toolbox(&["a", "b"]).renamed([("a", "first")]).unwrap();
        assert_eq!(names(&renamed), ["first", "b"]);
        let result = renamed.call(&ToolCall::new("first", json!({})));
        assert_eq!(result.value, json!("a"));
        let old = renamed.call(&ToolCall::new("a", json!({})));
        assert_eq!(
            old.value,
            json!("Error: Unknown tool: a. Available: first, b")
        );
        let rendered = renamed.offered().tools()[0].definition().name.clone();
        assert_eq!(rendered, "first");
    }

    #[test]
    fn renaming_onto_a_taken_name_or_from_a_missing_one_is_an_error() {
        let both = toolbox(&["a", "b"]);
        let taken = both.renamed([("a", "b")]).unwrap_err();
        assert!(matches!(taken, ToolboxError::DuplicateTool { ref name, .. } if name == "b"));
        let missing = both.renamed([("z", "y"), ("a", "x")]).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "no tool named \"z\" in this toolbox; it holds: a, b"
        );
        let invalid = both.renamed([("a", "has space")]).unwrap_err();
        assert_eq!(
            invalid.to_string(),
            "cannot name a tool \"has space\": tool has space cannot be built: the name must be \
             1 to 64 letters, digits, `_` or `-` (^[a-zA-Z0-9_-]{1,64}$), as model providers \
             require"
        );
    }

    #[test]
    fn prefixed_renames_every_tool_and_refuses_names_grown_too_long() {
        let prefixed = toolbox(&["a", "b"]).prefixed("x_").unwrap();
        assert_eq!(names(&prefixed), ["x_a", "x_b"]);
        assert_eq!(
            prefixed.call(&ToolCall::new("x_b", json!({}))).value,
            json!("b")
        );
        let long = toolbox(&[&"n".repeat(60)]).prefixed("prefix_").unwrap_err();
        assert!(matches!(long, ToolboxError::InvalidName { ref name, .. } if name.len() == 67));
    }
}
