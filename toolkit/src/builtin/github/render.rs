//! What each tool answers: `gh`'s JSON, parsed into [`types`](super::types), as the text
//! DSPy.rb's tools print.

use super::types::{
    IssueDetails, IssueSummary, Label, Mergeable, PrDetails, PrSummary, Traffic, User,
};

pub(super) fn issue_list(issues: &[IssueSummary]) -> String {
    if issues.is_empty() {
        return "No issues found".into();
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
    out.join("\n")
}

pub(super) fn pr_list(prs: &[PrSummary]) -> String {
    if prs.is_empty() {
        return "No pull requests found".into();
    }
    let mut out = vec![format!("Found {} pull request(s):", prs.len())];
    for pr in prs {
        out.push(format!("#{}: {} ({})", pr.number, pr.title, pr.state));
        out.push(format!("  {} → {}", pr.head_ref_name, pr.base_ref_name));
        out.push(format!("  URL: {}", pr.url));
        out.push(String::new());
    }
    out.join("\n")
}

pub(super) fn issue(details: IssueDetails) -> String {
    let issue = &details.issue;
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
    out.push(body_or_placeholder(details.body));
    out.join("\n")
}

pub(super) fn pr(pr: PrDetails) -> String {
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
    out.join("\n")
}

/// `label` is `Views` or `Clones`.
pub(super) fn traffic(label: &str, traffic: &Traffic) -> String {
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
    out.join("\n")
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
