use toolkit::prelude::*;

#[derive(Default)]
struct Users;

#[toolset]
impl Users {
    /// A user's profile
    #[resource(uri = "users://{id}/profile", mime_type = "application/json")]
    fn profile(&self) -> String {
        String::new()
    }
}

fn main() {}
