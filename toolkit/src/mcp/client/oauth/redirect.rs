//! How the user's browser comes back from the authorization server: [`RedirectHandler`], and
//! [`LocalhostCallback`], a one-shot listener on the loopback interface for command-line
//! programs.

use std::future::Future;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use toolkit_runtime::BoxFuture;

/// What the authorization server sent back to the redirect URI: the code and the `state`
/// (checked against the one sent), and the issuer when it names one (RFC 9207, checked
/// against the authorization server's).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthCallback {
    /// The authorization code.
    pub code: String,
    /// The `state` parameter, as sent back.
    pub state: String,
    /// The `iss` parameter, when there is one.
    pub issuer: Option<String>,
}

impl OAuthCallback {
    /// A callback from its parts.
    pub fn new(code: impl Into<String>, state: impl Into<String>) -> Self {
        OAuthCallback {
            code: code.into(),
            state: state.into(),
            issuer: None,
        }
    }

    /// Reads the callback from the URL the browser was sent to (`code`, `state`, `iss`), or
    /// says why it cannot: the authorization server's `error` and `error_description`, or
    /// the parameter missing.
    ///
    /// ```
    /// use toolkit::mcp::OAuthCallback;
    ///
    /// let callback = OAuthCallback::from_url("http://127.0.0.1:8123/callback?code=c0de&state=s7").unwrap();
    /// assert_eq!((callback.code.as_str(), callback.state.as_str()), ("c0de", "s7"));
    /// let refused = OAuthCallback::from_url("http://127.0.0.1:8123/callback?error=access_denied");
    /// assert!(refused.unwrap_err().contains("access_denied"));
    /// ```
    pub fn from_url(url: &str) -> Result<Self, String> {
        let url = reqwest::Url::parse(url)
            .map_err(|err| format!("the authorization callback is not a URL: {err}"))?;
        let param = |name: &str| {
            url.query_pairs()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.into_owned())
        };
        if let Some(error) = param("error") {
            let description = param("error_description").unwrap_or_default();
            return Err(
                format!("the authorization server refused: {error} {description}")
                    .trim_end()
                    .to_owned(),
            );
        }
        let missing = |name: &str| format!("the authorization callback has no `{name}`");
        Ok(OAuthCallback {
            code: param("code").ok_or_else(|| missing("code"))?,
            state: param("state").ok_or_else(|| missing("state"))?,
            issuer: param("iss"),
        })
    }
}

/// The code is a secret until exchanged.
impl std::fmt::Debug for OAuthCallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthCallback")
            .field("code", &"***")
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// Takes the user through authorization: given the authorization URL, has them visit it
/// (a browser, a printed link, ...) and returns what the authorization server sent to the
/// redirect URI. Any `Fn(String) -> impl Future<Output = Result<OAuthCallback, String>>` is
/// one.
///
/// ```
/// use toolkit::mcp::{OAuthCallback, OAuthConfig};
///
/// let oauth = OAuthConfig::authorization_code(
///     "myapp://oauth/callback",
///     |authorization_url: String| async move {
///         println!("Open {authorization_url}, then paste the address you land on:");
///         let mut line = String::new();
///         std::io::stdin().read_line(&mut line).map_err(|err| err.to_string())?;
///         OAuthCallback::from_url(line.trim())
///     },
/// );
/// ```
pub trait RedirectHandler: Send + Sync + 'static {
    /// The callback for `authorization_url`, or why there is none.
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<OAuthCallback, String>>;
}

impl<F, Fut> RedirectHandler for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<OAuthCallback, String>> + Send + 'static,
{
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<OAuthCallback, String>> {
        Box::pin(self(authorization_url))
    }
}

/// A [`RedirectHandler`] for command-line programs: prints the authorization URL on stderr
/// and waits, up to five minutes, for the browser's request to
/// `http://127.0.0.1:<port>/callback` on a listener bound to the loopback interface only.
///
/// ```no_run
/// use toolkit::mcp::{LocalhostCallback, OAuthConfig};
///
/// # async fn run() -> std::io::Result<()> {
/// let callback = LocalhostCallback::bind(0).await?; // 0: any free port
/// let oauth = OAuthConfig::authorization_code(callback.redirect_uri(), callback);
/// # Ok(()) }
/// ```
pub struct LocalhostCallback {
    listener: tokio::sync::Mutex<TcpListener>,
    redirect_uri: String,
    wait: Duration,
}

impl std::fmt::Debug for LocalhostCallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalhostCallback")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// The longest wait for the browser unless told otherwise.
const CALLBACK_WAIT: Duration = Duration::from_secs(300);

/// The most bytes of the browser's request read: its request line is all that is needed.
const MAX_REQUEST_BYTES: usize = 8 << 10;

impl LocalhostCallback {
    /// Listens on `127.0.0.1:port` (0: a free port, see [`redirect_uri`](Self::redirect_uri)).
    pub async fn bind(port: u16) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let port = listener.local_addr()?.port();
        Ok(LocalhostCallback {
            listener: tokio::sync::Mutex::new(listener),
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
            wait: CALLBACK_WAIT,
        })
    }

    /// The redirect URI to register: `http://127.0.0.1:<port>/callback`.
    pub fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    /// How long to wait for the browser (default five minutes).
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    async fn receive(&self) -> Result<OAuthCallback, String> {
        let listener = self.listener.lock().await;
        loop {
            let (mut stream, _) = listener.accept().await.map_err(|err| err.to_string())?;
            let mut request = vec![0; MAX_REQUEST_BYTES];
            let mut read = 0;
            while read < request.len() && !request[..read].windows(2).any(|w| w == b"\r\n") {
                match stream.read(&mut request[read..]).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => read += n,
                }
            }
            let line = String::from_utf8_lossy(&request[..read]);
            let target = line.split(' ').nth(1).unwrap_or_default();
            // Favicons and other requests the browser makes on its own are not the callback.
            if !target.starts_with("/callback") {
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            }
            let callback = OAuthCallback::from_url(&format!("http://127.0.0.1{target}"));
            let body = match &callback {
                Ok(_) => "Authorized. You can close this window.",
                Err(_) => "Authorization failed. See the program's output.",
            };
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(answer.as_bytes()).await;
            return callback;
        }
    }
}

impl RedirectHandler for LocalhostCallback {
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<OAuthCallback, String>> {
        Box::pin(async move {
            eprintln!("Open this address to authorize:\n  {authorization_url}");
            toolkit_runtime::within(self.wait, self.receive())
                .await
                .unwrap_or_else(|| {
                    Err(format!(
                        "no authorization came back to {} within {} s",
                        self.redirect_uri,
                        self.wait.as_secs()
                    ))
                })
        })
    }
}
