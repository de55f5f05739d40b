//! `GithubCliToolset`: read-only GitHub tools that run the GitHub CLI, `gh`.
//!
//! `gh` is started with an argument vector, never through a shell, so a model's text reaches it
//! as plain arguments: every user value travels as one `--flag=value` item, and `gh api` gets its
//! endpoint after `--`. A repository on another host is refused unless the application allowed
//! that host. Output is requested with `--json` and parsed into typed values; a call that
//! outlives the timeout is killed with everything it started; a failure carries `gh`'s stderr
//! with credentials redacted.

mod checks;
mod redact;
mod render;
mod runner;
mod types;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::de::DeserializeOwned;

use super::BuiltinError;
use checks::{
    check_count, check_endpoint, check_field_name, check_limit, check_method, check_repo,
    check_text,
};
use runner::{OutputLimits, run_with_deadline};
use types::{IssueDetails, IssueSummary, PrDetails, PrSummary, Traffic};
pub use types::{IssueState, IssueStatus, Mergeable, PrState, PrStatus, TrafficPeriod};

/// How long one `gh` run may take before it is killed, by default.
pub const DEFAULT_GITHUB_TIMEOUT: Duration = Duration::from_secs(30);
/// The most `gh` may print on stdout for one call, by default (4 MiB): `gh`'s raw JSON, before
/// the toolset trims it to the fields a model reads, so larger than an answer's bound.
const DEFAULT_MAX_GH_STDOUT_BYTES: usize = 4 << 20;
/// How much of `gh`'s stderr an error message keeps.
const MAX_STDERR_BYTES: usize = 8 * 1024;
/// The one host a model may name in a repository, by default.
const DEFAULT_HOST: &str = "github.com";

/// Read-only GitHub tools for a model, run through the GitHub CLI (`gh`) and its login.
///
/// Exports `github_list_issues`, `github_list_prs`, `github_get_issue`, `github_get_pr`,
/// `github_api_request` (GET only), `github_traffic_views` and `github_traffic_clones`, with
/// DSPy.rb's names, parameters and output formats. `gh` runs with an argument vector (no shell),
/// with `--json` output parsed into typed values, and is killed at the timeout. A repository
/// given as `HOST/OWNER/REPO` must be on an allowed host ([`with_allowed_hosts`]; `github.com`
/// by default), and `gh`'s error messages reach the model with tokens redacted.
///
/// [`with_allowed_hosts`]: GithubCliToolset::with_allowed_hosts
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
    allowed_hosts: Vec<String>,
}

impl Default for GithubCliToolset {
    fn default() -> Self {
        GithubCliToolset {
            program: PathBuf::from("gh"),
            timeout: DEFAULT_GITHUB_TIMEOUT,
            max_output_bytes: DEFAULT_MAX_GH_STDOUT_BYTES,
            allowed_hosts: vec![DEFAULT_HOST.to_owned()],
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

    /// The same toolset letting a model name these hosts, and only these, in a repository
    /// (`HOST/OWNER/REPO`); `gh` sends that host's token to it. The default is `github.com`
    /// alone. An `OWNER/REPO` goes to `gh`'s default host whatever the list says.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolkit::builtin::GithubCliToolset;
    /// use toolkit::prelude::*;
    ///
    /// let github = GithubCliToolset::new()
    ///     .with_program("/nonexistent/gh")
    ///     .with_allowed_hosts(["github.com", "GHE.example.com"]);
    /// assert_eq!(github.allowed_hosts(), ["github.com", "ghe.example.com"]);
    /// let tools = Arc::new(github).into_tools();
    /// assert_eq!(
    ///     tools[2].dynamic_call(json!({"issue_number": 1, "repo": "127.0.0.1/o/r"})),
    ///     json!(
    ///         "Error: repo names the host '127.0.0.1', which is not allowed; \
    ///          allowed hosts: github.com, ghe.example.com"
    ///     )
    /// );
    /// ```
    pub fn with_allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.allowed_hosts = hosts
            .into_iter()
            .map(|host| host.as_ref().trim().to_ascii_lowercase())
            .collect();
        self
    }

    /// The hosts a model may name in a repository, in lower case.
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allowed_hosts
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
        check_count("labels", labels.len(), "values")?;
        for label in &labels {
            args.push(format!("--label={}", check_text("labels", label)?));
        }
        if let Some(assignee) = &assignee {
            args.push(format!("--assignee={}", check_text("assignee", assignee)?));
        }
        self.push_repo(&mut args, repo.as_deref())?;
        let issues: Vec<IssueSummary> = self.run_json("gh issue list", &args, None)?;
        Ok(render::issue_list(&issues))
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
        self.push_repo(&mut args, repo.as_deref())?;
        let prs: Vec<PrSummary> = self.run_json("gh pr list", &args, None)?;
        Ok(render::pr_list(&prs))
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
        self.push_repo(&mut args, repo.as_deref())?;
        let issue: IssueDetails = self.run_json("gh issue view", &args, None)?;
        Ok(render::issue(issue))
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
        self.push_repo(&mut args, repo.as_deref())?;
        let pr: PrDetails = self.run_json("gh pr view", &args, None)?;
        Ok(render::pr(pr))
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
        check_method(&method)?;
        let endpoint = check_endpoint(&endpoint)?;
        check_count("fields", fields.len(), "fields")?;
        let mut args = argv(["api", "--method", "GET"]);
        for (name, value) in &fields {
            let name = check_field_name(name)?;
            args.push(format!(
                "--raw-field={name}={}",
                check_text("fields", value)?
            ));
        }
        // `gh api` has no --repo flag: it fills {owner}/{repo} from GH_REPO.
        let repo = repo
            .as_deref()
            .map(|repo| check_repo(repo, &self.allowed_hosts))
            .transpose()?;
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
        let repo = check_repo(repo, &self.allowed_hosts)?;
        let mut args = argv(["api", "--method", "GET"]);
        // A HOST/OWNER/REPO repository names its host separately; the endpoint is on that host,
        // which check_repo has found in the allowed list.
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
        Ok(render::traffic(label, &traffic))
    }

    /// `--repo=OWNER/REPO`, when a repository was given.
    fn push_repo(&self, args: &mut Vec<String>, repo: Option<&str>) -> Result<(), BuiltinError> {
        if let Some(repo) = repo {
            args.push(format!("--repo={}", check_repo(repo, &self.allowed_hosts)?));
        }
        Ok(())
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
    /// and returns its stdout, or an error carrying its stderr without credentials.
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
            .env("NO_COLOR", "1");
        let limits = OutputLimits {
            stdout: self.max_output_bytes,
            stderr: MAX_STDERR_BYTES,
        };
        let finished = match run_with_deadline(&mut process, self.timeout, limits) {
            Ok(Some(finished)) => finished,
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
        if !finished.status.success() {
            let stderr = redact::redact(&String::from_utf8_lossy(&finished.stderr))
                .trim()
                .to_owned();
            return Err(BuiltinError::CommandFailed {
                command: command.into(),
                status: finished.status.to_string(),
                stderr: if stderr.is_empty() {
                    "(gh printed no error message)".into()
                } else {
                    stderr
                },
            });
        }
        if finished.stdout_overflowed {
            return Err(BuiltinError::OutputTooLarge {
                command: command.into(),
                limit: self.max_output_bytes,
            });
        }
        Ok(String::from_utf8_lossy(&finished.stdout).into_owned())
    }
}

fn argv<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}
