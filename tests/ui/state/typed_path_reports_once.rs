// The typed path with state adds no error of its own: a result that is not `Serialize` and an
// error type that is not `Display` are each reported once, as without state.
use serde::{Deserialize, Serialize};
use toolkit::prelude::*;

struct Opaque;

#[derive(AgentState, Default, Serialize, Deserialize)]
struct Desk {
    count: u32,
}

#[derive(Default)]
struct Clerk;

#[toolset(name = "clerk", state = Desk)]
impl Clerk {
    /// Return something serde cannot write
    #[tool]
    fn opaque(&self, #[arg(from_state)] count: u32) -> Opaque {
        let _ = count;
        Opaque
    }

    /// Fail with an error that cannot be shown
    #[tool(outputs_to_state(count))]
    fn fails(&self, #[arg(from_state)] count: u32) -> Result<u32, Opaque> {
        Ok(count)
    }
}

fn main() {}
