use toolkit::prelude::*;

#[derive(Default)]
struct Users;

#[toolset]
impl Users {
    /// A user's post
    #[resource(uri = "users://{id}/posts/{post}")]
    fn post(&self, id: u32, post: u32, verbose: bool) -> String {
        format!("{id} {post} {verbose}")
    }
}

fn main() {}
