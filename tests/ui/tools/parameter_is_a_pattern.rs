use toolkit::prelude::*;

#[derive(Default)]
struct Geometry;

#[toolset]
impl Geometry {
    /// Add the two coordinates of a point
    #[tool]
    fn sum(&self, (x, y): (i64, i64)) -> i64 {
        x + y
    }
}

fn main() {}
