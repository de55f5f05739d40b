//! [`JwtVerifier`]: JWT access tokens checked against the keys an authorization server publishes
//! (its JWKS), fetched once, cached, and fetched again when a token names a key not yet seen.

use std::str::FromStr;
use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;
use toolkit_runtime::BoxFuture;

use super::auth::{TokenRejection, TokenVerifier};
use super::jwks::Jwks;
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
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    jwks: Jwks,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_url", &self.jwks.url)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
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
            algorithms: ASYMMETRIC.to_vec(),
            leeway: Self::DEFAULT_LEEWAY,
            jwks: Jwks::new(
                jwks_url,
                Self::DEFAULT_MIN_REFETCH_INTERVAL,
                Self::DEFAULT_MAX_KEY_AGE,
                Self::DEFAULT_JWKS_TIMEOUT,
            ),
        }
    }

    /// Fetches the keys from `url`.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks.url = url.into();
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
        self.jwks.min_refetch_interval = interval;
        self
    }

    /// Waits at most this long for the JWKS (default [`Self::DEFAULT_JWKS_TIMEOUT`]): a
    /// request whose token needs keys not held yet waits for one fetch, its own or the one
    /// already under way, then gets 503 with `Retry-After` if none came.
    pub fn jwks_timeout(mut self, wait: Duration) -> Self {
        self.jwks.timeout = wait;
        self
    }

    /// Fetches the JWKS again once the keys are this old (default [`Self::DEFAULT_MAX_KEY_AGE`]).
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.jwks.max_key_age = age;
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
        let keys = self.jwks.for_token(kid).await?;
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
            verifier.jwks.url,
            "https://auth.example.com/.well-known/jwks.json"
        );
        assert_eq!(
            verifier.authorization_servers(),
            ["https://auth.example.com/"]
        );
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
