//! What the MCP tests share: a local Python virtual environment with the official MCP SDK,
//! child processes that are always stopped, and free loopback ports.
//!
//! The venv lives in `target/mcp-venv` and is created on first use with a pinned `mcp` version,
//! so a clean clone needs only `python3` (3.10+) with `venv` and `pip`, and PyPI. A lock
//! directory makes the set-up safe when several test binaries start at once.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use super::examples::{build_example, target_dir};
use std::time::{Duration, Instant, SystemTime};

/// The Python SDK version the tests run against.
pub const MCP_VERSION: &str = "2.3.0";

/// The workspace root. The tests belong to the root package, but toolkit's `mcp_stdio` bench
/// includes this file too, from `toolkit/`: look for this file upwards from either.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("tests/common/mcp.rs").is_file())
        .expect("the package sits in the toolkit workspace")
        .to_path_buf()
}

/// A script under `tests/mcp/`.
pub fn script(name: &str) -> String {
    root()
        .join("tests/mcp")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The venv's Python, with `mcp==MCP_VERSION` installed; set up once per machine.
pub fn python() -> String {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON
        .get_or_init(|| venv_python("mcp-venv", &[&format!("mcp=={MCP_VERSION}")]))
        .clone()
}

/// The Python of the venv `target/<name>` with the pinned `requirements` installed; set up on
/// first use, once per machine, safely when several test binaries ask at once.
pub fn venv_python(name: &str, requirements: &[&str]) -> String {
    let venv = target_dir().join(name);
    let python = venv.join("bin/python");
    // The marker names the pins, so changing one installs again.
    let ready = venv.join(format!(".toolkit-{}", requirements.join("+")));
    if !ready.exists() {
        let lock = target_dir().join(format!("{name}.lock"));
        let _guard = DirLock::acquire(&lock);
        if !ready.exists() {
            install(&venv, &python, requirements);
            std::fs::write(&ready, requirements.join("\n")).expect("mark the venv ready");
        }
    }
    python.to_string_lossy().into_owned()
}

fn install(venv: &Path, python: &Path, requirements: &[&str]) {
    std::fs::create_dir_all(target_dir()).expect("create target/");
    if !python.exists() {
        let base = std::env::var("TOOLKIT_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        run(Command::new(&base).arg("-m").arg("venv").arg(venv));
    }
    run(Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(requirements));
}

/// The version of the reference server `@modelcontextprotocol/server-everything` the proxy test
/// runs against, with every dependency pinned by `tests/mcp/everything/package-lock.json`.
pub const EVERYTHING_VERSION: &str = "2026.8.31";

/// The reference server's program (`mcp-server-everything`), installed once per machine into
/// `target/mcp-everything` with `npm ci` from the pinned lock file; `None` when `node` or
/// `npm` is missing, so the test says it was skipped instead of failing.
pub fn everything_server() -> Option<PathBuf> {
    static PROGRAM: OnceLock<Option<PathBuf>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            let found = |program: &str| {
                Command::new(program)
                    .arg("--version")
                    .stdout(Stdio::null())
                    .status()
                    .is_ok_and(|status| status.success())
            };
            if !found("node") || !found("npm") {
                return None;
            }
            let dir = target_dir().join("mcp-everything");
            let program = dir.join("node_modules/.bin/mcp-server-everything");
            let ready = dir.join(format!(".toolkit-everything-{EVERYTHING_VERSION}"));
            if !ready.exists() {
                std::fs::create_dir_all(target_dir()).expect("create target/");
                let _guard = DirLock::acquire(&target_dir().join("mcp-everything.lock"));
                if !ready.exists() {
                    std::fs::create_dir_all(&dir).expect("create target/mcp-everything");
                    for file in ["package.json", "package-lock.json"] {
                        std::fs::copy(
                            root().join("tests/mcp/everything").join(file),
                            dir.join(file),
                        )
                        .expect("copy the pinned package files");
                    }
                    run(Command::new("npm")
                        .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                        .current_dir(&dir));
                    std::fs::write(&ready, EVERYTHING_VERSION).expect("mark it ready");
                }
            }
            Some(program)
        })
        .clone()
}

pub fn run(command: &mut Command) {
    let status = command
        .status()
        .unwrap_or_else(|err| panic!("could not run {command:?}: {err}"));
    assert!(status.success(), "{command:?} failed: {status}");
}

/// A lock made of a directory, whose creation is atomic; a lock left by a killed run is taken
/// over after 15 minutes.
struct DirLock(PathBuf);

impl DirLock {
    fn acquire(path: &Path) -> DirLock {
        let deadline = Instant::now() + Duration::from_secs(20 * 60);
        loop {
            match std::fs::create_dir(path) {
                Ok(()) => return DirLock(path.to_path_buf()),
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                    let stale = std::fs::metadata(path)
                        .and_then(|meta| meta.modified())
                        .ok()
                        .and_then(|at| SystemTime::now().duration_since(at).ok())
                        .is_some_and(|age| age > Duration::from_secs(15 * 60));
                    if stale {
                        let _ = std::fs::remove_dir(path);
                    }
                    assert!(Instant::now() < deadline, "timed out waiting for {path:?}");
                    std::thread::sleep(Duration::from_millis(500));
                }
                Err(err) => panic!("could not create {path:?}: {err}"),
            }
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A child process killed and reaped when dropped, so no test leaves a server behind.
pub struct Process(pub Child);

impl Process {
    pub fn spawn(command: &mut Command) -> Process {
        Process(
            command
                .spawn()
                .unwrap_or_else(|err| panic!("could not start {command:?}: {err}")),
        )
    }

    /// Kills the process now.
    pub fn stop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("bind a loopback port")
        .port()
}

/// Waits until `server` answers HTTP on `port`, and panics if it exits first.
///
/// A TCP connect alone is not proof: while nothing listens on an ephemeral port, a connect to it
/// can be given that same port as its source and connect to itself, and it then "succeeds" with
/// nobody there. An HTTP status line is only written by a server.
pub fn wait_for_port(server: &mut Process, port: u16) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !answers_http(port) {
        if let Ok(Some(status)) = server.0.try_wait() {
            panic!("the server meant for port {port} exited first: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "nothing answers HTTP on port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn answers_http(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    let mut head = [0u8; 5];
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_exact(&mut head).is_ok()
        && &head == b"HTTP/"
}

/// The Python SDK server script serving over `transport` ("streamable-http" or "sse") on `port`.
pub fn python_server(transport: &str, port: u16) -> Process {
    let mut process = Process::spawn(
        Command::new(python())
            .arg(script("python_server.py"))
            .arg(transport)
            .arg(port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    );
    wait_for_port(&mut process, port);
    process
}

/// `examples/mcp_server.rs`, built (debug) if needed.
pub fn example_server() -> String {
    static BUILT: OnceLock<String> = OnceLock::new();
    BUILT
        .get_or_init(|| build_example("mcp_server", false))
        .clone()
}

/// `examples/mcp_server.rs`, built with optimizations (for measurements).
pub fn example_server_release() -> String {
    static BUILT: OnceLock<String> = OnceLock::new();
    BUILT
        .get_or_init(|| build_example("mcp_server", true))
        .clone()
}

/// `examples/mcp_client.rs`, built (debug) if needed.
pub fn example_client() -> String {
    static BUILT: OnceLock<String> = OnceLock::new();
    BUILT
        .get_or_init(|| build_example("mcp_client", false))
        .clone()
}

/// Starts the example server over HTTP on a free port; returns it and its MCP URL.
pub fn example_http_server(token: Option<&str>) -> (Process, String) {
    example_http_server_with(token, &[])
}

/// [`example_http_server`] with more command-line flags (`--max-sessions 20`, say).
pub fn example_http_server_with(token: Option<&str>, flags: &[&str]) -> (Process, String) {
    example_http_server_on(0, token, flags)
}

/// [`example_http_server_with`] on a given loopback port (0 for any free one), to start a
/// server again where clients expect it.
pub fn example_http_server_on(port: u16, token: Option<&str>, flags: &[&str]) -> (Process, String) {
    let mut command = Command::new(example_server());
    command
        .args(["--http", &format!("127.0.0.1:{port}")])
        .args(flags);
    // Through the environment, as the example asks: a command line is visible to `ps`.
    command.env_remove("MCP_BEARER_TOKEN");
    if let Some(token) = token {
        command.env("MCP_BEARER_TOKEN", token);
    }
    let mut process = Process::spawn(command.stdout(Stdio::piped()));
    let stdout = process.0.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the server prints its address");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (process, url)
}
