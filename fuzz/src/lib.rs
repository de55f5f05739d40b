//! Fuzz targets for toolkit (issue 14): each takes the fuzzer's bytes, drives one part of the
//! crate that a model or a network feeds, and panics when an invariant breaks. `src/bin/fuzz.rs`
//! runs them under AFL++, `src/bin/replay.rs` replays files through them, and the workspace's
//! `tests/fuzz_smoke.rs` replays the seed corpora in CI.

pub mod targets;
