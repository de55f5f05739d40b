//! `GithubCliToolset`: read-only GitHub tools that run the GitHub CLI, `gh`.
//!
//! `gh` is started with an argument vector, never through a shell, so a model's text reaches it
//! as plain arguments: every user value travels as one `--flag=value` item, and `gh api` gets its
//! endpoint after `--`. Output is requested with `--json` and parsed into typed values; a call
//! that outlives the timeout is killed; a failure carries `gh`'s stderr.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::BuiltinError;

/// How long one `gh` run may take before it is killed, by default.
pub const DEFAULT_GITHUB_TIMEOUT: Duration = Duration::from_secs(30);
/// The most `gh` may print on stdout for one call, by default (4 MiB).
const DEFAULT_MAX_OUTPUT_BYTES: usize = 4 << 20;
/// How much of `gh`'s stderr an error message keeps.
const MAX_STDERR_BYTES: usize = 8 * 1024;
/// The longest label, user name, branch or field value accepted.
const MAX_ARGUMENT_BYTES: usize = 1024;
const MAX_ENDPOINT_BYTES: usize = 2048;
/// The most labels or API fields in one call.
const MAX_FIELDS: usize = 32;
const MAX_LIMIT: u32 = 1000;

// The variants of the parameter enums below carry no doc comments on purpose: with them,
// schemars describes the enum as a `oneOf` of consts, and a wrong value is then reported as "does
// not match any of the allowed forms" instead of listing the allowed values.

/// Which issues to list: `open` (the default), `closed`, or `all`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum IssueState {
    #[default]
    Open,
    Closed,
    All,
}

/// Which pull requests to list: `open` (the default), `closed` (merged or not), `merged`, or
/// `all`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum PrState {
    #[default]
    Open,
    Closed,
    Merged,
    All,
}

/// The bucket size of a traffic report: one data point per `day` (the default) or per `week`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum TrafficPeriod {
    #[default]
    Day,
    Week,
}

/// The state of an issue, as `gh` reports it (`OPEN`, `CLOSED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum IssueStatus {
    /// Open.
    Open,
    /// Closed.
    Closed,
}

/// The state of a pull request, as `gh` reports it (`OPEN`, `CLOSED`, `MERGED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum PrStatus {
    /// Open.
    Open,
    /// Closed without merging.
    Closed,
    /// Merged.
    Merged,
}

/// Whether a pull request can be merged, as `gh` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Mergeable {
    /// It merges cleanly.
    Mergeable,
    /// It has conflicts.
    Conflicting,
    /// GitHub has not computed it yet.
    Unknown,
}

macro_rules! wire_names {
    ($($ty:ident { $($variant:ident => $text:literal),* $(,)? })*) => {$(
        impl $ty {
            /// The name `gh` uses for this value.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $text),* }
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}

wire_names! {
    IssueState { Open => "open", Closed => "closed", All => "all" }
    PrState { Open => "open", Closed => "closed", Merged => "merged", All => "all" }
    TrafficPeriod { Day => "day", Week => "week" }
    IssueStatus { Open => "OPEN", Closed => "CLOSED" }
    PrStatus { Open => "OPEN", Closed => "CLOSED", Merged => "MERGED" }
    Mergeable { Mergeable => "MERGEABLE", Conflicting => "CONFLICTING", Unknown => "UNKNOWN" }
}

#[derive(Deserialize)]
struct Label {
    name: String,
}

#[derive(Deserialize)]
struct User {
    login: String,
}

#[derive(Deserialize)]
struct IssueSummary {
    number: u64,
    title: String,
    state: IssueStatus,
    #[serde(default)]
    labels: Vec<Label>,
    #[serde(default)]
    assignees: Vec<User>,
    url: String,
}

#[derive(Deserialize)]
struct IssueDetails {
    number: u64,
    title: String,
    state: IssueStatus,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    labels: Vec<Label>,
    #[serde(default)]
    assignees: Vec<User>,
    url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PrSummary {
    number: u64,
    title: String,
    state: PrStatus,
    base_ref_name: String,
    head_ref_name: String,
    url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PrDetails {
    number: u64,
    title: String,
    state: PrStatus,
    #[serde(default)]
    body: Option<String>,
    base_ref_name: String,
    head_ref_name: String,
    mergeable: Mergeable,
    url: String,
}

#[derive(Deserialize)]
struct TrafficPoint {
    timestamp: String,
    count: u64,
    uniques: u64,
}

#[derive(Deserialize)]
struct Traffic {
    count: u64,
    uniques: u64,
    #[serde(default, alias = "views", alias = "clones")]
    points: Vec<TrafficPoint>,
}

/// Read-only GitHub tools for a model, run through the GitHub CLI (`gh`) and its login.
///
/// Exports `github_list_issues`, `github_list_prs`, `github_get_issue`, `github_get_pr`,
/// `github_api_request` (GET only), `github_traffic_views` and `github_traffic_clones`, with
/// DSPy.rb's names, parameters and output formats. `gh` runs with an argument vector (no shell),
/// with `--json` output parsed into typed values, and is killed at the timeout.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use toolkit::builtin::GithubCliToolset;
/// use toolkit::prelude::*;
///
/// let github = GithubCliToolset::new()
///     .with_program("/nonexistent/gh")
///     .with_timeout(Duration::from_secs(10));
/// let tools = Arc::new(github).into_tools();
/// assert_eq!(tools[4].name(), "github_api_request");
/// assert_eq!(
///     tools[4].dynamic_call(json!({"endpoint": "repos/o/r/issues", "method": "DELETE"})),
///     json!("Error: invalid method: only GET is allowed, this tool is read-only (got 'DELETE')")
/// );
/// ```
///
/// The built-ins are not in [`registry`](crate::registry): a program gets them only by asking.
#[derive(Debug, Clone)]
pub struct GithubCliToolset {
    program: PathBuf,
    timeout: Duration,
    max_output_bytes: usize,
}

impl Default for GithubCliToolset {
    fn default() -> Self {
        GithubCliToolset {
            program: PathBuf::from("gh"),
            timeout: DEFAULT_GITHUB_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

impl GithubCliToolset {
    /// The toolset running `gh` from `PATH`, with the default timeout ([`DEFAULT_GITHUB_TIMEOUT`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// The same toolset running `program` instead: a path, or a name looked up on `PATH`.
    ///
    /// ```
    /// use toolkit::builtin::GithubCliToolset;
    ///
    /// let github = GithubCliToolset::new().with_program("/opt/gh/bin/gh");
    /// assert_eq!(github.program(), std::path::Path::new("/opt/gh/bin/gh"));
    /// assert_eq!(GithubCliToolset::new().program(), std::path::Path::new("gh"));
    /// ```
    pub fn with_program(mut self, program: impl Into<PathBuf>) -> Self {
        self.program = program.into();
        self
    }

    /// The same toolset killing `gh` after `timeout`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same toolset refusing results larger than `limit` bytes.
    pub fn with_max_output_bytes(mut self, limit: usize) -> Self {
        self.max_output_bytes = limit;
        self
    }

    /// The program run for each call.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// How long one call may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

// Not registered: a built-in must not appear in every program's `registry::all_tools()` (nor
// clash with a user's own `github` toolset) just because the program links toolkit.
#[crate::toolset(name = "github", register = false)]
impl GithubCliToolset {
    /// List GitHub issues with optional filters.
    ///
    /// # Arguments
    /// * `state` - which issues to list
    /// * `labels` - only issues with all of these labels
    /// * `assignee` - only issues assigned to this user
    /// * `repo` - the repository as OWNER/REPO (default: the current directory's repository)
    /// * `limit` - the most issues to list (1 to 1000)
    #[tool(blocking, read_only, open_world)]
    pub fn list_issues(
        &self,
        #[arg(default)] state: IssueState,
        #[arg(default)] labels: Vec<String>,
        assignee: Option<String>,
        repo: Option<String>,
        #[arg(default = 20)] limit: u32,
    ) -> Result<String, BuiltinError> {
        let mut args = argv([
            "issue",
            "list",
            "--json",
            "number,title,state,labels,assignees,url",
        ]);
        args.push(format!("--state={state}"));
        args.push(format!("--limit={}", check_limit(limit)?));
        if labels.len() > MAX_FIELDS {
            return Err(invalid(
                "labels",
                format!("at most {MAX_FIELDS} values are allowed"),
            ));
        }
        for label in &labels {
            args.push(format!("--label={}", check_text("labels", label)?));
        }
        if let Some(assignee) = &assignee {
            args.push(format!("--assignee={}", check_text("assignee", assignee)?));
        }
        push_repo(&mut args, repo.as_deref())?;
        let issues: Vec<IssueSummary> = self.run_json("gh issue list", &args, None)?;
        if issues.is_empty() {
            return Ok("No issues found".into());
        }
        let mut out = vec![format!("Found {} issue(s):", issues.len())];
        for issue in issues {
            out.push(format!(
                "#{}: {} ({})",
                issue.number, issue.title, issue.state
            ));
            if !issue.labels.is_empty() {
                out.push(format!("  Labels: {}", label_names(&issue.labels)));
            }
            if !issue.assignees.is_empty() {
                out.push(format!("  Assignees: {}", logins(&issue.assignees)));
            }
            out.push(format!("  URL: {}", issue.url));
            out.push(String::new());
        }
        Ok(out.join("\n"))
    }

    /// List GitHub pull requests with optional filters.
    ///
    /// # Arguments
    /// * `state` - which pull requests to list
    /// * `author` - only pull requests by this user
    /// * `base` - only pull requests into this branch
    /// * `repo` - the repository as OWNER/REPO (default: the current directory's repository)
    /// * `limit` - the most pull requests to list (1 to 1000)
    #[tool(blocking, read_only, open_world)]
    pub fn list_prs(
        &self,
        #[arg(default)] state: PrState,
        author: Option<String>,
        base: Option<String>,
        repo: Option<String>,
        #[arg(default = 20)] limit: u32,
    ) -> Result<String, BuiltinError> {
        let mut args = argv([
            "pr",
            "list",
            "--json",
            "number,title,state,baseRefName,headRefName,url",
        ]);
        args.push(format!("--state={state}"));
        args.push(format!("--limit={}", check_limit(limit)?));
        if let Some(author) = &author {
            args.push(format!("--author={}", check_text("author", author)?));
        }
        if let Some(base) = &base {
            args.push(format!("--base={}", check_text("base", base)?));
        }
        push_repo(&mut args, repo.as_deref())?;
        let prs: Vec<PrSummary> = self.run_json("gh pr list", &args, None)?;
        if prs.is_empty() {
            return Ok("No pull requests found".into());
        }
        let mut out = vec![format!("Found {} pull request(s):", prs.len())];
        for pr in prs {
            out.push(format!("#{}: {} ({})", pr.number, pr.title, pr.state));
            out.push(format!("  {} → {}", pr.head_ref_name, pr.base_ref_name));
            out.push(format!("  URL: {}", pr.url));
            out.push(String::new());
        }
        Ok(out.join("\n"))
    }

    /// Get the details of one GitHub issue: state, labels, assignees, URL and body.
    ///
    /// # Arguments
    /// * `issue_number` - the issue's number
    /// * `repo` - the repository as OWNER/REPO (default: the current directory's repository)
    #[tool(blocking, read_only, open_world)]
    pub fn get_issue(
        &self,
        issue_number: u64,
        repo: Option<String>,
    ) -> Result<String, BuiltinError> {
        let mut args = argv(["issue", "view"]);
        args.push(issue_number.to_string());
        args.extend(argv([
            "--json",
            "number,title,state,body,labels,assignees,url",
        ]));
        push_repo(&mut args, repo.as_deref())?;
        let issue: IssueDetails = self.run_json("gh issue view", &args, None)?;
        let mut out = vec![
            format!("Issue #{}: {}", issue.number, issue.title),
            format!("State: {}", issue.state),
        ];
        if !issue.labels.is_empty() {
            out.push(format!("Labels: {}", label_names(&issue.labels)));
        }
        if !issue.assignees.is_empty() {
            out.push(format!("Assignees: {}", logins(&issue.assignees)));
        }
        out.push(format!("URL: {}", issue.url));
        out.push(String::new());
        out.push("Body:".into());
        out.push(body_or_placeholder(issue.body));
        Ok(out.join("\n"))
    }

    /// Get the details of one GitHub pull request: state, branches, mergeability, URL and body.
    ///
    /// # Arguments
    /// * `pr_number` - the pull request's number
    /// * `repo` - the repository as OWNER/REPO (default: the current directory's repository)
    #[tool(blocking, read_only, open_world)]
    pub fn get_pr(&self, pr_number: u64, repo: Option<String>) -> Result<String, BuiltinError> {
        let mut args = argv(["pr", "view"]);
        args.push(pr_number.to_string());
        args.extend(argv([
            "--json",
            "number,title,state,body,baseRefName,headRefName,mergeable,url",
        ]));
        push_repo(&mut args, repo.as_deref())?;
        let pr: PrDetails = self.run_json("gh pr view", &args, None)?;
        let mergeable = match pr.mergeable {
            Mergeable::Mergeable => "Yes",
            Mergeable::Conflicting => "No",
            Mergeable::Unknown => "Unknown",
        };
        let out = [
            format!("Pull Request #{}: {}", pr.number, pr.title),
            format!("State: {}", pr.state),
            format!("Branch: {} → {}", pr.head_ref_name, pr.base_ref_name),
            format!("Mergeable: {mergeable}"),
            format!("URL: {}", pr.url),
            String::new(),
            "Body:".into(),
            body_or_placeholder(pr.body),
        ];
        Ok(out.join("\n"))
    }

    /// Make a read-only (GET) request to the GitHub REST API and return its JSON response.
    ///
    /// # Arguments
    /// * `endpoint` - the API path, e.g. `repos/OWNER/REPO/issues`; `{owner}` and `{repo}` are
    ///   filled from `repo`
    /// * `method` - the HTTP method; only GET is allowed
    /// * `fields` - query parameters, as name/value strings
    /// * `repo` - the repository as OWNER/REPO that `{owner}` and `{repo}` stand for
    #[tool(blocking, read_only, open_world)]
    pub fn api_request(
        &self,
        endpoint: String,
        #[arg(default = "GET".to_owned())] method: String,
        #[arg(default)] fields: BTreeMap<String, String>,
        repo: Option<String>,
    ) -> Result<String, BuiltinError> {
        if !method.trim().eq_ignore_ascii_case("GET") {
            return Err(invalid(
                "method",
                format!("only GET is allowed, this tool is read-only (got '{method}')"),
            ));
        }
        let endpoint = check_endpoint(&endpoint)?;
        if fields.len() > MAX_FIELDS {
            return Err(invalid(
                "fields",
                format!("at most {MAX_FIELDS} fields are allowed"),
            ));
        }
        let mut args = argv(["api", "--method", "GET"]);
        for (name, value) in &fields {
            if name.is_empty() || name.contains('=') || name.len() > 256 {
                return Err(invalid(
                    "fields",
                    format!("'{name}' is not a field name (1 to 256 bytes, no '=')"),
                ));
            }
            args.push(format!(
                "--raw-field={name}={}",
                check_text("fields", value)?
            ));
        }
        // `gh api` has no --repo flag: it fills {owner}/{repo} from GH_REPO.
        let repo = repo.as_deref().map(check_repo).transpose()?;
        // `--` ends gh's options, so the endpoint is never read as a flag.
        args.push("--".into());
        args.push(endpoint.into());
        let output = self.run("gh api", &args, repo.map(|r| ("GH_REPO", r)))?;
        Ok(output)
    }

    /// Get a repository's page views over the last 14 days (needs push access).
    ///
    /// # Arguments
    /// * `repo` - the repository as OWNER/REPO
    /// * `per` - one data point per day or per week
    #[tool(blocking, read_only, open_world)]
    pub fn traffic_views(
        &self,
        repo: String,
        per: Option<TrafficPeriod>,
    ) -> Result<String, BuiltinError> {
        self.traffic(&repo, "views", "Views", per)
    }

    /// Get a repository's git clones over the last 14 days (needs push access).
    ///
    /// # Arguments
    /// * `repo` - the repository as OWNER/REPO
    /// * `per` - one data point per day or per week
    #[tool(blocking, read_only, open_world)]
    pub fn traffic_clones(
        &self,
        repo: String,
        per: Option<TrafficPeriod>,
    ) -> Result<String, BuiltinError> {
        self.traffic(&repo, "clones", "Clones", per)
    }
}

impl GithubCliToolset {
    fn traffic(
        &self,
        repo: &str,
        kind: &str,
        label: &str,
        per: Option<TrafficPeriod>,
    ) -> Result<String, BuiltinError> {
        let repo = check_repo(repo)?;
        let mut args = argv(["api", "--method", "GET"]);
        // A HOST/OWNER/REPO repository names its host separately; the endpoint is on that host.
        let path = match repo.split('/').collect::<Vec<_>>()[..] {
            [host, owner, name] => {
                args.push(format!("--hostname={host}"));
                format!("repos/{owner}/{name}/traffic/{kind}")
            }
            _ => format!("repos/{repo}/traffic/{kind}"),
        };
        if let Some(per) = per {
            args.push(format!("--raw-field=per={per}"));
        }
        args.push("--".into());
        args.push(path);
        let traffic: Traffic = self.run_json("gh api", &args, None)?;
        let mut out = vec![format!(
            "{label}: {} total ({} unique) over the last {} data points",
            traffic.count,
            traffic.uniques,
            traffic.points.len()
        )];
        for point in &traffic.points {
            out.push(format!(
                "  {}: {} ({} unique)",
                point.timestamp, point.count, point.uniques
            ));
        }
        Ok(out.join("\n"))
    }

    fn run_json<T: DeserializeOwned>(
        &self,
        command: &str,
        args: &[String],
        env: Option<(&str, &str)>,
    ) -> Result<T, BuiltinError> {
        let output = self.run(command, args, env)?;
        serde_json::from_str(&output).map_err(|err| BuiltinError::UnexpectedOutput {
            command: command.into(),
            reason: err.to_string(),
        })
    }

    /// Runs the program with `args` as its argument vector (no shell), kills it at the deadline,
    /// and returns its stdout, or an error carrying its stderr.
    fn run(
        &self,
        command: &str,
        args: &[String],
        env: Option<(&str, &str)>,
    ) -> Result<String, BuiltinError> {
        let mut process = Command::new(&self.program);
        process
            .args(args)
            .envs(env)
            // Never wait for a prompt, a pager or an update check; print no colour codes.
            .env("GH_PROMPT_DISABLED", "1")
            .env("GH_NO_UPDATE_NOTIFIER", "1")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = process.spawn().map_err(|err| BuiltinError::Spawn {
            program: self.program.display().to_string(),
            reason: err.to_string(),
        })?;
        // Both pipes are drained on their own threads so a chatty child never blocks on a full
        // pipe while we wait for it to exit.
        let stdout = child
            .stdout
            .take()
            .map(|pipe| drain(pipe, self.max_output_bytes));
        let stderr = child
            .stderr
            .take()
            .map(|pipe| drain(pipe, MAX_STDERR_BYTES));
        let status = match wait_until(&mut child, Instant::now() + self.timeout) {
            Ok(Some(status)) => status,
            Ok(None) => {
                return Err(BuiltinError::Timeout {
                    command: command.into(),
                    timeout: self.timeout,
                });
            }
            Err(err) => {
                return Err(BuiltinError::Spawn {
                    program: self.program.display().to_string(),
                    reason: err.to_string(),
                });
            }
        };
        let (stdout, stdout_overflowed) = collect(stdout);
        let (stderr, _) = collect(stderr);
        if !status.success() {
            let stderr = String::from_utf8_lossy(&stderr).trim().to_owned();
            return Err(BuiltinError::CommandFailed {
                command: command.into(),
                status: status.to_string(),
                stderr: if stderr.is_empty() {
                    "(gh printed no error message)".into()
                } else {
                    stderr
                },
            });
        }
        if stdout_overflowed {
            return Err(BuiltinError::OutputTooLarge {
                command: command.into(),
                limit: self.max_output_bytes,
            });
        }
        Ok(String::from_utf8_lossy(&stdout).into_owned())
    }
}

/// Polls the child until it exits or the deadline passes; at the deadline it is killed and
/// reaped, and the result is `None`.
fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            // The child may exit between try_wait and kill; either way it is gone after wait.
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Reads a pipe to its end, keeping at most `limit` bytes; the flag says whether more came.
fn drain(mut pipe: impl Read + Send + 'static, limit: usize) -> JoinHandle<(Vec<u8>, bool)> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut overflowed = false;
        let mut buffer = [0u8; 8192];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    let room = limit.saturating_sub(kept.len());
                    overflowed |= n > room;
                    kept.extend_from_slice(&buffer[..n.min(room)]);
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        (kept, overflowed)
    })
}

fn collect(reader: Option<JoinHandle<(Vec<u8>, bool)>>) -> (Vec<u8>, bool) {
    reader
        .and_then(|handle| handle.join().ok())
        .unwrap_or_default()
}

fn argv<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

fn invalid(argument: &str, reason: String) -> BuiltinError {
    BuiltinError::InvalidArgument {
        argument: argument.into(),
        reason,
    }
}

/// A free-text value (label, user, branch, field value): any characters but NUL, bounded.
fn check_text<'a>(argument: &str, value: &'a str) -> Result<&'a str, BuiltinError> {
    if value.len() > MAX_ARGUMENT_BYTES {
        return Err(invalid(
            argument,
            format!("values are limited to {MAX_ARGUMENT_BYTES} bytes"),
        ));
    }
    if value.contains('\0') {
        return Err(invalid(argument, "values cannot contain NUL bytes".into()));
    }
    Ok(value)
}

fn check_limit(limit: u32) -> Result<u32, BuiltinError> {
    if (1..=MAX_LIMIT).contains(&limit) {
        Ok(limit)
    } else {
        Err(invalid(
            "limit",
            format!("must be between 1 and {MAX_LIMIT}, got {limit}"),
        ))
    }
}

/// `OWNER/REPO` or `HOST/OWNER/REPO`, in the characters GitHub allows.
fn check_repo(repo: &str) -> Result<&str, BuiltinError> {
    let segments: Vec<&str> = repo.split('/').collect();
    let valid_segment = |s: &&str| {
        !s.is_empty()
            && *s != "."
            && *s != ".."
            && s.len() <= 100
            && !s.starts_with('-')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    if (2..=3).contains(&segments.len()) && segments.iter().all(valid_segment) {
        Ok(repo)
    } else {
        Err(invalid(
            "repo",
            format!("expected OWNER/REPO (letters, digits, '-', '_', '.'), got '{repo}'"),
        ))
    }
}

fn push_repo(args: &mut Vec<String>, repo: Option<&str>) -> Result<(), BuiltinError> {
    if let Some(repo) = repo {
        args.push(format!("--repo={}", check_repo(repo)?));
    }
    Ok(())
}

/// A REST path on the GitHub host: no option-like start, no other host, no GraphQL (whose
/// queries can be mutations), no whitespace or control characters.
fn check_endpoint(endpoint: &str) -> Result<&str, BuiltinError> {
    let reason = if endpoint.is_empty() {
        Some("it is empty".to_owned())
    } else if endpoint.len() > MAX_ENDPOINT_BYTES {
        Some(format!("it is longer than {MAX_ENDPOINT_BYTES} bytes"))
    } else if endpoint.starts_with('-') {
        Some("it starts with '-', which gh would read as an option".to_owned())
    } else if endpoint.contains("://") {
        Some("give a path on the GitHub API, not a URL".to_owned())
    } else if endpoint
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        Some("it contains whitespace or control characters".to_owned())
    } else if endpoint
        .trim_start_matches('/')
        .split(['/', '?'])
        .next()
        .is_some_and(|first| first.eq_ignore_ascii_case("graphql"))
    {
        Some("GraphQL is not available here; use a REST path".to_owned())
    } else {
        None
    };
    match reason {
        Some(reason) => Err(invalid("endpoint", format!("'{endpoint}': {reason}"))),
        None => Ok(endpoint),
    }
}

fn label_names(labels: &[Label]) -> String {
    labels
        .iter()
        .map(|l| l.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn logins(users: &[User]) -> String {
    users
        .iter()
        .map(|u| u.login.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn body_or_placeholder(body: Option<String>) -> String {
    body.filter(|b| !b.is_empty())
        .unwrap_or_else(|| "No description provided".into())
}
