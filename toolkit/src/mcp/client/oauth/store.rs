//! Where a client's tokens are kept between requests, and between runs: [`TokenStore`], and
//! the bridge to rmcp's `CredentialStore`, which its manager reads and writes.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use toolkit_runtime::BoxFuture;

/// What a client holds for one server: its client ID, the token response (access token,
/// refresh token, expiry, scopes) and when it came. Serializes to JSON, for a store that
/// writes it somewhere; `Debug` never shows a token.
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct OAuthTokens(pub(super) StoredCredentials);

impl OAuthTokens {
    /// The client ID the tokens were issued to.
    pub fn client_id(&self) -> &str {
        &self.0.client_id
    }

    /// The scopes granted.
    pub fn scopes(&self) -> &[String] {
        &self.0.granted_scopes
    }

    /// The access token, when the authorization server sent one.
    pub fn access_token(&self) -> Option<String> {
        self.field("access_token")
    }

    /// The refresh token, when the authorization server sent one.
    pub fn refresh_token(&self) -> Option<String> {
        self.field("refresh_token")
    }

    fn field(&self, name: &str) -> Option<String> {
        // Read through JSON: the token response is oauth2's type, which toolkit does not name.
        let response = serde_json::to_value(self.0.token_response.as_ref()?).ok()?;
        response.get(name)?.as_str().map(str::to_owned)
    }
}

impl std::fmt::Debug for OAuthTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthTokens")
            .field("client_id", &self.0.client_id)
            .field("scopes", &self.0.granted_scopes)
            .field("tokens", &"***")
            .finish()
    }
}

/// Keeps the [`OAuthTokens`] of one server (a store per [`OAuthConfig`](super::OAuthConfig)).
/// An error is a message, reported as the request's error.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use toolkit::mcp::{InMemoryTokenStore, OAuthTokens, TokenStore};
///
/// type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
///
/// /// Keeps tokens in memory, and says when they change.
/// #[derive(Default)]
/// struct Noisy(InMemoryTokenStore);
///
/// impl TokenStore for Noisy {
///     fn load(&self) -> BoxFuture<'_, Result<Option<OAuthTokens>, String>> {
///         self.0.load()
///     }
///     fn save(&self, tokens: OAuthTokens) -> BoxFuture<'_, Result<(), String>> {
///         eprintln!("new tokens for {}", tokens.client_id());
///         self.0.save(tokens)
///     }
///     fn clear(&self) -> BoxFuture<'_, Result<(), String>> {
///         self.0.clear()
///     }
/// }
/// ```
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept, if any.
    fn load(&self) -> BoxFuture<'_, Result<Option<OAuthTokens>, String>>;
    /// Keeps `tokens` in place of any kept before.
    fn save(&self, tokens: OAuthTokens) -> BoxFuture<'_, Result<(), String>>;
    /// Forgets the tokens kept.
    fn clear(&self) -> BoxFuture<'_, Result<(), String>>;
}

/// Tokens in memory, for as long as the process runs. Clones share the tokens.
#[derive(Clone, Default)]
pub struct InMemoryTokenStore {
    tokens: Arc<Mutex<Option<OAuthTokens>>>,
}

impl InMemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<OAuthTokens>> {
        match self.tokens.lock() {
            Ok(slot) => slot,
            Err(poisoned) => poisoned.into_inner(),
        }
    }
}

impl std::fmt::Debug for InMemoryTokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InMemoryTokenStore")
            .field("tokens", &*self.slot())
            .finish()
    }
}

impl TokenStore for InMemoryTokenStore {
    fn load(&self) -> BoxFuture<'_, Result<Option<OAuthTokens>, String>> {
        let tokens = self.slot().clone();
        Box::pin(async move { Ok(tokens) })
    }

    fn save(&self, tokens: OAuthTokens) -> BoxFuture<'_, Result<(), String>> {
        *self.slot() = Some(tokens);
        Box::pin(async { Ok(()) })
    }

    fn clear(&self) -> BoxFuture<'_, Result<(), String>> {
        *self.slot() = None;
        Box::pin(async { Ok(()) })
    }
}

/// A [`TokenStore`] as rmcp's `CredentialStore`.
pub(super) struct Bridge(pub(super) Arc<dyn TokenStore>);

type AuthFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, AuthError>> + Send + 'a>>;

fn store_error(message: String) -> AuthError {
    AuthError::CredentialStoreError(message)
}

// rmcp declares the trait with `async_trait`; these are the signatures it expands to.
impl CredentialStore for Bridge {
    fn load<'life0, 'async_trait>(
        &'life0 self,
    ) -> AuthFuture<'async_trait, Option<StoredCredentials>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            let tokens = self.0.load().await.map_err(store_error)?;
            Ok(tokens.map(|tokens| tokens.0))
        })
    }

    fn save<'life0, 'async_trait>(
        &'life0 self,
        credentials: StoredCredentials,
    ) -> AuthFuture<'async_trait, ()>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            self.0
                .save(OAuthTokens(credentials))
                .await
                .map_err(store_error)
        })
    }

    fn clear<'life0, 'async_trait>(&'life0 self) -> AuthFuture<'async_trait, ()>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move { self.0.clear().await.map_err(store_error) })
    }
}
