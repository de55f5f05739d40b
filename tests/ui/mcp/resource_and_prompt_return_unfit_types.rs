use toolkit::prelude::*;

#[derive(Default)]
struct Stats;

#[toolset]
impl Stats {
    /// A count
    #[resource(uri = "stats://count")]
    fn count(&self) -> u32 {
        3
    }

    /// A user's count
    #[resource(uri = "stats://{user}")]
    async fn per_user(&self, user: String) -> Option<String> {
        Some(user)
    }

    /// Lines to say
    #[prompt]
    fn lines(&self) -> Vec<String> {
        Vec::new()
    }
}

fn main() {}
