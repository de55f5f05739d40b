//! A Restate server on loopback for a test: restate-server 1.7.12 as `scripts/durable install`
//! pins it, in a data directory of its own, on ports it picks; killed when dropped.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::mcp::{Process, root};

/// A running server and where it answers.
pub struct Restate {
    /// The ingress, `http://127.0.0.1:PORT`.
    pub ingress: String,
    /// The admin API, `http://127.0.0.1:PORT`.
    pub admin: String,
    process: Process,
    dir: PathBuf,
}

/// The binary, installed once per test process (`scripts/durable install` skips an install
/// whose lock file is unchanged).
fn binary() -> &'static PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let output = Command::new("python3")
            .current_dir(root())
            .args(["scripts/durable", "install"])
            .output()
            .expect("python3 runs scripts/durable");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "scripts/durable install failed: {output:?}"
        );
        PathBuf::from(
            stdout
                .lines()
                .last()
                .expect("the script prints the binary's path"),
        )
    })
}

impl Restate {
    /// Starts a server and waits (at most 60 s) until its ingress and admin API listen.
    pub fn start() -> Restate {
        static SERVERS: AtomicUsize = AtomicUsize::new(0);
        let n = SERVERS.fetch_add(1, Ordering::SeqCst);
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("restate-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut command = Command::new(binary());
        command
            .args([
                "--base-dir",
                &dir.to_string_lossy(),
                "--bind-ip",
                "127.0.0.1",
            ])
            .args(["--use-random-ports", "true", "--node-name", "n1"])
            .env("RESTATE_LOG_FORMAT", "json")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut process = Process::spawn(&mut command);
        let stdout = process.0.stdout.take().expect("stdout is piped");
        let (ports, listening) = mpsc::channel();
        // Reads the log to its end, so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(found) = listener(&line) {
                    let _ = ports.send(found);
                }
            }
        });
        let (mut ingress, mut admin) = (None, None);
        while ingress.is_none() || admin.is_none() {
            let (name, port) = listening
                .recv_timeout(Duration::from_secs(60))
                .expect("restate-server listens within 60 s");
            let url = Some(format!("http://127.0.0.1:{port}"));
            match name.as_str() {
                "http-ingress-server" => ingress = url,
                "admin-api-server" => admin = url,
                _ => {}
            }
        }
        Restate {
            ingress: ingress.unwrap_or_default(),
            admin: admin.unwrap_or_default(),
            process,
            dir,
        }
    }
}

/// A "listening" log line's server name and port.
fn listener(line: &str) -> Option<(String, u64)> {
    let entry: serde_json::Value = serde_json::from_str(line).ok()?;
    let span = &entry["span"];
    let name = span["server_name"].as_str()?.to_owned();
    Some((name, span["server.port"].as_u64()?))
}

impl Drop for Restate {
    fn drop(&mut self) {
        self.process.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
