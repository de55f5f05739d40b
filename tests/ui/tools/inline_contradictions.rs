// `inline` says a sync body returns at once: an async tool or a `blocking` one cannot be it.
use toolkit::prelude::*;

#[derive(Default)]
struct Clock;

#[toolset(name = "clock")]
impl Clock {
    /// Wait for a tick
    #[tool(inline)]
    async fn tick(&self) -> u64 {
        1
    }

    /// Read the time
    #[tool(inline, blocking)]
    fn now(&self) -> u64 {
        0
    }
}

fn main() {}
