use serde::{Deserialize, Serialize};
use toolkit::prelude::*;

#[derive(AgentState, Default, Serialize, Deserialize)]
struct Desk {
    region: String,
}

#[derive(Default)]
struct Clerk;

#[toolset(name = "clerk", state = Desk)]
impl Clerk {
    /// Route to the desk's region
    #[tool]
    fn route(&self, #[arg(from_state, header = "Region")] region: String) -> String {
        region
    }
}

fn main() {}
