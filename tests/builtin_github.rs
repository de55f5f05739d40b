//! `toolkit::builtin::GithubCliToolset` against a fake `gh` (tests/fixtures/fake_gh.py) that
//! records its argument vector and answers canned JSON: exact outputs, the exact argv each tool
//! runs, hostile input reaching `gh` as plain arguments, and every failure path.
#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use toolkit::builtin::{GithubCliToolset, IssueState, PrState, TrafficPeriod};
use toolkit::prelude::*;

mod common;
use common::fake_gh::{FakeGh, fixtures};

#[test]
fn the_toolset_exports_the_seven_read_only_dspy_rb_names() {
    let names: Vec<String> = GithubCliToolset::to_tools()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "github_list_issues",
            "github_list_prs",
            "github_get_issue",
            "github_get_pr",
            "github_api_request",
            "github_traffic_views",
            "github_traffic_clones"
        ]
    );
    assert!(toolkit::registry::find_toolset("github").is_none());
    for tool in GithubCliToolset::to_tools() {
        assert_eq!(
            tool.options().annotations.read_only,
            Some(true),
            "{}",
            tool.name()
        );
        assert!(
            tool.options().blocking,
            "{} runs a process, so acall moves it off the runtime",
            tool.name()
        );
    }
}

#[test]
fn every_tool_schema_matches_the_golden_file() {
    let schemas: Vec<Value> = GithubCliToolset::to_tools()
        .iter()
        .map(|t| t.schema())
        .collect();
    let actual = serde_json::to_string_pretty(&schemas).unwrap() + "\n";
    let path = fixtures().join("builtin/github_schemas.json");
    if std::env::var_os("TOOLKIT_BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
    }
    assert_eq!(actual, std::fs::read_to_string(&path).unwrap());
}

#[test]
fn list_issues_runs_gh_issue_list_with_json_fields_and_formats_like_dspy_rb() {
    let gh = FakeGh::new("fake-gh", "list_issues").answering("issue_list.json");
    assert_eq!(
        gh.call("github_list_issues", json!({})),
        json!(
            "Found 2 issue(s):\n\
             #42: Crash on empty input (OPEN)\n  Labels: bug, p1\n  Assignees: octocat\n  \
             URL: https://github.com/octo/hello/issues/42\n\n\
             #7: Docs: typo (CLOSED)\n  URL: https://github.com/octo/hello/issues/7\n"
        )
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "issue",
            "list",
            "--json",
            "number,title,state,labels,assignees,url",
            "--state=open",
            "--limit=20"
        ])
    );
    assert_eq!(gh.runs()[0]["GH_PROMPT_DISABLED"], json!("1"));
}

#[test]
fn list_issues_passes_every_filter_as_one_argument() {
    let gh = FakeGh::new("fake-gh", "list_issues_filters").set("stdout", "[]");
    assert_eq!(
        gh.call(
            "github_list_issues",
            json!({"state": "all", "labels": ["bug", "good first issue"], "assignee": "octocat",
                   "repo": "octo/hello", "limit": 5})
        ),
        json!("No issues found")
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "issue",
            "list",
            "--json",
            "number,title,state,labels,assignees,url",
            "--state=all",
            "--limit=5",
            "--label=bug",
            "--label=good first issue",
            "--assignee=octocat",
            "--repo=octo/hello"
        ])
    );
}

#[test]
fn list_prs_formats_branches_and_passes_filters() {
    let gh = FakeGh::new("fake-gh", "list_prs").answering("pr_list.json");
    assert_eq!(
        gh.call(
            "github_list_prs",
            json!({"state": "merged", "author": "hubot", "base": "main", "repo": "octo/hello"})
        ),
        json!(
            "Found 2 pull request(s):\n\
             #12: Add retries (OPEN)\n  retries → main\n  URL: https://github.com/octo/hello/pull/12\n\n\
             #9: Bump deps (MERGED)\n  deps → main\n  URL: https://github.com/octo/hello/pull/9\n"
        )
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "pr",
            "list",
            "--json",
            "number,title,state,baseRefName,headRefName,url",
            "--state=merged",
            "--limit=20",
            "--author=hubot",
            "--base=main",
            "--repo=octo/hello"
        ])
    );
}

#[test]
fn an_empty_pull_request_list_says_so() {
    let gh = FakeGh::new("fake-gh", "list_prs_empty").set("stdout", "[]\n");
    assert_eq!(
        gh.call("github_list_prs", json!({})),
        json!("No pull requests found")
    );
}

#[test]
fn get_issue_shows_details_and_body() {
    let gh = FakeGh::new("fake-gh", "get_issue").answering("issue_view.json");
    assert_eq!(
        gh.call(
            "github_get_issue",
            json!({"issue_number": 42, "repo": "octo/hello"})
        ),
        json!(
            "Issue #42: Crash on empty input\nState: OPEN\nLabels: bug\nAssignees: octocat, hubot\n\
             URL: https://github.com/octo/hello/issues/42\n\nBody:\nSteps:\n1. run with \"\"\n2. boom"
        )
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "issue",
            "view",
            "42",
            "--json",
            "number,title,state,body,labels,assignees,url",
            "--repo=octo/hello"
        ])
    );
}

#[test]
fn get_pr_reports_mergeability_from_the_typed_state() {
    let gh = FakeGh::new("fake-gh", "get_pr").answering("pr_view.json");
    assert_eq!(
        gh.call("github_get_pr", json!({"pr_number": 12})),
        json!(
            "Pull Request #12: Add retries\nState: OPEN\nBranch: retries → main\nMergeable: No\n\
             URL: https://github.com/octo/hello/pull/12\n\nBody:\nNo description provided"
        )
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "pr",
            "view",
            "12",
            "--json",
            "number,title,state,body,baseRefName,headRefName,mergeable,url"
        ])
    );
}

#[test]
fn api_request_is_a_get_with_fields_and_the_endpoint_after_double_dash() {
    let gh = FakeGh::new("fake-gh", "api_request").set("stdout", "[{\"id\":1}]\n");
    assert_eq!(
        gh.call(
            "github_api_request",
            json!({"endpoint": "repos/{owner}/{repo}/issues", "fields": {"per_page": "5", "state": "all"},
                   "repo": "octo/hello"})
        ),
        json!("[{\"id\":1}]\n")
    );
    let runs = gh.runs();
    assert_eq!(
        runs[0]["argv"],
        json!([
            "api",
            "--method",
            "GET",
            "--raw-field=per_page=5",
            "--raw-field=state=all",
            "--",
            "repos/{owner}/{repo}/issues"
        ])
    );
    assert_eq!(
        runs[0]["GH_REPO"],
        json!("octo/hello"),
        "gh api takes the repository from GH_REPO"
    );
}

#[test]
fn api_request_accepts_get_in_any_case_and_refuses_every_other_method_without_running_gh() {
    let gh = FakeGh::new("fake-gh", "api_methods").set("stdout", "{}");
    assert_eq!(
        gh.call(
            "github_api_request",
            json!({"endpoint": "user", "method": "get"})
        ),
        json!("{}")
    );
    for method in ["POST", "PATCH", "PUT", "DELETE", "GET; DELETE"] {
        assert_eq!(
            gh.call(
                "github_api_request",
                json!({"endpoint": "user", "method": method})
            ),
            json!(format!(
                "Error: invalid method: only GET is allowed, this tool is read-only (got '{method}')"
            ))
        );
    }
    assert_eq!(gh.runs().len(), 1);
}

#[test]
fn api_request_refuses_endpoints_that_are_options_urls_graphql_or_spaced() {
    let gh = FakeGh::new("fake-gh", "api_endpoints");
    let cases = [
        (
            "--method=POST",
            "it starts with '-', which gh would read as an option",
        ),
        (
            "-XPOST",
            "it starts with '-', which gh would read as an option",
        ),
        (
            "https://evil.example/x",
            "give a path on the GitHub API, not a URL",
        ),
        ("graphql", "GraphQL is not available here; use a REST path"),
        (
            "/GraphQL?query=x",
            "GraphQL is not available here; use a REST path",
        ),
        (
            "user --method POST",
            "it contains whitespace or control characters",
        ),
        ("", "it is empty"),
    ];
    for (endpoint, reason) in cases {
        assert_eq!(
            gh.call("github_api_request", json!({"endpoint": endpoint})),
            json!(format!("Error: invalid endpoint: '{endpoint}': {reason}"))
        );
    }
    assert_eq!(
        gh.call(
            "github_api_request",
            json!({"endpoint": "user", "fields": {"a=b": "c"}})
        ),
        json!("Error: invalid fields: 'a=b' is not a field name (1 to 256 bytes, no '=')")
    );
    assert!(gh.runs().is_empty(), "no refused request may reach gh");
}

#[test]
fn hostile_text_reaches_gh_as_plain_arguments() {
    let gh = FakeGh::new("fake-gh", "hostile").set("stdout", "[]");
    let hostile = [
        "\"quoted\" 'single'",
        "a; rm -rf ~",
        "$(touch pwned)",
        "`id`",
        "-R evil/repo",
        "--repo=evil/repo",
        "x && echo hi | cat > out",
    ];
    gh.call(
        "github_list_issues",
        json!({"labels": hostile, "assignee": "--help", "repo": "octo/hello"}),
    );
    let mut expected = vec![
        "issue".to_owned(),
        "list".into(),
        "--json".into(),
        "number,title,state,labels,assignees,url".into(),
        "--state=open".into(),
        "--limit=20".into(),
    ];
    expected.extend(hostile.iter().map(|h| format!("--label={h}")));
    expected.push("--assignee=--help".into());
    expected.push("--repo=octo/hello".into());
    assert_eq!(gh.only_argv(), json!(expected));
    assert!(!gh.dir.join("pwned").exists() && !Path::new("pwned").exists());
}

#[test]
fn more_than_thirty_two_labels_are_refused_before_gh_runs() {
    let gh = FakeGh::new("fake-gh", "too_many_labels");
    let labels: Vec<String> = (0..33).map(|i| format!("l{i}")).collect();
    assert_eq!(
        gh.call("github_list_issues", json!({"labels": labels})),
        json!("Error: invalid labels: at most 32 values are allowed")
    );
    assert!(gh.runs().is_empty());
}

#[test]
fn hostile_api_fields_and_endpoint_characters_stay_single_arguments() {
    let gh = FakeGh::new("fake-gh", "hostile_api").set("stdout", "{}");
    gh.call(
        "github_api_request",
        json!({"endpoint": "search/issues?q=$(id);x", "fields": {"q": "'; rm -rf / \"$(id)\"", "-f": "-X POST"}}),
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "api",
            "--method",
            "GET",
            "--raw-field=-f=-X POST",
            "--raw-field=q='; rm -rf / \"$(id)\"",
            "--",
            "search/issues?q=$(id);x"
        ])
    );
}

#[test]
fn a_repository_that_is_not_owner_slash_repo_is_refused_before_gh_runs() {
    let gh = FakeGh::new("fake-gh", "bad_repo");
    for repo in ["-R evil", "octo", "octo/hello; rm", "a/b/c/d", "../x"] {
        assert_eq!(
            gh.call("github_get_issue", json!({"issue_number": 1, "repo": repo})),
            json!(format!(
                "Error: invalid repo: expected OWNER/REPO (letters, digits, '-', '_', '.'), got '{repo}'"
            ))
        );
    }
    assert!(gh.runs().is_empty());
}

#[test]
fn traffic_views_is_a_get_on_the_traffic_endpoint_and_lists_each_data_point() {
    let gh = FakeGh::new("fake-gh", "traffic_views").answering("traffic_views.json");
    assert_eq!(
        gh.call(
            "github_traffic_views",
            json!({"repo": "octo/hello", "per": "day"})
        ),
        json!(
            "Views: 14 total (4 unique) over the last 2 data points\n  \
             2026-11-30T00:00:00Z: 9 (3 unique)\n  2026-12-01T00:00:00Z: 5 (2 unique)"
        )
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "api",
            "--method",
            "GET",
            "--raw-field=per=day",
            "--",
            "repos/octo/hello/traffic/views"
        ])
    );
}

#[test]
fn traffic_clones_on_another_host_names_the_host_separately() {
    let gh = FakeGh::new("fake-gh", "traffic_clones").answering("traffic_clones.json");
    // Another host only when the application allows it (tests/builtin_github_hardening.rs).
    let tools = gh.tools_of(GithubCliToolset::new().with_allowed_hosts(["ghe.example.com"]));
    assert_eq!(
        tools[6].dynamic_call(json!({"repo": "ghe.example.com/octo/hello"})),
        json!(
            "Clones: 3 total (1 unique) over the last 1 data points\n  2026-11-23T00:00:00Z: 3 (1 unique)"
        )
    );
    assert_eq!(
        gh.only_argv(),
        json!([
            "api",
            "--method",
            "GET",
            "--hostname=ghe.example.com",
            "--",
            "repos/octo/hello/traffic/clones"
        ])
    );
}

#[test]
fn a_failing_gh_reports_its_exit_status_and_stderr() {
    let gh = FakeGh::new("fake-gh", "gh_fails")
        .set(
            "stderr",
            "GraphQL: Could not resolve to an issue or pull request with the number of 999.\n",
        )
        .set("exit_code", "1");
    assert_eq!(
        gh.call("github_get_issue", json!({"issue_number": 999})),
        json!(
            "Error: gh issue view failed (exit status: 1): GraphQL: Could not resolve to an issue or \
             pull request with the number of 999."
        )
    );
}

#[test]
fn a_silent_failure_still_says_gh_failed() {
    let gh = FakeGh::new("fake-gh", "gh_fails_silently").set("exit_code", "4");
    assert_eq!(
        gh.call("github_list_prs", json!({})),
        json!("Error: gh pr list failed (exit status: 4): (gh printed no error message)")
    );
}

#[test]
fn output_that_is_not_the_expected_json_is_an_error() {
    let gh = FakeGh::new("fake-gh", "bad_json").set("stdout", "Welcome to GitHub CLI!\n");
    assert_eq!(
        gh.call("github_list_issues", json!({})),
        json!(
            "Error: gh issue list printed output that is not the expected JSON: expected value at \
             line 1 column 1"
        )
    );
}

#[test]
fn a_state_gh_does_not_document_is_an_error_not_a_guess() {
    let gh = FakeGh::new("fake-gh", "bad_state").set(
        "stdout",
        r#"[{"number": 1, "title": "t", "state": "DRAFT", "baseRefName": "m", "headRefName": "h", "url": "u"}]"#,
    );
    assert_eq!(
        gh.call("github_list_prs", json!({})),
        json!(
            "Error: gh pr list printed output that is not the expected JSON: unknown variant `DRAFT`, \
             expected one of `OPEN`, `CLOSED`, `MERGED` at line 1 column 45"
        )
    );
}

#[test]
fn gh_is_killed_at_the_timeout() {
    let gh = FakeGh::new("fake-gh", "timeout").set("sleep", "60");
    let tools = gh.tools_of(GithubCliToolset::new().with_timeout(Duration::from_millis(300)));
    assert_eq!(
        tools[0].dynamic_call(json!({})),
        json!("Error: gh issue list did not finish within 300ms and was stopped")
    );
}

#[test]
fn output_beyond_the_limit_is_refused() {
    let gh = FakeGh::new("fake-gh", "too_much").answering("issue_list.json");
    let tools = gh.tools_of(GithubCliToolset::new().with_max_output_bytes(64));
    assert_eq!(
        tools[0].dynamic_call(json!({})),
        json!(
            "Error: gh issue list printed more than 64 bytes; ask for less (a smaller limit or page)"
        )
    );
}

#[test]
fn a_missing_gh_is_reported_with_a_hint() {
    let tools = Arc::new(GithubCliToolset::new().with_program("/nonexistent/bin/gh")).into_tools();
    assert_eq!(
        tools[2].dynamic_call(json!({"issue_number": 1})),
        json!(
            "Error: could not run /nonexistent/bin/gh: No such file or directory (os error 2); is the \
             GitHub CLI installed and on PATH?"
        )
    );
}

#[test]
fn a_limit_outside_one_to_a_thousand_is_refused() {
    let gh = FakeGh::new("fake-gh", "bad_limit");
    for limit in [0, 1001] {
        assert_eq!(
            gh.call("github_list_prs", json!({"limit": limit})),
            json!(format!(
                "Error: invalid limit: must be between 1 and 1000, got {limit}"
            ))
        );
    }
    assert!(gh.runs().is_empty());
}

#[test]
fn a_state_outside_the_enum_is_refused_by_the_schema() {
    let gh = FakeGh::new("fake-gh", "bad_state_argument");
    assert_eq!(
        gh.call("github_list_issues", json!({"state": "opened"})),
        json!(
            "Error: invalid arguments for github_list_issues: state: expected one of \"open\", \
             \"closed\", \"all\", got the string \"opened\""
        )
    );
    assert!(gh.runs().is_empty());
}

#[test]
fn typed_states_name_the_values_gh_takes() {
    assert_eq!(IssueState::default().as_str(), "open");
    assert_eq!(PrState::Merged.to_string(), "merged");
    assert_eq!(TrafficPeriod::Week.to_string(), "week");
}

#[tokio::test]
async fn acall_runs_gh_off_the_async_runtime() {
    let gh = FakeGh::new("fake-gh", "acall").answering("pr_view.json");
    let tools = gh.tools();
    let value = tools[3].acall(json!({"pr_number": 12})).await.unwrap();
    assert!(
        value
            .as_str()
            .unwrap()
            .starts_with("Pull Request #12: Add retries\n")
    );
}

/// Runs in a child test process whose PATH starts with the fake, so the default program name
/// `gh` is looked up on PATH exactly as in production (the parent's PATH stays untouched).
#[test]
fn the_default_program_is_gh_found_on_path() {
    if std::env::var_os("TOOLKIT_FAKE_GH_CHILD").is_some() {
        let tools = GithubCliToolset::to_tools();
        let text = tools[3].dynamic_call(json!({"pr_number": 12}));
        assert!(
            text.as_str()
                .unwrap()
                .starts_with("Pull Request #12: Add retries\n"),
            "{text}"
        );
        return;
    }
    let gh = FakeGh::new("fake-gh", "default_on_path").answering("pr_view.json");
    let path = std::env::join_paths(std::iter::once(gh.dir.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "the_default_program_is_gh_found_on_path",
            "--test-threads=1",
        ])
        .env("PATH", path)
        .env("TOOLKIT_FAKE_GH_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        child.status.success(),
        "the child test failed:\n{}{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    assert_eq!(
        gh.only_argv()[2],
        json!("12"),
        "the child ran the fake through PATH"
    );
}
