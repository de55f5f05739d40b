//! Names the module generated code goes through after this crate's version, as serde and
//! thiserror do (`serde::__private228`): `#[toolset]` expands to `::toolkit::__private_0_1_0::...`
//! with the version of the macro crate that wrote it, so a `toolkit-macros` of another version
//! fails to compile against this `toolkit` instead of calling a hidden API that changed.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let version = env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    // The macro crate spells the name the same way (`toolkit-macros/src/expand.rs`).
    let version = version.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let module = format!(
        "/// What generated code uses. Not a public API: it changes without notice.\n\
         #[doc(hidden)]\n\
         pub mod __private_{version} {{\n    \
             #[doc(hidden)]\n    \
             pub use crate::private::*;\n\
         }}\n"
    );
    fs::write(out_dir.join("private.rs"), module).expect("OUT_DIR is writable");
}
