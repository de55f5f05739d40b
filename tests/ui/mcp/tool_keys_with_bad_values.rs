use toolkit::prelude::*;

#[derive(Default)]
struct Repo;

#[toolset]
impl Repo {
    /// Push the current branch
    #[tool(title = "  ", scopes = ["repo:write", "", "repo write", "repo:write"], task = "sometimes")]
    fn push(&self) {}

    /// Pull
    #[tool(icon = "http://example.com/a.png", icon = ["https://example.com/b.png", "file:///etc/passwd"])]
    fn pull(&self) {}
}

fn main() {}
