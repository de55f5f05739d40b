use toolkit::prelude::*;

#[derive(Default)]
struct Repo;

#[toolset(name = "repo")]
impl Repo {
    /// Search the repository
    #[tool(outputs_to_state(documents), outputs_to_string = "summary")]
    fn search(&self, #[arg(from_state)] repository: String, query: String) -> Vec<String> {
        vec![repository, query]
    }
}

fn main() {}
