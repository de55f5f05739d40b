//! The MCP client's reader of the older HTTP+SSE transport's event stream, fed any body cut
//! into chunks anywhere. The input is a byte choosing the line bound, a byte seeding the
//! chunking, then the body.
//!
//! Invariants: nothing panics; the body read whole, in seeded random chunks and a byte at a
//! time gives the same endpoint, messages and error; an endpoint found is on the stream's
//! origin; and reading stops early only for a line longer than the bound.

use toolkit::mcp::{
    __EventStreamRead as EventStreamRead, __read_event_stream as read_event_stream,
};

use super::input::runtime;

const BASE: &str = "http://127.0.0.1:8000/sse";
const ORIGIN: &str = "http://127.0.0.1:8000/";
/// A bound no fuzz input reaches.
const LARGE: usize = 1 << 24;

pub fn run(data: &[u8]) {
    let [bound, seed, body @ ..] = data else {
        return;
    };
    let max_line = if bound % 2 == 0 {
        LARGE
    } else {
        1 + usize::from(*bound) * 4
    };
    let whole = read(vec![body.to_vec()], max_line);
    if let Ok(endpoint) = &whole.endpoint {
        assert!(
            endpoint.starts_with(ORIGIN),
            "an endpoint on another origin: {endpoint}"
        );
    }
    // Lines the specification says to ignore are ignored: only an over-long line stops reading.
    let stopped = whole.error.as_ref().or(whole.endpoint.as_ref().err());
    if let Some(err) = stopped.filter(|err| !err.contains("message endpoint")) {
        assert!(
            longest_line(body) > max_line,
            "reading stopped ({err}) with no long line"
        );
    }
    let chunked = read(chunks(body, *seed), max_line);
    assert_eq!(whole, chunked, "the stream read differently in chunks");
    if body.len() <= 4096 {
        let bytes = read(body.iter().map(|b| vec![*b]).collect(), max_line);
        assert_eq!(whole, bytes, "the stream read differently a byte at a time");
    }
}

fn read(chunks: Vec<Vec<u8>>, max_line: usize) -> EventStreamRead {
    runtime().block_on(read_event_stream(BASE, chunks, max_line))
}

/// The body cut into chunks of 1 to 32 bytes, chosen by a small PRNG seeded with `seed`.
fn chunks(body: &[u8], seed: u8) -> Vec<Vec<u8>> {
    let mut state = u32::from(seed).wrapping_mul(2_654_435_761) | 1;
    let mut rest = body;
    let mut chunks = Vec::new();
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let size = (1 + state as usize % 32).min(rest.len());
        let (chunk, tail) = rest.split_at(size);
        chunks.push(chunk.to_vec());
        rest = tail;
    }
    chunks
}

/// The longest run of bytes without a line end (`\n` or `\r`).
fn longest_line(body: &[u8]) -> usize {
    body.split(|b| matches!(b, b'\n' | b'\r'))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0)
}
