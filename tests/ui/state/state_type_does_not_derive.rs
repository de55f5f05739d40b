use toolkit::prelude::*;

#[derive(Default)]
struct Research {
    repository: String,
}

#[derive(Default)]
struct Repo;

#[toolset(name = "repo", state = Research)]
impl Repo {
    /// Search the repository
    #[tool]
    fn search(&self, #[arg(from_state)] repository: String) -> String {
        repository
    }
}

fn main() {
    let _ = Research::default().repository;
}
