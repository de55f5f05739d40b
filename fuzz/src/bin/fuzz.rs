//! The AFL++ entry point: `fuzz <target>`, built by `cargo afl build --features afl` and run by
//! `afl-fuzz` (see `fuzz/run`). A broken invariant panics, which aborts: AFL records a crash.

fn main() {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(target) = toolkit_fuzz::targets::target(&name) else {
        let names: Vec<_> = toolkit_fuzz::targets::TARGETS
            .iter()
            .map(|(n, _)| *n)
            .collect();
        eprintln!("usage: fuzz <target>; targets: {}", names.join(", "));
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| target(data));
}
