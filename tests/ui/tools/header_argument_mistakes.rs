use toolkit::prelude::*;

#[derive(Default)]
struct Router;

#[toolset]
impl Router {
    /// Send a message to a region
    #[tool]
    fn send(
        &self,
        #[arg(header = "Region Name")] region: String,
        #[arg(header = "Zone")] zone: String,
        #[arg(header = "zone")] backup_zone: String,
        #[arg(header = "")] text: String,
    ) -> String {
        format!("{text} {region} {zone} {backup_zone}")
    }
}

fn main() {}
