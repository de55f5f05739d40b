//! What an `McpServer` is built with, beyond its tools: its name, instructions, data, tasks,
//! list caching and the sealing of multi-round calls. Each setting returns a new server that
//! shares the old one's tools.

use std::sync::Arc;

use rmcp::model::Implementation;

use super::{McpServer, RequestStateOptions, ServerInner, caching, request_state, tasks};
use crate::TaskSupport;
use crate::context::Data;

impl McpServer {
    /// The server with its settings changed by `change`.
    pub(super) fn with_inner(self, change: impl FnOnce(&mut ServerInner)) -> Self {
        let inner = &self.inner;
        let mut inner = ServerInner {
            toolbox: inner.toolbox.clone(),
            listed: inner.listed.clone(),
            info: inner.info.clone(),
            instructions: inner.instructions.clone(),
            data: inner.data.clone(),
            catalog: inner.catalog.clone(),
            notifier: inner.notifier.clone(),
            tasks: inner.tasks,
            task_results: Arc::clone(&inner.task_results),
            list_caching: inner.list_caching,
            task_after: inner.task_after,
            caller_tasks: tasks::CallerTasks::default(),
            request_state: Arc::clone(&inner.request_state),
        };
        change(&mut inner);
        McpServer {
            inner: Arc::new(inner),
            ..self
        }
    }

    /// The name and version the server gives in its `initialize` answer (default: `toolkit`).
    pub fn with_name(self, name: impl Into<String>, version: impl Into<String>) -> Self {
        let info = Implementation::new(name, version);
        self.with_inner(|inner| inner.info = info)
    }

    /// Instructions the server gives clients in its `initialize` answer.
    pub fn with_instructions(self, instructions: impl Into<String>) -> Self {
        let instructions = Some(instructions.into());
        self.with_inner(|inner| inner.instructions = instructions)
    }

    /// Application data the served tools read through their context (`ctx.data::<T>()`); a
    /// type given here wins over the toolbox's value of that type.
    ///
    /// ```
    /// use toolkit::context::Data;
    /// use toolkit::mcp::McpServer;
    ///
    /// struct Db(&'static str);
    /// let server = McpServer::new(Vec::new()).with_data(Data::new().with(Db("postgres://...")));
    /// # let _ = server;
    /// ```
    pub fn with_data(self, data: Data) -> Self {
        self.with_inner(|inner| inner.data = data)
    }

    /// Lets clients run every tool that does not say otherwise
    /// ([`ToolOptions::task`](crate::ToolOptions::task)) as an MCP task:
    /// [`TaskSupport::Optional`] for a server of long tools, whose calls may then become tasks
    /// the client polls and may cancel; [`TaskSupport::Required`] to take calls as tasks only.
    /// Default: [`TaskSupport::Forbidden`], only the tools marked `#[tool(task)]` run as tasks.
    /// Tasks are MCP 2026-07-28's Tasks extension: 2026-07-28 clients that declare the Tasks
    /// extension get tasks; others get a plain call (a 2026-07-28 client without it calling a
    /// task-only tool is refused with `-32021`; a handshake-era client, up to 2025-11-25, is
    /// offered no tasks and its call runs plainly). Over HTTP a task holds a place under
    /// [`HttpOptions::max_concurrent_calls`](crate::mcp::HttpOptions::max_concurrent_calls)
    /// until its tool returns, as a plain call does; one over the cap is refused at once.
    ///
    /// ```
    /// use toolkit::TaskSupport;
    /// use toolkit::mcp::McpServer;
    ///
    /// let server = McpServer::new(Vec::new()).with_tasks(TaskSupport::Optional);
    /// # let _ = server;
    /// ```
    pub fn with_tasks(self, support: TaskSupport) -> Self {
        self.with_inner(|inner| inner.tasks = support)
    }

    /// The most bytes of finished task results the server keeps, every caller's together
    /// (default [`McpServer::DEFAULT_MAX_TASK_RESULT_BYTES`]). Past it, the oldest results are
    /// dropped before their time to live is over: their task still reads `completed`, with a
    /// status message saying so, and `tasks/get` inlines an error (`-32602`) in place of its
    /// result, saying it expired. A result larger than the whole budget is dropped as soon as
    /// it is made.
    ///
    /// ```
    /// use toolkit::mcp::McpServer;
    ///
    /// let server = McpServer::new(Vec::new()).with_max_task_result_bytes(256 << 20);
    /// # let _ = server;
    /// ```
    pub fn with_max_task_result_bytes(self, bytes: usize) -> Self {
        let budget = Arc::new(tasks::ResultBudget::new(bytes));
        self.with_inner(|inner| inner.task_results = budget)
    }

    /// How long an MCP 2026-07-28 client may use `tools/list`, `resources/list`,
    /// `resources/templates/list` and `prompts/list` answers before asking again (their
    /// `ttlMs`; default [`McpServer::DEFAULT_LIST_TTL`]). Zero: ask every time. Their
    /// `cacheScope` is `private` when the request carried a verified token and `public`
    /// otherwise. A client with a `subscriptions/listen` stream open hears of a change at
    /// once ([`ServerNotifier`](super::ServerNotifier)); older clients get no hints and keep
    /// their lists for the session.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::mcp::McpServer;
    ///
    /// let server = McpServer::new(Vec::new()).with_list_ttl(Duration::from_secs(300));
    /// # let _ = server;
    /// ```
    pub fn with_list_ttl(self, ttl: std::time::Duration) -> Self {
        self.with_inner(|inner| inner.list_caching = caching::ListCaching { ttl })
    }

    /// How long an MCP 2026-07-28 call of a tool that may run as a task runs before the server
    /// makes it one (default [`McpServer::DEFAULT_TASK_AFTER`]), when its client declared the
    /// Tasks extension. Within it, a question the tool asks goes back as `input_required`, and
    /// an answer is the call's result (for a tool that runs as a task only: its task, ended);
    /// past it, the client gets the task and polls it, and the tool's questions wait for
    /// `tasks/update`. Zero: such a call is a task from its start.
    ///
    /// ```
    /// use std::time::Duration;
    /// use toolkit::mcp::McpServer;
    ///
    /// let server = McpServer::new(Vec::new()).with_task_after(Duration::from_secs(2));
    /// # let _ = server;
    /// ```
    pub fn with_task_after(self, after: std::time::Duration) -> Self {
        self.with_inner(|inner| inner.task_after = after)
    }

    /// How the `requestState` of a multi-round call (MCP 2026-07-28) is sealed: its key, how
    /// long it lives, how large it may be ([`RequestStateOptions`]). The default key is random
    /// per process, so **replicas of one fleet must be given the same key**, or an answer that
    /// reaches another replica than the one that asked is refused.
    ///
    /// ```
    /// use toolkit::mcp::{McpServer, RequestStateOptions};
    ///
    /// let options = RequestStateOptions::new().key(b"a fleet-wide secret of 32 bytes!").unwrap();
    /// let server = McpServer::new(Vec::new()).with_request_state(options);
    /// # let _ = server;
    /// ```
    pub fn with_request_state(self, options: RequestStateOptions) -> Self {
        let sealer = Arc::new(request_state::Sealer::new(&options));
        self.with_inner(|inner| inner.request_state = sealer)
    }
}
