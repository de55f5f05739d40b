//! The keys a [`JwtVerifier`](super::JwtVerifier) checks signatures with: the issuer's JWKS,
//! fetched once, cached, fetched again for a key not yet seen or once old, one fetch at a time,
//! and a 503 rather than a verdict while the keys cannot be had.

use std::str::FromStr;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::auth::TokenRejection;

/// The largest JWKS document read: real ones are a few kilobytes.
const MAX_JWKS_BYTES: usize = 256 * 1024;

/// The issuer's JWKS as a verifier holds it: where it is fetched from, how often, and the keys
/// last fetched.
pub(super) struct Jwks {
    pub(super) url: String,
    pub(super) min_refetch_interval: Duration,
    pub(super) max_key_age: Duration,
    pub(super) timeout: Duration,
    http: reqwest::Client,
    keys: RwLock<Arc<KeySet>>,
    /// Held while fetching, so that many tokens arriving together cause one fetch.
    fetching: tokio::sync::Mutex<()>,
}

/// The keys last fetched, and when the last fetch was tried.
#[derive(Default)]
pub(super) struct KeySet {
    keys: Vec<Key>,
    fetched: Option<Instant>,
    tried: Option<Instant>,
    /// Whether the last try failed: a key not held may then exist, unseen.
    failed: bool,
}

/// One usable key of the JWKS.
pub(super) struct Key {
    kid: Option<String>,
    /// The JWK's own `alg`, when it names one: a token must then use that one.
    alg: Option<Algorithm>,
    pub(super) key: DecodingKey,
}

impl Jwks {
    /// Keys to be fetched from `url`, none fetched yet.
    pub(super) fn new(
        url: String,
        min_refetch_interval: Duration,
        max_key_age: Duration,
        timeout: Duration,
    ) -> Self {
        Jwks {
            url,
            min_refetch_interval,
            max_key_age,
            timeout,
            http: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::limited(3))
                .build()
                .unwrap_or_default(),
            keys: RwLock::default(),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    /// The keys to check a token naming `kid` (or none) against, fetched again first when they
    /// are old or lack that key; `Err` is the 503 of keys that cannot be had.
    pub(super) async fn for_token(&self, kid: Option<&str>) -> Result<Arc<KeySet>, TokenRejection> {
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
        Ok(keys)
    }

    fn current(&self) -> Arc<KeySet> {
        let keys = self
            .keys
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(&keys)
    }

    /// The keys fetched again, unless another call just did, or the last try was too recent.
    /// One fetch at a time: the others wait for it, at most [`timeout`](Self::timeout), and
    /// then use what it got.
    async fn refresh(
        &self,
        seen: &Arc<KeySet>,
        kid: Option<&str>,
    ) -> Result<Arc<KeySet>, TokenRejection> {
        let Some(_fetching) = toolkit_runtime::within(self.timeout, self.fetching.lock()).await
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
                tracing::warn!(url = %self.url, %problem, "fetching the JWKS failed");
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
            .get(&self.url)
            .timeout(self.timeout)
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

    /// The keys a token naming `kid` (or none) and signed with `alg` may verify against.
    pub(super) fn matching(&self, kid: Option<&str>, alg: Algorithm) -> impl Iterator<Item = &Key> {
        self.keys.iter().filter(move |key| {
            let named = kid.is_none_or(|kid| key.kid.as_deref() == Some(kid));
            named && key.alg.is_none_or(|own| own == alg)
        })
    }
}

/// The 503 of a token that could not be checked: the issuer's keys are not at hand.
fn unavailable() -> TokenRejection {
    TokenRejection::Unavailable("the issuer's keys could not be fetched".into())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
}
