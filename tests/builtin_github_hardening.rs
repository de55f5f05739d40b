//! `GithubCliToolset` against an attacker's choices (issue 14, defect 7), with the fake `gh` of
//! tests/fixtures/fake_gh.py: a repository on another host is refused unless the application
//! allowed that host; tokens in gh's stderr never reach the model; the deadline bounds the whole
//! run and everything gh started dies with it.
#![cfg(unix)]

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use toolkit::builtin::GithubCliToolset;
use toolkit::prelude::*;

mod common;
use common::fake_gh::FakeGh;

// ---- hosts ----

#[test]
fn a_repository_on_another_host_is_refused_by_default_before_gh_runs() {
    let gh = FakeGh::new("fake-gh-hardening", "other_host");
    for host in ["evil.example.com", "127.0.0.1"] {
        let repo = format!("{host}/o/r");
        let refused = json!(format!(
            "Error: repo names the host '{host}', which is not allowed; allowed hosts: github.com"
        ));
        // --repo for the issue and pull request tools, GH_REPO for api, --hostname for traffic.
        let calls = [
            ("github_list_issues", json!({"repo": repo})),
            ("github_list_prs", json!({"repo": repo})),
            ("github_get_issue", json!({"issue_number": 1, "repo": repo})),
            ("github_get_pr", json!({"pr_number": 1, "repo": repo})),
            (
                "github_api_request",
                json!({"endpoint": "repos/{owner}/{repo}", "repo": repo}),
            ),
            ("github_traffic_views", json!({"repo": repo})),
            ("github_traffic_clones", json!({"repo": repo})),
        ];
        for (tool, args) in calls {
            assert_eq!(gh.call(tool, args), refused, "{tool}");
        }
    }
    assert!(gh.runs().is_empty(), "no refused host may reach gh");
}

#[test]
fn github_com_is_allowed_by_default_in_any_case() {
    let gh = FakeGh::new("fake-gh-hardening", "github_com").set("stdout", "[]");
    assert_eq!(
        gh.call(
            "github_list_issues",
            json!({"repo": "GitHub.com/octo/hello"})
        ),
        json!("No issues found")
    );
    assert_eq!(
        gh.runs()[0]["argv"].as_array().unwrap().last(),
        Some(&json!("--repo=GitHub.com/octo/hello"))
    );
}

#[test]
fn an_allowed_host_list_set_by_the_application_is_accepted_and_replaces_the_default() {
    let gh = FakeGh::new("fake-gh-hardening", "allowed_hosts").set("stdout", r#"{"id": 1}"#);
    let toolset = GithubCliToolset::new().with_allowed_hosts(["ghe.example.com", "Git.Corp"]);
    let api = gh.tool(toolset, "github_api_request");
    for repo in ["ghe.example.com/octo/hello", "git.corp/octo/hello"] {
        assert_eq!(
            api.dynamic_call(json!({"endpoint": "repos/{owner}/{repo}", "repo": repo})),
            json!("{\"id\": 1}")
        );
    }
    assert_eq!(
        gh.runs()
            .iter()
            .map(|run| run["GH_REPO"].clone())
            .collect::<Vec<_>>(),
        [
            json!("ghe.example.com/octo/hello"),
            json!("git.corp/octo/hello")
        ]
    );
    assert_eq!(
        api.dynamic_call(json!({"endpoint": "user", "repo": "github.com/octo/hello"})),
        json!(
            "Error: repo names the host 'github.com', which is not allowed; allowed hosts: \
             ghe.example.com, git.corp"
        )
    );
    assert_eq!(gh.runs().len(), 2);
}

#[test]
fn with_no_allowed_host_only_owner_slash_repo_reaches_gh() {
    let gh = FakeGh::new("fake-gh-hardening", "no_hosts").set("stdout", "[]");
    let list = gh.tool(
        GithubCliToolset::new().with_allowed_hosts(Vec::<String>::new()),
        "github_list_prs",
    );
    assert_eq!(
        list.dynamic_call(json!({"repo": "github.com/octo/hello"})),
        json!("Error: repo names the host 'github.com', which is not allowed; allowed hosts: none")
    );
    assert_eq!(
        list.dynamic_call(json!({"repo": "octo/hello"})),
        json!("No pull requests found")
    );
    assert_eq!(gh.runs().len(), 1);
}

#[test]
fn traffic_on_an_allowed_host_passes_it_as_hostname() {
    let gh = FakeGh::new("fake-gh-hardening", "traffic_host")
        .set("stdout", r#"{"count": 0, "uniques": 0}"#);
    let toolset = GithubCliToolset::new().with_allowed_hosts(["github.com", "ghe.example.com"]);
    gh.tool(toolset, "github_traffic_views")
        .dynamic_call(json!({"repo": "ghe.example.com/octo/hello"}));
    assert_eq!(
        gh.runs()[0]["argv"],
        json!([
            "api",
            "--method",
            "GET",
            "--hostname=ghe.example.com",
            "--",
            "repos/octo/hello/traffic/views"
        ])
    );
}

// ---- credentials in stderr ----

#[test]
fn token_shapes_in_gh_stderr_are_redacted_and_the_reason_kept() {
    let gh = FakeGh::new("fake-gh-hardening", "stderr_tokens")
        .set(
            "stderr",
            "HTTP 401: Bad credentials (https://api.github.com/repos/o/r)\n\
             using ghp_AbCdEf0123456789AbCdEf0123456789AbCd, gho_16C7e42F292c6912E7710c838347Ae178B4a,\n\
             ghu_x1 ghs_y2 ghr_z3 and github_pat_11ABCDEFG0_abcdefXYZ0123456789\n\
             > Authorization: token 0123456789abcdef0123456789abcdef01234567\n\
             > authorization=\"Basic dXNlcjpwYXNz\"\n\
             retry with Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig or token 0123456789abcdef0123456789abcdef01234567\n\
             GH_TOKEN=abcdefgh12345678 access_token: abcdefghijklmnopqrstuvwx\n\
             The token is invalid; token: missing required scope 'read:org'\n",
        )
        .set("exit_code", "1");
    assert_eq!(
        gh.call("github_get_issue", json!({"issue_number": 1})),
        json!(
            "Error: gh issue view failed (exit status: 1): HTTP 401: Bad credentials \
             (https://api.github.com/repos/o/r)\n\
             using [redacted], [redacted],\n\
             [redacted] [redacted] [redacted] and [redacted]\n\
             > Authorization: [redacted]\n\
             > authorization=[redacted]\n\
             retry with Bearer [redacted] or token [redacted]\n\
             GH_TOKEN=[redacted] access_token: [redacted]\n\
             The token is invalid; token: missing required scope 'read:org'"
        )
    );
}

/// Runs in a child test process with the token variables set, so this process's environment
/// (shared by every test thread) stays untouched.
#[test]
fn the_values_of_the_token_variables_are_redacted_even_when_stderr_cuts_them() {
    const TOKEN: &str = "plain-secret-0001-from-env";
    const ENTERPRISE: &str = "enterprise-secret-0002";
    if std::env::var_os("TOOLKIT_FAKE_GH_CHILD").is_some() {
        let head = format!("{TOKEN} was refused (HTTP 401)\n");
        // The 8 KiB cut leaves the first 11 bytes of ENTERPRISE at the end.
        let padding = "a".repeat(8 * 1024 - head.len() - " ".len() - 11);
        let gh = FakeGh::new("fake-gh-hardening", "stderr_env_child")
            .set("stderr", &format!("{head}{padding} {ENTERPRISE}"))
            .set("exit_code", "1");
        assert_eq!(
            gh.call("github_list_prs", json!({})),
            json!(format!(
                "Error: gh pr list failed (exit status: 1): [redacted] was refused (HTTP 401)\n\
                 {padding} [redacted]"
            ))
        );
        return;
    }
    let child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "the_values_of_the_token_variables_are_redacted_even_when_stderr_cuts_them",
            "--test-threads=1",
        ])
        .env("TOOLKIT_FAKE_GH_CHILD", "1")
        .env("GH_TOKEN", TOKEN)
        .env("GH_ENTERPRISE_TOKEN", ENTERPRISE)
        .env_remove("GITHUB_TOKEN")
        .env_remove("GITHUB_ENTERPRISE_TOKEN")
        .output()
        .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&child.stdout),
        String::from_utf8_lossy(&child.stderr)
    );
    assert!(child.status.success(), "the child test failed:\n{report}");
    assert!(
        report.contains("1 passed"),
        "the child ran the test:\n{report}"
    );
}

// ---- the deadline and gh's children ----

#[test]
fn a_background_child_holding_stdout_neither_delays_the_result_nor_survives() {
    // The child would hold gh's stdout for 4 s, then write `survived`.
    let gh = FakeGh::new("fake-gh-hardening", "background")
        .set("stdout", "[]")
        .set("background", "4");
    let started = Instant::now();
    let tool = gh.tool(
        GithubCliToolset::new().with_timeout(Duration::from_secs(10)),
        "github_list_issues",
    );
    assert_eq!(tool.dynamic_call(json!({})), json!("No issues found"));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "the call waited for the background child: {:?}",
        started.elapsed()
    );
    thread::sleep(Duration::from_millis(4500).saturating_sub(started.elapsed()));
    assert!(
        !gh.exists("survived"),
        "gh's background child was not killed"
    );
}

#[test]
fn at_the_deadline_gh_and_everything_it_started_are_killed() {
    let gh = FakeGh::new("fake-gh-hardening", "deadline_group")
        .set("sleep", "30")
        .set("background", "2");
    let started = Instant::now();
    let tool = gh.tool(
        GithubCliToolset::new().with_timeout(Duration::from_millis(500)),
        "github_list_issues",
    );
    assert_eq!(
        tool.dynamic_call(json!({})),
        json!("Error: gh issue list did not finish within 500ms and was stopped")
    );
    assert!(started.elapsed() < Duration::from_millis(1500));
    thread::sleep(Duration::from_millis(2500).saturating_sub(started.elapsed()));
    assert!(!gh.exists("survived"), "gh's child outlived the deadline");
}

#[test]
fn a_child_that_left_the_group_cannot_stretch_the_deadline() {
    // It holds stdout for 6 s from a session of its own, out of reach of the group kill.
    let gh = FakeGh::new("fake-gh-hardening", "detached")
        .set("stdout", "[]")
        .set("background", "6")
        .set("background_detached", "");
    let started = Instant::now();
    let tool = gh.tool(
        GithubCliToolset::new().with_timeout(Duration::from_secs(1)),
        "github_list_issues",
    );
    assert_eq!(
        tool.dynamic_call(json!({})),
        json!("Error: gh issue list did not finish within 1s and was stopped")
    );
    let elapsed = started.elapsed();
    // Not ours to leave running: the test stops it itself.
    let _ = Command::new("kill")
        .args(["-9", gh.background_pid().trim()])
        .status();
    assert!(
        elapsed < Duration::from_secs(3),
        "the deadline did not bound draining the pipes: {elapsed:?}"
    );
}
