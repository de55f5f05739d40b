use toolkit::prelude::*;
use toolkit::schemars::{self, JsonSchema};

/// A point that derives `JsonSchema` but not `Deserialize`.
#[derive(JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Default)]
struct Geometry;

#[toolset]
impl Geometry {
    /// Distance from the origin
    #[tool]
    fn norm(&self, point: Point) -> f64 {
        f64::from(point.x * point.x + point.y * point.y).sqrt()
    }
}

fn main() {}
