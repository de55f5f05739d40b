//! The values `gh` reads and prints: the enums of the tools' parameters and of gh's JSON, and
//! the shapes of the JSON each command prints.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// A label, as `gh` prints it in an issue's `labels`.
#[derive(Deserialize)]
pub(super) struct Label {
    pub(super) name: String,
}

/// A user, as `gh` prints it in an issue's `assignees`.
#[derive(Deserialize)]
pub(super) struct User {
    pub(super) login: String,
}

/// One issue of `gh issue list --json number,title,state,labels,assignees,url`.
#[derive(Deserialize)]
pub(super) struct IssueSummary {
    pub(super) number: u64,
    pub(super) title: String,
    pub(super) state: IssueStatus,
    #[serde(default)]
    pub(super) labels: Vec<Label>,
    #[serde(default)]
    pub(super) assignees: Vec<User>,
    pub(super) url: String,
}

/// The issue of `gh issue view --json number,title,state,body,labels,assignees,url`: a summary
/// and its body.
#[derive(Deserialize)]
pub(super) struct IssueDetails {
    #[serde(flatten)]
    pub(super) issue: IssueSummary,
    #[serde(default)]
    pub(super) body: Option<String>,
}

/// One pull request of `gh pr list --json number,title,state,baseRefName,headRefName,url`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PrSummary {
    pub(super) number: u64,
    pub(super) title: String,
    pub(super) state: PrStatus,
    pub(super) base_ref_name: String,
    pub(super) head_ref_name: String,
    pub(super) url: String,
}

/// The pull request of `gh pr view --json ...,mergeable,url`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PrDetails {
    pub(super) number: u64,
    pub(super) title: String,
    pub(super) state: PrStatus,
    #[serde(default)]
    pub(super) body: Option<String>,
    pub(super) base_ref_name: String,
    pub(super) head_ref_name: String,
    pub(super) mergeable: Mergeable,
    pub(super) url: String,
}

/// One day or week of a traffic report.
#[derive(Deserialize)]
pub(super) struct TrafficPoint {
    pub(super) timestamp: String,
    pub(super) count: u64,
    pub(super) uniques: u64,
}

/// A traffic report (`repos/OWNER/REPO/traffic/views` or `.../clones`): totals, then the
/// data points under `views` or `clones`.
#[derive(Deserialize)]
pub(super) struct Traffic {
    pub(super) count: u64,
    pub(super) uniques: u64,
    #[serde(default, alias = "views", alias = "clones")]
    pub(super) points: Vec<TrafficPoint>,
}
