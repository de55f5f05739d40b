//! One server's authorization: rmcp's `AuthorizationManager`, made when first needed and kept
//! across reconnections, and what to do on each answer of the server (a token to send, a
//! 401, a 403 `insufficient_scope`).

use std::sync::Arc;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    ClientCredentialsConfig, ScopeUpgradeConfig, WWWAuthenticateParams,
};
use tokio::sync::Mutex;

use super::store::Bridge;
use super::{Grant, OAuthConfig, trust};

/// The authorization of one server, shared by every connection to it.
pub(in crate::mcp::client) struct Authorizer {
    server: String,
    config: OAuthConfig,
    /// `None` until the first authorization (or until tokens were found in the store).
    manager: Mutex<Option<AuthorizationManager>>,
}

impl Authorizer {
    pub(in crate::mcp::client) fn new(server: &str, config: OAuthConfig) -> Arc<Self> {
        Arc::new(Authorizer {
            server: server.to_owned(),
            config,
            manager: Mutex::new(None),
        })
    }

    pub(super) fn max_step_ups(&self) -> u32 {
        self.config.max_step_ups
    }

    /// The token to send, refreshed when it has (nearly) expired; `None` before the first
    /// authorization, when the request goes without one and the server's 401 says how to
    /// authorize.
    pub(super) async fn token(&self) -> Result<Option<String>, AuthError> {
        let mut manager = self.manager.lock().await;
        if manager.is_none() && self.config.store.load().await.ok().flatten().is_some() {
            // Tokens from an earlier run: discovery (for the token endpoint) and no more.
            let mut stored = self.new_manager().await?;
            self.discover(&mut stored, None).await?;
            if stored.initialize_from_store().await? {
                *manager = Some(stored);
            }
        }
        let Some(manager) = manager.as_ref() else {
            return Ok(None);
        };
        match manager.get_access_token().await {
            Ok(token) => Ok(Some(token)),
            Err(AuthError::AuthorizationRequired) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// After a 401 to a request that carried `sent`: a token another request got meanwhile,
    /// else a refreshed one, else a new authorization, discovered from `challenge`.
    pub(super) async fn unauthorized(
        &self,
        sent: Option<&str>,
        challenge: &str,
    ) -> Result<String, AuthError> {
        let mut manager = self.manager.lock().await;
        if let Some(current) = manager.as_ref() {
            if let Ok(token) = current.get_access_token().await
                && Some(token.as_str()) != sent
            {
                return Ok(token);
            }
            if sent.is_some() && self.refreshes() {
                match current.refresh_token().await {
                    Ok(_) => return current.get_access_token().await,
                    Err(err) => tracing::debug!(error = %err, "refresh refused; authorizing again"),
                }
            }
        }
        let authorized = self.authorize(Some(challenge), None).await?;
        let token = authorized.get_access_token().await?;
        *manager = Some(authorized);
        Ok(token)
    }

    /// After a 403 `insufficient_scope` to a request that carried `sent`: authorizes again
    /// for the scopes held and the ones the challenge names.
    pub(super) async fn step_up(
        &self,
        sent: Option<&str>,
        challenge: &str,
        required: Option<&str>,
    ) -> Result<String, AuthError> {
        let mut manager = self.manager.lock().await;
        if let Some(current) = manager.as_ref()
            && let Ok(token) = current.get_access_token().await
            && Some(token.as_str()) != sent
        {
            return Ok(token);
        }
        let required = match required {
            Some(scope) => scope.to_owned(),
            None => {
                self.challenge_scope(challenge)
                    .ok_or_else(|| AuthError::InsufficientScope {
                        required_scope: String::new(),
                        upgrade_url: None,
                    })?
            }
        };
        let held = match manager.as_ref() {
            Some(current) => current.get_current_scopes().await,
            None => Vec::new(),
        };
        let mut union = held;
        for scope in required.split_whitespace() {
            if !union.iter().any(|held| held == scope) {
                union.push(scope.to_owned());
            }
        }
        let authorized = self.authorize(Some(challenge), Some(union)).await?;
        let token = authorized.get_access_token().await?;
        *manager = Some(authorized);
        Ok(token)
    }

    fn challenge_scope(&self, challenge: &str) -> Option<String> {
        let base = reqwest::Url::parse(&self.server).ok()?;
        WWWAuthenticateParams::parse(challenge, &base).scope
    }

    /// Whether a refresh can help: client credentials get a new token instead.
    fn refreshes(&self) -> bool {
        matches!(self.config.grant, Grant::AuthorizationCode { .. })
    }

    async fn new_manager(&self) -> Result<AuthorizationManager, AuthError> {
        let mut manager = AuthorizationManager::new(self.server.as_str()).await?;
        manager.set_credential_store(Bridge(Arc::clone(&self.config.store)));
        // Step-up is bounded per request by `http`; rmcp's own count is per manager.
        let mut upgrades = ScopeUpgradeConfig::default();
        upgrades.max_upgrade_attempts = u32::MAX;
        manager.set_scope_upgrade_config(upgrades);
        Ok(manager)
    }

    /// Finds the authorization server (from `challenge`, else the well-known paths, else
    /// rmcp's fallback to the MCP server's own endpoints) and, if this configuration may use
    /// it (`trust`), gives it to `manager`; nothing has been sent to it yet.
    async fn discover(
        &self,
        manager: &mut AuthorizationManager,
        challenge: Option<&str>,
    ) -> Result<(), AuthError> {
        let found = manager.resolve_metadata_from_challenge(challenge).await?;
        trust::check(&self.config, &self.server, &found)?;
        manager.set_metadata(found.metadata);
        Ok(())
    }

    /// Discovers the authorization server (from `challenge`, else the well-known paths) and
    /// gets a token for `scopes` (`None`: the configured ones, else what the server says).
    async fn authorize(
        &self,
        challenge: Option<&str>,
        scopes: Option<Vec<String>>,
    ) -> Result<AuthorizationManager, AuthError> {
        let mut manager = self.new_manager().await?;
        self.discover(&mut manager, challenge).await?;
        let scopes = scopes.unwrap_or_else(|| self.config.scopes.clone());
        match &self.config.grant {
            Grant::AuthorizationCode {
                redirect_uri,
                redirect,
            } => {
                let request = self.authorization_request(redirect_uri, scopes);
                let session = AuthorizationSession::new(manager, request)
                    .await
                    .map_err(|(_, err)| err)?;
                let url = session.get_authorization_url().to_owned();
                let callback = redirect
                    .authorize(url)
                    .await
                    .map_err(AuthError::AuthorizationFailed)?;
                // rmcp checks the state against the one it sent, and the issuer, if any,
                // against the authorization server's metadata.
                session
                    .handle_callback_with_issuer(
                        &callback.code,
                        &callback.state,
                        callback.issuer.as_deref(),
                    )
                    .await?;
                Ok(session.auth_manager)
            }
            Grant::ClientCredentials { private_key } => {
                let client_id = self.config.client_id.clone().unwrap_or_default();
                let resource = Some(self.server.clone());
                let credentials = match private_key {
                    Some((key, algorithm)) => ClientCredentialsConfig::PrivateKeyJwt {
                        client_id,
                        signing_key: key.clone(),
                        signing_algorithm: algorithm.to_rmcp(),
                        token_endpoint_audience: None,
                        scopes,
                        resource,
                    },
                    None => ClientCredentialsConfig::ClientSecret {
                        client_id,
                        client_secret: self.config.client_secret.clone().unwrap_or_default(),
                        scopes,
                        resource,
                    },
                };
                manager.validate_client_credentials_metadata(&credentials)?;
                manager.configure_client_credentials(&credentials)?;
                exchange_on_own_thread(manager, credentials).await
            }
        }
    }

    fn authorization_request(
        &self,
        redirect_uri: &str,
        scopes: Vec<String>,
    ) -> AuthorizationRequest {
        let config = &self.config;
        let mut request = AuthorizationRequest::new(redirect_uri)
            .with_client_name(config.client_name.clone())
            .with_scopes(scopes);
        if let Some(client_id) = &config.client_id {
            request = request.with_preregistered_client(client_id.clone());
        }
        if let Some(secret) = &config.client_secret {
            request = request.with_client_secret(secret.clone());
        }
        if let Some(url) = &config.client_metadata_url {
            request = request.with_client_metadata_url(url.clone());
        }
        request
    }
}

/// rmcp's client credentials exchange, in its `private_key_jwt` branch, holds a
/// `form_urlencoded::Serializer` (not `Send`) across an await, so its future cannot run on the caller's multi-threaded runtime: it runs
/// on a thread of its own, on a runtime of its own.
async fn exchange_on_own_thread(
    manager: AuthorizationManager,
    credentials: ClientCredentialsConfig,
) -> Result<AuthorizationManager, AuthError> {
    let exchange = tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|err| AuthError::InternalError(err.to_string()))?;
        runtime.block_on(manager.exchange_client_credentials(&credentials))?;
        Ok(manager)
    });
    exchange
        .await
        .map_err(|err| AuthError::InternalError(err.to_string()))?
}
