//! A stdio server: the child process, in its own process group killed with the connection, and
//! its stdout re-cut into bounded lines before rmcp reads them.
//!
//! rmcp's stdio transport drops a line over its bound (16 MiB) and goes on: the request that
//! line answered then waits forever, as there is nothing left to answer it. Here a line over the
//! bound is replaced by a JSON-RPC error for the request it answered (its `id` read from the
//! line's first bytes), so the call fails at once, saying why. A line within the bound is
//! [`screen`]ed as a page of tools before rmcp parses it.

use std::collections::BTreeMap;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdin};

use super::listing::{ListingLimits, Screened, screen};
use super::oversize::{PREFIX_BYTES, replacement};

/// A stdio server's process group (its id is the child's pid), killed when dropped.
///
/// rmcp kills the child on drop too, but from a task it spawns: when the runtime is shutting
/// down, as at the end of `main`, that task never runs, and a server ran on for seconds after
/// its client was gone (until it noticed its closed stdin, if it ever does). `killpg` here is
/// synchronous, and reaches the server's own children. The group id cannot name another group
/// while the child lives, or is a zombie not yet reaped: the child is held here, and reaped by
/// tokio only after it is dropped, after the kill.
pub(super) struct ChildGroup {
    child: Child,
}

impl Drop for ChildGroup {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pgid) = self.child.id().and_then(|pid| i32::try_from(pid).ok()) {
            use nix::sys::signal::{Signal, killpg};
            // A group already gone gives ESRCH, ignored.
            let _ = killpg(nix::unistd::Pid::from_raw(pgid), Signal::SIGKILL);
        }
        // Where there are no process groups, the child alone; `kill_on_drop` does it too.
        let _ = self.child.start_kill();
    }
}

/// The two ends rmcp speaks through, and the child they lead to.
pub(super) struct Spawned {
    pub(super) stdout: DuplexStream,
    pub(super) stdin: ChildStdin,
    pub(super) group: ChildGroup,
}

/// Starts `command` in its own process group, its stdout read in lines of at most
/// `max_message_bytes`, pages of tools screened against `listing`.
pub(super) fn spawn(
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    inherit_stderr: bool,
    max_message_bytes: usize,
    listing: ListingLimits,
) -> std::io::Result<Spawned> {
    let mut process = tokio::process::Command::new(command);
    process
        .args(args)
        .envs(env)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(if inherit_stderr {
            std::process::Stdio::inherit()
        } else {
            std::process::Stdio::null()
        })
        .kill_on_drop(true);
    // Its own process group, so what it starts (`npx` runs node, a script its program) goes
    // with it: see [`ChildGroup`].
    #[cfg(unix)]
    process.process_group(0);
    let mut child = process.spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other(
            "the child's stdin or stdout was not piped",
        ));
    };
    let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
    tokio::spawn(bounded_lines(stdout, theirs, max_message_bytes, listing));
    Ok(Spawned {
        stdout: ours,
        stdin,
        group: ChildGroup { child },
    })
}

/// The buffer between the line reader and rmcp: a line of any length flows through it.
const PIPE_BYTES: usize = 64 << 10;

/// Copies `from` to `to` line by line, each line at most `max` bytes (its `\n` aside); a
/// longer line is replaced by an error answering its request, or dropped when its `id` cannot
/// be read, and a page of tools is screened against `listing`. Ends with either side.
async fn bounded_lines(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    max: usize,
    listing: ListingLimits,
) {
    let mut from = BufReader::with_capacity(PIPE_BYTES, from);
    let mut line = Vec::new();
    let mut over = false;
    loop {
        let available = match from.fill_buf().await {
            Ok([]) | Err(_) => return,
            Ok(available) => available,
        };
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        if !over && line.len() + take > max + 1 {
            over = true;
            line.truncate(PREFIX_BYTES);
        }
        let room = if over {
            PREFIX_BYTES.saturating_sub(line.len())
        } else {
            take
        };
        line.extend_from_slice(&available[..take.min(room)]);
        from.consume(take);
        if newline.is_none() {
            continue;
        }
        // Taken, not cleared: one huge line must not keep its buffer for the whole session.
        let out = if over {
            replacement(&line, max).and_then(|error| {
                let mut line = serde_json::to_vec(&error).ok()?;
                line.push(b'\n');
                Some(line)
            })
        } else {
            let whole = std::mem::take(&mut line);
            match screen(&whole, &listing) {
                Screened::Pass => Some(whole),
                // A trimmed page keeps the line's end; a refusal is a line of its own.
                Screened::Trimmed(page) => Some(page),
                Screened::Refused(mut error) => {
                    error.push(b'\n');
                    Some(error)
                }
            }
        };
        if let Some(out) = out
            && to.write_all(&out).await.is_err()
        {
            return;
        }
        line.clear();
        over = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::client::oversize::answer_too_large;
    use serde_json::json;

    async fn through(input: &[u8], max: usize, chunk: usize) -> String {
        let (mut write, read) = tokio::io::duplex(1 << 20);
        let (out, mut collected) = tokio::io::duplex(1 << 20);
        let pump = tokio::spawn(bounded_lines(read, out, max, ListingLimits::default()));
        for piece in input.chunks(chunk) {
            write.write_all(piece).await.unwrap();
        }
        drop(write);
        pump.await.unwrap();
        let mut text = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut collected, &mut text)
            .await
            .unwrap();
        text
    }

    #[tokio::test]
    async fn a_line_over_the_bound_becomes_an_error_for_its_request_whatever_the_chunking() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{{\"text\":\"{}\"}}}}\n",
            "x".repeat(100)
        );
        let input = format!("{{\"id\":1}}\n{big}{{\"id\":2}}\n{}\n", "y".repeat(100));
        let expected = format!(
            "{{\"id\":1}}\n{}\n{{\"id\":2}}\n",
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": answer_too_large(64)}})
        );
        for chunk in [1, 3, 7, 64, 1000] {
            assert_eq!(
                through(input.as_bytes(), 64, chunk).await,
                expected,
                "{chunk}"
            );
        }
    }
}
