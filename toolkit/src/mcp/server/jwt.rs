//! [`JwtVerifier`]: JWT access tokens checked against the keys an authorization server publishes
//! (its JWKS), fetched once, cached, and fetched again when a token names a key not yet seen.

use std::str::FromStr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;
use toolkit_runtime::BoxFuture;

use super::auth::{TokenRejection, TokenVerifier};
use crate::context::Caller;

/// The asymmetric algorithms accepted unless told otherwise. HMAC (`HS*`) is never accepted:
/// its key is a shared secret a JWKS does not publish, and accepting it would let a token signed
/// with a public key, read as a secret, pass. `none` is not an algorithm here at all.
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The largest JWKS document read: real ones are a few kilobytes.
const MAX_JWKS_BYTES: usize = 256 * 1024;

/// Checks JWT access tokens issued by one authorization server: the signature against the keys
/// of its JWKS, and the issuer (`iss`), the audience (`aud`, the server's own URL), the expiry
/// (`exp`, required) and `nbf`, with [`leeway`](Self::leeway) for clocks that differ a little.
/// The caller is the token's `sub` (required, a non-empty string, as RFC 9068 asks; no other
/// claim stands in for it), its scopes the `scope` claim (space separated) or `scp` (a list),
/// its claims the whole payload.
///
/// The JWKS is fetched on the first token, kept, and fetched again when a token names a key
/// (`kid`) it lacks, at most once per [`min_refetch_interval`](Self::min_refetch_interval): an
/// issuer rotating its keys is followed, and a flood of tokens naming made-up keys costs one
/// fetch per interval. The keys are also fetched again once older than
/// [`max_key_age`](Self::max_key_age).
///
/// Keys that cannot be had say nothing about a token: while none was ever fetched, or while the
/// issuer is down and a token names a key not held, the request gets 503 with `Retry-After`
/// (never 401 `invalid_token`, which would tell the client to throw a good token away). Requests
/// that need the keys wait for one fetch at a time, at most
/// [`jwks_timeout`](Self::jwks_timeout).
///
/// ```no_run
/// use toolkit::mcp::{HttpOptions, JwtVerifier, McpServer, ProtectedResource};
///
/// # async fn run(tools: Vec<toolkit::ToolProxy>) -> Result<(), toolkit::mcp::McpError> {
/// let verifier = JwtVerifier::new("https://auth.example.com", "https://mcp.example.com/mcp")
///     .jwks_url("https://auth.example.com/.well-known/jwks.json");
/// let options = HttpOptions::default()
///     .token_verifier(verifier)
///     .protected_resource(ProtectedResource::new("https://mcp.example.com/mcp"));
/// McpServer::new(tools).spawn_http("0.0.0.0:8080", options).await?;
/// # Ok(()) }
/// ```
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    jwks_url: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    min_refetch_interval: Duration,
    max_key_age: Duration,
    jwks_timeout: Duration,
    http: reqwest::Client,
    keys: RwLock<Arc<KeySet>>,
    /// Held while fetching, so that many tokens arriving together cause one fetch.
    fetching: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_url", &self.jwks_url)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

/// The keys last fetched, and when the last fetch was tried.
#[derive(Default)]
struct KeySet {
    keys: Vec<Key>,
    fetched: Option<Instant>,
    tried: Option<Instant>,
    /// Whether the last try failed: a key not held may then exist, unseen.
    failed: bool,
}

struct Key {
    kid: Option<String>,
    /// The JWK's own `alg`, when it names one: a token must then use that one.
    alg: Option<Algorithm>,
    key: DecodingKey,
}

impl JwtVerifier {
    /// 30 s: the clock difference tolerated on `exp` and `nbf`.
    pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
    /// 30 s between two fetches caused by unknown keys.
    pub const DEFAULT_MIN_REFETCH_INTERVAL: Duration = Duration::from_secs(30);
    /// 1 hour before keys are fetched again anyway.
    pub const DEFAULT_MAX_KEY_AGE: Duration = Duration::from_secs(3600);
    /// 5 s: the longest a request waits for the JWKS, fetched by it or by another request.
    pub const DEFAULT_JWKS_TIMEOUT: Duration = Duration::from_secs(5);

    /// A verifier for tokens that `issuer` issues for `audience` (this server's canonical URL,
    /// as in [`ProtectedResource::resource`](super::ProtectedResource::resource)). The keys are
    /// fetched from `<issuer>/.well-known/jwks.json` unless [`jwks_url`](Self::jwks_url) says
    /// otherwise (the `jwks_uri` of the issuer's metadata).
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        choose_crypto();
        let issuer = issuer.into();
        let jwks_url = format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/'));
        JwtVerifier {
            issuer,
            audience: audience.into(),
            jwks_url,
            algorithms: ASYMMETRIC.to_vec(),
            leeway: Self::DEFAULT_LEEWAY,
            min_refetch_interval: Self::DEFAULT_MIN_REFETCH_INTERVAL,
            max_key_age: Self::DEFAULT_MAX_KEY_AGE,
            jwks_timeout: Self::DEFAULT_JWKS_TIMEOUT,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::limited(3))
                .build()
                .unwrap_or_default(),
            keys: RwLock::default(),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// Fetches the keys from `url`.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks_url = url.into();
        self
    }

    /// Accepts only these algorithms (`"RS256"`, `"ES256"`, `"EdDSA"`...; default: every
    /// RSA, RSA-PSS, ECDSA and EdDSA one). Names of no asymmetric algorithm (`"HS256"`,
    /// `"none"`) are left out, so a list of only those refuses every token.
    pub fn algorithms<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Self {
        self.algorithms = names
            .into_iter()
            .filter_map(|name| Algorithm::from_str(name).ok())
            .filter(|alg| ASYMMETRIC.contains(alg))
            .collect();
        self
    }

    /// Tolerates clocks this far apart on `exp` and `nbf` (default [`Self::DEFAULT_LEEWAY`]).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Fetches the JWKS again for an unknown key at most this often (default
    /// [`Self::DEFAULT_MIN_REFETCH_INTERVAL`]); a failed fetch waits as long before the next.
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        self.min_refetch_interval = interval;
        self
    }

    /// Waits at most this long for the JWKS (default [`Self::DEFAULT_JWKS_TIMEOUT`]): a
    /// request whose token needs keys not held yet waits for one fetch, its own or the one
    /// already under way, then gets 503 with `Retry-After` if none came.
    pub fn jwks_timeout(mut self, wait: Duration) -> Self {
        self.jwks_timeout = wait;
        self
    }

    /// Fetches the JWKS again once the keys are this old (default [`Self::DEFAULT_MAX_KEY_AGE`]).
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.max_key_age = age;
        self
    }

    async fn check(&self, token: &str) -> Result<Caller, TokenRejection> {
        let header = jsonwebtoken::decode_header(token).map_err(|err| invalid(&err))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(TokenRejection::Invalid(format!(
                "tokens signed with {:?} are not accepted",
                header.alg
            )));
        }
        let kid = header.kid.as_deref();
        let mut keys = self.current();
        let stale = keys
            .fetched
            .is_none_or(|at| at.elapsed() >= self.max_key_age);
        if stale || !keys.has(kid) {
            keys = self.refresh(&keys, kid).await?;
        }
        // Keys never fetched, or a key not held while the issuer cannot be asked, say nothing
        // about the token: 503, so that its client keeps it and tries again.
        if keys.fetched.is_none() || (keys.failed && !keys.has(kid)) {
            return Err(unavailable());
        }
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        let mut last = TokenRejection::Invalid("no key of the issuer matches the token".into());
        for key in keys.matching(kid, header.alg) {
            match jsonwebtoken::decode::<Value>(token, &key.key, &validation) {
                Ok(data) => return caller(data.claims),
                Err(err) => last = invalid(&err),
            }
        }
        Err(last)
    }

    fn current(&self) -> Arc<KeySet> {
        let keys = self
            .keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(&keys)
    }

    /// The keys fetched again, unless another call just did, or the last try was too recent.
    /// One fetch at a time: the others wait for it, at most [`jwks_timeout`](Self::jwks_timeout),
    /// and then use what it got.
    async fn refresh(
        &self,
        seen: &Arc<KeySet>,
        kid: Option<&str>,
    ) -> Result<Arc<KeySet>, TokenRejection> {
        let Ok(_fetching) = tokio::time::timeout(self.jwks_timeout, self.fetching.lock()).await
        else {
            // Another request's fetch is still under way: the keys held may still do.
            let now = self.current();
            if now.fetched.is_some() && now.has(kid) {
                return Ok(now);
            }
            return Err(unavailable());
        };
        let now = self.current();
        if !Arc::ptr_eq(&now, seen) {
            return Ok(now);
        }
        let too_soon = now
            .tried
            .is_some_and(|at| at.elapsed() < self.min_refetch_interval);
        if too_soon {
            return Ok(now);
        }
        let tried = Instant::now();
        let next = match self.fetch().await {
            Ok(keys) => KeySet {
                keys,
                fetched: Some(tried),
                tried: Some(tried),
                failed: false,
            },
            Err(problem) => {
                tracing::warn!(url = %self.jwks_url, %problem, "fetching the JWKS failed");
                // The keys held stay in use; the next try waits the interval.
                KeySet {
                    keys: copy_keys(&now),
                    fetched: now.fetched,
                    tried: Some(tried),
                    failed: true,
                }
            }
        };
        let next = Arc::new(next);
        *self
            .keys
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::clone(&next);
        Ok(next)
    }

    async fn fetch(&self) -> Result<Vec<Key>, String> {
        let mut response = self
            .http
            .get(&self.jwks_url)
            .timeout(self.jwks_timeout)
            .send()
            .await
            .map_err(|err| err.to_string())?;
        if !response.status().is_success() {
            return Err(format!("HTTP {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| err.to_string())? {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(format!("the JWKS is larger than {MAX_JWKS_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        parse_jwks(&body)
    }
}

/// The usable keys of a JWKS document. A key this crate cannot read (a new key type, a
/// symmetric one) is left out rather than failing the others.
fn parse_jwks(body: &[u8]) -> Result<Vec<Key>, String> {
    #[derive(serde::Deserialize)]
    struct Document {
        keys: Vec<Value>,
    }
    let document: Document =
        serde_json::from_slice(body).map_err(|err| format!("the JWKS is not JSON: {err}"))?;
    let keys = document
        .keys
        .into_iter()
        .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
        .filter(|jwk| !matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)))
        .filter_map(|jwk| {
            let key = DecodingKey::from_jwk(&jwk).ok()?;
            let alg = match jwk.common.key_algorithm {
                Some(alg) => Some(Algorithm::from_str(&alg.to_string()).ok()?),
                None => None,
            };
            Some(Key {
                kid: jwk.common.key_id,
                alg,
                key,
            })
        })
        .collect();
    Ok(keys)
}

/// A copy of `set`'s keys, kept when a fetch fails.
fn copy_keys(set: &KeySet) -> Vec<Key> {
    set.keys
        .iter()
        .map(|key| Key {
            kid: key.kid.clone(),
            alg: key.alg,
            key: key.key.clone(),
        })
        .collect()
}

impl KeySet {
    /// Whether a key with this id is held (any key, for a token naming none).
    fn has(&self, kid: Option<&str>) -> bool {
        match kid {
            Some(kid) => self.keys.iter().any(|key| key.kid.as_deref() == Some(kid)),
            None => !self.keys.is_empty(),
        }
    }

    fn matching(&self, kid: Option<&str>, alg: Algorithm) -> impl Iterator<Item = &Key> {
        self.keys.iter().filter(move |key| {
            let named = kid.is_none_or(|kid| key.kid.as_deref() == Some(kid));
            named && key.alg.is_none_or(|own| own == alg)
        })
    }
}

/// The caller a verified token's claims describe.
///
/// The principal is `sub`, which RFC 9068 (section 2.2) requires of a JWT access token: for a
/// client credentials token it names the client. A token without it, with an empty one, or with
/// one that is not a string is refused rather than given a principal from another claim:
/// every such token would otherwise share one principal, and so one session binding.
fn caller(claims: Value) -> Result<Caller, TokenRejection> {
    let principal = match claims.get("sub") {
        Some(Value::String(sub)) if !sub.trim().is_empty() => sub.clone(),
        Some(Value::String(_)) => {
            return Err(TokenRejection::Invalid(
                "the token's `sub` claim is empty".into(),
            ));
        }
        Some(_) => {
            return Err(TokenRejection::Invalid(
                "the token's `sub` claim is not a string".into(),
            ));
        }
        None => {
            return Err(TokenRejection::Invalid(
                "the token has no `sub` claim".into(),
            ));
        }
    };
    let scopes = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) => scope.split_whitespace().map(str::to_owned).collect(),
        (_, Some(Value::Array(scp))) => scp
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        (_, Some(Value::String(scp))) => scp.split_whitespace().map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    Ok(Caller::new(principal).scopes(scopes).claims(claims))
}

/// The 503 of a token that could not be checked: the issuer's keys are not at hand.
fn unavailable() -> TokenRejection {
    TokenRejection::Unavailable("the issuer's keys could not be fetched".into())
}

/// What was wrong with a token, in words a client can act on; never the token.
fn invalid(err: &jsonwebtoken::errors::Error) -> TokenRejection {
    let problem = match err.kind() {
        ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet".to_owned(),
        ErrorKind::InvalidIssuer => "the token is from another issuer".to_owned(),
        ErrorKind::InvalidAudience => "the token is for another audience".to_owned(),
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit its key".to_owned(),
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("the token's `{claim}` claim is malformed"),
        _ => "the token is not a well-formed JWT".to_owned(),
    };
    TokenRejection::Invalid(problem)
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, TokenRejection>> {
        Box::pin(self.check(token))
    }

    fn authorization_servers(&self) -> Vec<String> {
        vec![self.issuer.clone()]
    }
}

/// jsonwebtoken panics on its first check when both of its crypto backends are on (another crate
/// may turn on `rust_crypto`) and none was chosen; this one is chosen first. Installing fails
/// harmlessly once a provider is in place.
fn choose_crypto() {
    let _ = jsonwebtoken::crypto::aws_lc::DEFAULT_PROVIDER.install_default();
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_caller_is_the_subject_with_the_scope_claims_scopes() {
        let claims = json!({"sub": "alice", "scope": "repo:read  repo:write", "scp": ["ignored"]});
        let caller = caller(claims.clone()).unwrap();
        assert_eq!(caller.principal, "alice");
        assert_eq!(caller.scopes, ["repo:read", "repo:write"]);
        assert_eq!(caller.claims, claims);
    }

    #[test]
    fn scp_as_a_list_or_a_string_is_read() {
        let listed = caller(json!({"sub": "ci-bot", "scp": ["a", "b"]})).unwrap();
        assert_eq!(
            (listed.principal.as_str(), listed.scopes),
            ("ci-bot", vec!["a".to_owned(), "b".to_owned()])
        );
        let spaced = caller(json!({"sub": "x", "scp": "a b"})).unwrap();
        assert_eq!(spaced.scopes, ["a", "b"]);
        assert!(caller(json!({"sub": "x"})).unwrap().scopes.is_empty());
    }

    #[test]
    fn a_token_without_a_usable_subject_is_refused_and_client_id_does_not_stand_in() {
        let refused = |claims: Value| match caller(claims) {
            Err(TokenRejection::Invalid(problem)) => problem,
            other => panic!("accepted: {other:?}"),
        };
        assert_eq!(
            refused(json!({"sub": "", "client_id": "ci-bot"})),
            "the token's `sub` claim is empty"
        );
        assert_eq!(
            refused(json!({"sub": "  "})),
            "the token's `sub` claim is empty"
        );
        assert_eq!(
            refused(json!({"sub": 7, "client_id": "ci-bot"})),
            "the token's `sub` claim is not a string"
        );
        assert_eq!(
            refused(json!({"sub": null})),
            "the token's `sub` claim is not a string"
        );
        assert_eq!(
            refused(json!({"client_id": "ci-bot", "scope": "a"})),
            "the token has no `sub` claim"
        );
    }

    #[test]
    fn hmac_and_none_are_never_accepted_whatever_the_list_says() {
        let verifier = JwtVerifier::new("https://auth.example.com", "https://mcp.example.com")
            .algorithms(["HS256", "none", "ES256", "bogus"]);
        assert_eq!(verifier.algorithms, [Algorithm::ES256]);
        assert!(
            !ASYMMETRIC
                .iter()
                .any(|alg| format!("{alg:?}").starts_with("HS"))
        );
    }

    #[test]
    fn the_jwks_url_defaults_to_the_issuers_well_known_one() {
        let verifier = JwtVerifier::new("https://auth.example.com/", "https://mcp.example.com");
        assert_eq!(
            verifier.jwks_url,
            "https://auth.example.com/.well-known/jwks.json"
        );
        assert_eq!(
            verifier.authorization_servers(),
            ["https://auth.example.com/"]
        );
    }

    #[test]
    fn a_jwks_keeps_its_usable_keys_and_leaves_out_symmetric_and_unknown_ones() {
        let jwks = json!({"keys": [
            {"kty": "oct", "kid": "secret", "k": "c2VjcmV0"},
            {"kty": "EC", "crv": "P-256", "kid": "ec-1", "alg": "ES256",
             "x": "kL5jiLlhVqXt4051SwYLtzPM3VaDDHletzLh8ecwZ90",
             "y": "7xFxR2y_mDpcEMLYwbJCjhTy00njcxMREid0bcP59ls"},
            {"kty": "future-kind", "kid": "new"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
        ]});
        let keys = parse_jwks(jwks.to_string().as_bytes()).unwrap();
        let kids: Vec<_> = keys.iter().map(|key| key.kid.as_deref()).collect();
        assert_eq!(kids, [Some("ec-1"), Some("ed")]);
        assert_eq!(keys[0].alg, Some(Algorithm::ES256));
        let set = KeySet {
            keys,
            ..KeySet::default()
        };
        assert!(set.has(Some("ed")) && set.has(None) && !set.has(Some("secret")));
        // A key whose JWK names its algorithm serves tokens of that algorithm only.
        assert_eq!(set.matching(Some("ec-1"), Algorithm::ES384).count(), 0);
        assert_eq!(set.matching(None, Algorithm::EdDSA).count(), 1);
    }

    #[test]
    fn a_jwks_that_is_not_json_is_a_clear_error() {
        let err = parse_jwks(b"<html>").err().unwrap();
        assert!(err.starts_with("the JWKS is not JSON"), "{err}");
    }

    #[test]
    fn a_rejection_says_what_is_wrong_in_words() {
        let expired = jsonwebtoken::errors::Error::from(ErrorKind::ExpiredSignature);
        assert_eq!(
            invalid(&expired),
            TokenRejection::Invalid("the token has expired".into())
        );
        let claim = ErrorKind::MissingRequiredClaim("exp".into());
        assert_eq!(
            invalid(&claim.into()),
            TokenRejection::Invalid("the token has no `exp` claim".into())
        );
    }
}
