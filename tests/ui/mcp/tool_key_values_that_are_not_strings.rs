use toolkit::prelude::*;

#[derive(Default)]
struct Repo;

#[toolset]
impl Repo {
    /// Push the current branch
    #[tool(title = push_branch)]
    fn push(&self) {}

    /// Pull
    #[tool(scopes = ["repo:read", 42])]
    fn pull(&self) {}

    /// Fetch
    #[tool(task = required)]
    fn fetch(&self) {}
}

fn main() {}
