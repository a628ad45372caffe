//! Access-token verification, the same in the gateway and every service.
//!
//! Tokens are EdDSA JWTs signed by auth with a `kid` and the header `typ: at+jwt` (RFC 9068);
//! verifiers fetch auth's JWK Set and refetch (at most every few seconds) when they meet an
//! unknown `kid`, which is how key rotation works: auth publishes the new and old keys during
//! the overlap. `typ`, `iss`, `aud`, `exp` and `nbf` are checked, and the session id (`sid`)
//! against the revocation list in the ephemeral store. If that store is down the revocation
//! check is skipped with a warning: tokens live at most 15 minutes, and the balance keeps
//! working while Redis is out.
//!
//! Member and service tokens are two kinds with two audiences (`tokens.audience` and
//! `tokens.service_audience`): every entry point names the kind it accepts
//! ([`TokenVerifier::verify`] and [`TokenVerifier::member`] a member's,
//! [`TokenVerifier::verify_service`] and [`TokenVerifier::service`] an internal caller's), and
//! a token passes only when both its `kind` claim and its audience are those of that kind. A
//! member token presented where a service token is required (or the reverse) is
//! [`VerifyError::WrongKind`].
//!
//! A token's signature and claims are checked once per verifier and token lifetime: the
//! verified claims are kept in a bounded cache keyed by the whole token until `exp` (the kind
//! is checked after the cache, on every call), since an
//! Ed25519 verification (~57 µs here) would otherwise be paid on every request at every hop.
//! The revocation list is read on every request through the store's tracked read: with
//! `ephemeral.client_cache` (the default) Redis keeps this process's copy fresh by pushing an
//! invalidation when a session is revoked, so a logout takes effect within milliseconds at every
//! hop, and at once on the connection that wrote it.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use miclub_proto::auth::v1::GetJwksRequest;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::sync::{Mutex, RwLock};

use crate::ephemeral::SharedStore;
use crate::error::{ErrorBody, ErrorCode};
use crate::grpc::TracedChannel;
use crate::storage::now_millis;

/// Longest life of an access token.
pub const MAX_ACCESS_TTL: Duration = Duration::from_secs(15 * 60);

/// The JWT `typ` header of every access token auth signs (RFC 9068, section 2.1).
pub const ACCESS_TOKEN_TYP: &str = "at+jwt";

/// The header auth signs access tokens with: EdDSA, the signing key's id, `typ: at+jwt`.
pub fn access_token_header(kid: &str) -> jsonwebtoken::Header {
    let mut header = jsonwebtoken::Header::new(Algorithm::EdDSA);
    header.kid = Some(kid.to_owned());
    header.typ = Some(ACCESS_TOKEN_TYP.to_owned());
    header
}

/// RFC 9068 names the type `at+jwt`; RFC 7515 allows the full media type and any case.
fn is_access_token_typ(typ: Option<&str>) -> bool {
    typ.is_some_and(|typ| {
        typ.eq_ignore_ascii_case(ACCESS_TOKEN_TYP) || typ.eq_ignore_ascii_case("application/at+jwt")
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    /// A member's session; `sub` is the member id.
    Member,
    /// An internal caller; `sub` is the service name.
    Service,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub aud: String,
    pub sub: String,
    /// Session (refresh-token family) the token belongs to; revoked as a whole.
    pub sid: String,
    pub kind: TokenKind,
    pub iat: i64,
    /// Not before: auth sets it to `iat`; a token from the future is refused.
    pub nbf: i64,
    pub exp: i64,
    pub jti: String,
    /// A service token's methods, space-separated (`package.Service/Method`, RFC 9068 `scope`):
    /// what `access::Policy` lets the client call. Empty in member tokens.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scope: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct TokenSettings {
    pub issuer: String,
    /// `aud` of members' access tokens.
    pub audience: String,
    /// `aud` of service tokens (internal callers); never the same as `audience`.
    pub service_audience: String,
    /// Least time between two JWKS fetches triggered by unknown key ids.
    pub jwks_min_refresh_ms: u64,
    /// Verified tokens kept (about 1 KiB each) so a token's signature is checked once per
    /// lifetime; 0 verifies every request.
    pub verified_cache_capacity: usize,
}

impl Default for TokenSettings {
    fn default() -> Self {
        Self {
            issuer: "miclub-auth".into(),
            audience: "miclub".into(),
            service_audience: "miclub-internal".into(),
            jwks_min_refresh_ms: 5_000,
            verified_cache_capacity: 10_000,
        }
    }
}

impl TokenSettings {
    /// The audience of tokens of `kind`.
    pub fn audience_of(&self, kind: TokenKind) -> &str {
        match kind {
            TokenKind::Member => &self.audience,
            TokenKind::Service => &self.service_audience,
        }
    }

    /// Refuses settings under which one kind of token could pass as the other.
    pub fn validate(&self) -> anyhow::Result<()> {
        if self.issuer.is_empty() || self.audience.is_empty() || self.service_audience.is_empty() {
            anyhow::bail!("tokens.issuer, tokens.audience and tokens.service_audience must be set");
        }
        if self.audience == self.service_audience {
            anyhow::bail!(
                "tokens.audience and tokens.service_audience must differ, or a member token would pass as a service token"
            );
        }
        Ok(())
    }
}

/// Ephemeral-store key that marks a session as revoked.
pub fn revocation_key(sid: &str) -> String {
    // `concat` sizes the string once; `format!` costs about four times as much, twice on every
    // member request (once per hop).
    ["revoked:sid:", sid].concat()
}

/// Ephemeral-store key holding when a member last made a request in session `sid` (Unix ms):
/// the gateway writes it, auth reads it to end idle sessions.
pub fn seen_key(sid: &str) -> String {
    ["seen:sid:", sid].concat()
}

#[derive(Debug, Clone, Copy, Error, PartialEq, Eq)]
pub enum VerifyError {
    #[error("no access token")]
    Missing,
    #[error("invalid access token")]
    Invalid,
    #[error("expired access token")]
    Expired,
    /// `nbf` lies in the future (beyond the clock-skew leeway).
    #[error("access token not yet valid")]
    NotYetValid,
    /// No published key has the token's `kid`, even after fetching the keys again.
    #[error("unknown signing key")]
    UnknownKey,
    #[error("revoked session")]
    Revoked,
    #[error("wrong kind of token")]
    WrongKind,
    #[error("verification keys unavailable")]
    KeysUnavailable,
}

impl VerifyError {
    pub fn error_code(&self) -> ErrorCode {
        match self {
            VerifyError::KeysUnavailable => ErrorCode::Unavailable,
            VerifyError::WrongKind => ErrorCode::Forbidden,
            _ => ErrorCode::Unauthenticated,
        }
    }

    pub fn into_status(self) -> tonic::Status {
        ErrorBody::new(self.error_code()).into_status()
    }
}

/// Where verification keys come from.
#[async_trait]
pub trait KeySource: Send + Sync + std::fmt::Debug + 'static {
    async fn fetch(&self) -> anyhow::Result<JwkSet>;
}

/// Auth's `GetJwks` over gRPC.
#[derive(Debug, Clone)]
pub struct GrpcKeySource {
    client: AuthServiceClient<TracedChannel>,
}

impl GrpcKeySource {
    pub fn new(channel: TracedChannel) -> Self {
        Self {
            client: AuthServiceClient::new(channel),
        }
    }
}

#[async_trait]
impl KeySource for GrpcKeySource {
    async fn fetch(&self) -> anyhow::Result<JwkSet> {
        let response = self.client.clone().get_jwks(GetJwksRequest {}).await?;
        Ok(serde_json::from_str(&response.into_inner().jwks_json)?)
    }
}

/// A fixed key set (tests, or a process that holds the keys itself).
#[derive(Debug, Clone)]
pub struct StaticKeySource(pub JwkSet);

#[async_trait]
impl KeySource for StaticKeySource {
    async fn fetch(&self) -> anyhow::Result<JwkSet> {
        Ok(self.0.clone())
    }
}

#[derive(Default)]
struct KeyCache {
    by_kid: HashMap<String, Arc<DecodingKey>>,
    fetched_at: Option<Instant>,
}

/// Verifies access tokens; cheap to share behind an `Arc`.
pub struct TokenVerifier {
    source: Arc<dyn KeySource>,
    /// Accepts either audience; [`Self::verify_kind`] then holds each token to its kind's.
    validation: Validation,
    /// The audience of each kind.
    settings: TokenSettings,
    min_refresh: Duration,
    keys: RwLock<KeyCache>,
    refresh: Mutex<()>,
    revocations: Option<SharedStore>,
    /// Claims of tokens whose signature, `typ`, issuer, audience (one of the two) and `nbf`
    /// were checked, by token; the kind is checked on every call, after this cache.
    verified: Option<quick_cache::sync::Cache<String, Arc<Claims>>>,
    /// Tokens whose signature or expiry was refused, by a digest keyed for this process (an
    /// attacker chooses these tokens, each as long as a request head allows): one presented
    /// again, or checked for a call's trace and then by the call's gate, is not verified twice.
    refused: Option<Refused>,
}

/// The memory of refused tokens: refusals that stay true (a bad signature, an expiry), never
/// one that may change (a key not yet fetched, a token not yet valid).
struct Refused {
    by_digest: quick_cache::sync::Cache<u64, VerifyError>,
    keys: RandomState,
}

impl Refused {
    fn get(&self, token: &str) -> Option<VerifyError> {
        self.by_digest.get(&self.keys.hash_one(token))
    }

    fn remember(&self, token: &str, error: VerifyError) {
        if matches!(error, VerifyError::Invalid | VerifyError::Expired) {
            self.by_digest.insert(self.keys.hash_one(token), error);
        }
    }
}

impl std::fmt::Debug for TokenVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenVerifier")
            .field("source", &self.source)
            .finish()
    }
}

impl TokenVerifier {
    pub fn new(
        settings: &TokenSettings,
        source: Arc<dyn KeySource>,
        revocations: Option<SharedStore>,
    ) -> Self {
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_issuer(&[settings.issuer.as_str()]);
        validation.set_audience(&[
            settings.audience.as_str(),
            settings.service_audience.as_str(),
        ]);
        validation.set_required_spec_claims(&["exp", "nbf", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = 5;
        Self {
            source,
            validation,
            settings: settings.clone(),
            min_refresh: Duration::from_millis(settings.jwks_min_refresh_ms),
            keys: RwLock::new(KeyCache::default()),
            refresh: Mutex::new(()),
            revocations,
            verified: (settings.verified_cache_capacity > 0)
                .then(|| quick_cache::sync::Cache::new(settings.verified_cache_capacity)),
            refused: (settings.verified_cache_capacity > 0).then(|| Refused {
                by_digest: quick_cache::sync::Cache::new(settings.verified_cache_capacity),
                keys: RandomState::new(),
            }),
        }
    }

    /// Verifies a member's access token: signature, `typ`, issuer, the members' audience,
    /// `exp`, `nbf` and revocation. A service token is [`VerifyError::WrongKind`].
    pub async fn verify(&self, token: &str) -> Result<Claims, VerifyError> {
        self.verify_kind(token, TokenKind::Member).await
    }

    /// Verifies an internal caller's service token, as [`Self::verify`] does a member's; a
    /// member token is [`VerifyError::WrongKind`].
    pub async fn verify_service(&self, token: &str) -> Result<Claims, VerifyError> {
        self.verify_kind(token, TokenKind::Service).await
    }

    /// Verifies a token of `kind`: its `kind` claim and its audience must both be that kind's.
    pub async fn verify_kind(&self, token: &str, kind: TokenKind) -> Result<Claims, VerifyError> {
        self.verify_shared(token, kind)
            .await
            .map(|claims| Claims::clone(&claims))
    }

    /// [`Self::verify_kind`], the claims shared with the verified-token cache rather than copied:
    /// what a port's gate keeps for the call ([`Admitted`]).
    pub(crate) async fn verify_shared(
        &self,
        token: &str,
        kind: TokenKind,
    ) -> Result<Arc<Claims>, VerifyError> {
        let claims = match self.cached(token) {
            Some(claims) => claims,
            None => self.remember(token, self.check_signature(token).await?),
        };
        if claims.aud != self.settings.audience_of(claims.kind) {
            // Auth never signs this pairing: a kind claim that disagrees with the audience.
            tracing::warn!(kind = ?claims.kind, aud = %claims.aud, "token whose kind and audience disagree refused");
            return Err(VerifyError::Invalid);
        }
        if claims.kind != kind {
            return Err(VerifyError::WrongKind);
        }
        if let Some(store) = &self.revocations {
            match store.get_tracked(&revocation_key(&claims.sid)).await {
                Ok(Some(_)) => return Err(VerifyError::Revoked),
                Ok(None) => {}
                Err(err) => tracing::warn!(error = %err, "revocation check skipped"),
            }
        }
        Ok(claims)
    }

    /// Whether `token` is one auth signed and still valid (signature, `typ`, issuer, audience,
    /// `nbf`, expiry), known without waiting: from the verified-token cache, or checked with the
    /// keys held now and then cached for the verification that follows. Neither its kind nor
    /// revocation is looked at, and a token signed with a key not yet fetched is not known, so
    /// this says who a caller is, never what it may do: a gRPC port continues the trace of such
    /// a caller (`access::Policy`), and only [`Self::verify_kind`] admits a call.
    pub fn signed_and_valid_now(&self, token: &str) -> bool {
        if self.cached(token).is_some() {
            return true;
        }
        if self.refused_before(token).is_some() {
            return false;
        }
        let Ok(kid) = signing_kid(token) else {
            return false;
        };
        let key = match self.keys.try_read() {
            Ok(keys) => keys.by_kid.get(&kid).cloned(),
            Err(_) => None,
        };
        match key.map(|key| self.decode(token, &key)) {
            Some(Ok(claims)) => {
                self.remember(token, claims);
                true
            }
            _ => false,
        }
    }

    /// Why a token was refused before, when that stays true.
    fn refused_before(&self, token: &str) -> Option<VerifyError> {
        self.refused.as_ref().and_then(|refused| refused.get(token))
    }

    /// The claims of a token verified earlier and not expired since.
    fn cached(&self, token: &str) -> Option<Arc<Claims>> {
        self.verified
            .as_ref()
            .and_then(|cache| cache.get(token))
            .filter(|claims| claims.exp > now_millis() / 1000)
    }

    /// Keeps the claims of a token whose signature was just checked.
    fn remember(&self, token: &str, claims: Claims) -> Arc<Claims> {
        let claims = Arc::new(claims);
        if let Some(cache) = &self.verified {
            cache.insert(token.to_owned(), claims.clone());
        }
        claims
    }

    /// Signature, `typ`, issuer, audience, `nbf` and expiry: what does not change during a
    /// token's life (a token not yet valid is refused, so never cached).
    async fn check_signature(&self, token: &str) -> Result<Claims, VerifyError> {
        if let Some(error) = self.refused_before(token) {
            return Err(error);
        }
        let key = self.key(&signing_kid(token)?).await?;
        self.decode(token, &key)
    }

    /// The claims of `token` checked with `key`: signature, issuer, audience, `nbf`, expiry.
    /// A refusal that stays true is remembered.
    fn decode(&self, token: &str, key: &DecodingKey) -> Result<Claims, VerifyError> {
        let decoded = jsonwebtoken::decode::<Claims>(token, key, &self.validation)
            .map(|data| data.claims)
            .map_err(|err| match err.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => VerifyError::Expired,
                jsonwebtoken::errors::ErrorKind::ImmatureSignature => VerifyError::NotYetValid,
                _ => VerifyError::Invalid,
            });
        if let (Err(error), Some(refused)) = (&decoded, &self.refused) {
            refused.remember(token, *error);
        }
        decoded
    }

    /// Verifies the `authorization: Bearer …` metadata of a member call.
    pub async fn member<T>(&self, request: &tonic::Request<T>) -> Result<Claims, tonic::Status> {
        self.caller_of_kind(request, TokenKind::Member).await
    }

    /// Verifies the `authorization: Bearer …` metadata of an internal call (a service token:
    /// store systems, other services). A member token is refused with `ERR_FORBIDDEN`.
    pub async fn service<T>(&self, request: &tonic::Request<T>) -> Result<Claims, tonic::Status> {
        self.caller_of_kind(request, TokenKind::Service).await
    }

    async fn caller_of_kind<T>(
        &self,
        request: &tonic::Request<T>,
        kind: TokenKind,
    ) -> Result<Claims, tonic::Status> {
        // The port's access policy verified this call's token already (`access::Policy`).
        if let Some(admitted) = request.extensions().get::<Admitted>()
            && admitted.0.kind == kind
        {
            return Ok(Claims::clone(&admitted.0));
        }
        let token = bearer(request.metadata()).ok_or(VerifyError::Missing);
        let claims = match token {
            Ok(token) => self.verify_kind(token, kind).await,
            Err(err) => Err(err),
        };
        match claims {
            Ok(claims) => Ok(claims),
            Err(VerifyError::WrongKind) => {
                tracing::info!(expected = ?kind, "call with the wrong kind of token refused");
                Err(VerifyError::WrongKind.into_status())
            }
            Err(err) => {
                tracing::info!(reason = %err, expected = ?kind, "call refused");
                Err(err.into_status())
            }
        }
    }

    async fn key(&self, kid: &str) -> Result<Arc<DecodingKey>, VerifyError> {
        if let Some(key) = self.keys.read().await.by_kid.get(kid) {
            return Ok(key.clone());
        }
        let _one_fetch_at_a_time = self.refresh.lock().await;
        {
            let cache = self.keys.read().await;
            if let Some(key) = cache.by_kid.get(kid) {
                return Ok(key.clone());
            }
            if cache
                .fetched_at
                .is_some_and(|at| at.elapsed() < self.min_refresh)
            {
                return Err(VerifyError::UnknownKey);
            }
        }
        let set = self.source.fetch().await.map_err(|err| {
            tracing::warn!(error = %err, "cannot fetch verification keys");
            VerifyError::KeysUnavailable
        })?;
        let mut by_kid = HashMap::new();
        for jwk in &set.keys {
            if let (Some(id), Ok(key)) = (jwk.common.key_id.clone(), DecodingKey::from_jwk(jwk)) {
                by_kid.insert(id, Arc::new(key));
            }
        }
        tracing::info!(keys = by_kid.len(), "verification keys fetched");
        let mut cache = self.keys.write().await;
        *cache = KeyCache {
            by_kid,
            fetched_at: Some(Instant::now()),
        };
        cache
            .by_kid
            .get(kid)
            .cloned()
            .ok_or(VerifyError::UnknownKey)
    }
}

/// The key id of a token whose header is one auth writes: only the algorithm auth signs with
/// (no `none`, no HMAC keyed with a public key) and an access token's `typ`.
fn signing_kid(token: &str) -> Result<String, VerifyError> {
    let header = jsonwebtoken::decode_header(token).map_err(|_| VerifyError::Invalid)?;
    if header.alg != Algorithm::EdDSA || !is_access_token_typ(header.typ.as_deref()) {
        return Err(VerifyError::Invalid);
    }
    header.kid.ok_or(VerifyError::Invalid)
}

/// Claims the port's access policy (`access::Policy`) verified for a call, left in the
/// request's extensions so [`TokenVerifier::member`] and [`TokenVerifier::service`] do not
/// verify the token again.
#[derive(Debug, Clone)]
pub(crate) struct Admitted(pub(crate) Arc<Claims>);

/// The token of an `authorization: Bearer …` header.
pub fn bearer(metadata: &tonic::metadata::MetadataMap) -> Option<&str> {
    bearer_token(metadata.get("authorization")?.to_str().ok()?)
}

/// [`bearer`] of a request's HTTP headers: the gateway's member requests, and a gRPC call
/// before tonic has made its headers metadata.
pub fn bearer_of_headers(headers: &http::HeaderMap) -> Option<&str> {
    bearer_token(headers.get(http::header::AUTHORIZATION)?.to_str().ok()?)
}

/// The one rule for reading a bearer token, at every hop: the scheme in any case (RFC 7235
/// §2.1: `Bearer`, `bearer`, `BEARER`), one space, and a token that is never empty.
fn bearer_token(value: &str) -> Option<&str> {
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Adds `authorization: Bearer <token>` to an outgoing request.
pub fn with_bearer<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    // Moved into the header without another copy: the JWT goes out on every gateway call.
    if let Ok(value) = tonic::metadata::MetadataValue::try_from(["Bearer ", token].concat()) {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

/// Client credentials of an internal caller (`IssueServiceToken`), e.g. `[accounts.service_client]`.
#[derive(Clone, Default, Deserialize)]
#[serde(default)]
pub struct ServiceCredentials {
    pub client_id: String,
    pub client_secret: secrecy::SecretString,
}

impl std::fmt::Debug for ServiceCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceCredentials")
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl ServiceCredentials {
    pub fn is_configured(&self) -> bool {
        use secrecy::ExposeSecret;
        !self.client_id.is_empty() && !self.client_secret.expose_secret().is_empty()
    }
}

/// Service access tokens from auth's client-credentials grant, cached for half their life, so
/// a busy caller asks auth about twice per token lifetime. When auth cannot answer a renewal,
/// the cached token serves until shortly before it expires: an anonymous page (promotions) keeps
/// working through a short auth outage.
pub struct ServiceTokens {
    client: AuthServiceClient<TracedChannel>,
    credentials: ServiceCredentials,
    cached: Mutex<Option<CachedToken>>,
}

#[derive(Debug, Clone)]
struct CachedToken {
    token: String,
    renew_at: Instant,
    usable_until: Instant,
}

impl std::fmt::Debug for ServiceTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServiceTokens")
            .field("client_id", &self.credentials.client_id)
            .finish_non_exhaustive()
    }
}

impl ServiceTokens {
    /// A token is not used this close to its expiry, so it never expires in flight.
    const MARGIN: Duration = Duration::from_secs(30);

    pub fn new(channel: TracedChannel, credentials: ServiceCredentials) -> Self {
        Self {
            client: AuthServiceClient::new(channel),
            credentials,
            cached: Mutex::new(None),
        }
    }

    /// The client id tokens are asked for.
    pub fn client_id(&self) -> &str {
        &self.credentials.client_id
    }

    /// A valid service token; asks auth only when the cached one is half through its life.
    pub async fn token(&self) -> Result<String, tonic::Status> {
        use secrecy::ExposeSecret;
        let mut cached = self.cached.lock().await;
        let now = Instant::now();
        if let Some(token) = cached.as_ref()
            && now < token.renew_at
        {
            return Ok(token.token.clone());
        }
        let answer = self
            .client
            .clone()
            .issue_service_token(miclub_proto::auth::v1::IssueServiceTokenRequest {
                client_id: self.credentials.client_id.clone(),
                client_secret: self.credentials.client_secret.expose_secret().to_owned(),
            })
            .await;
        let response = match answer {
            Ok(response) => response.into_inner(),
            Err(status) => {
                return match cached.as_ref() {
                    Some(token) if now < token.usable_until => {
                        tracing::warn!(client_id = %self.credentials.client_id, code = ?status.code(), "service token renewal failed, using the current one");
                        Ok(token.token.clone())
                    }
                    _ => Err(status),
                };
            }
        };
        let lifetime = Duration::from_secs(u64::try_from(response.expires_in_seconds).unwrap_or(0));
        tracing::debug!(client_id = %self.credentials.client_id, "service token issued");
        *cached = Some(CachedToken {
            token: response.access_token.clone(),
            renew_at: now + lifetime / 2,
            usable_until: now + lifetime.saturating_sub(Self::MARGIN),
        });
        Ok(response.access_token)
    }

    /// `message` with this caller's service token in `authorization` metadata.
    pub async fn request<T>(&self, message: T) -> Result<tonic::Request<T>, tonic::Status> {
        Ok(with_bearer(message, &self.token().await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestKeys;
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    /// `token` with its payload replaced by `claims`, keeping the original signature.
    fn with_claims(token: &str, claims: &Claims) -> String {
        let mut parts = token.split('.');
        let (header, _, signature) = (parts.next().unwrap(), parts.next(), parts.next().unwrap());
        let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).unwrap());
        format!("{header}.{payload}.{signature}")
    }

    #[tokio::test]
    async fn a_token_altered_after_it_was_verified_is_refused() {
        let keys = TestKeys::new();
        let verifier = keys.verifier(None);
        let token = keys.member_token("m1", "s1", 60);
        let mut claims = verifier.verify(&token).await.unwrap();
        claims.sub = "m2".into();
        let forged = with_claims(&token, &claims);
        assert_eq!(
            verifier.verify(&forged).await.unwrap_err(),
            VerifyError::Invalid
        );
        assert_eq!(verifier.verify(&token).await.unwrap().sub, "m1");
    }

    #[tokio::test]
    async fn a_verifier_without_a_cache_checks_every_token_the_same_way() {
        let keys = TestKeys::new();
        let settings = TokenSettings {
            verified_cache_capacity: 0,
            ..keys.settings.clone()
        };
        let verifier = TokenVerifier::new(&settings, keys.key_source(), None);
        let token = keys.member_token("m1", "s1", 60);
        for _ in 0..2 {
            assert_eq!(verifier.verify(&token).await.unwrap().sub, "m1");
        }
        assert_eq!(
            verifier
                .verify(&keys.member_token("m1", "s1", -60))
                .await
                .unwrap_err(),
            VerifyError::Expired
        );
    }

    #[tokio::test]
    async fn an_expired_token_is_refused_even_after_it_was_verified_while_valid() {
        let keys = TestKeys::new();
        let verifier = keys.verifier(None);
        // As if the token had been verified and cached while valid, a minute ago.
        let token = keys.member_token("m1", "s1", -60);
        let claims = Claims {
            exp: now_millis() / 1000 - 60,
            ..verifier
                .verify(&keys.member_token("m1", "s1", 60))
                .await
                .unwrap()
        };
        verifier
            .verified
            .as_ref()
            .unwrap()
            .insert(token.clone(), Arc::new(claims));
        assert_eq!(
            verifier.verify(&token).await.unwrap_err(),
            VerifyError::Expired
        );
    }

    #[test]
    fn the_bearer_scheme_is_read_in_any_case_and_an_empty_or_foreign_credential_is_none() {
        let read = |value: &str| {
            let mut headers = http::HeaderMap::new();
            headers.insert(http::header::AUTHORIZATION, value.parse().unwrap());
            bearer_of_headers(&headers).map(str::to_owned)
        };
        for value in ["Bearer abc", "bearer abc", "BEARER abc", "bEaReR abc"] {
            assert_eq!(read(value).as_deref(), Some("abc"), "{value}");
        }
        for value in [
            "Bearer ",
            "Bearer",
            "Basic abc",
            "Bearerabc",
            "Token abc",
            "",
        ] {
            assert_eq!(read(value), None, "{value:?}");
        }
        assert_eq!(bearer_of_headers(&http::HeaderMap::new()), None);
    }

    #[tokio::test]
    async fn a_refusal_that_stays_true_is_remembered_and_one_that_may_change_is_not() {
        let keys = TestKeys::new();
        let verifier = keys.verifier(None);
        let valid = keys.member_token("m1", "s1", 60);
        let forged = TestKeys::new().sign_with_header(
            access_token_header(keys.kid()),
            &keys.claims(TokenKind::Member, "m1", "s1", 60),
        );
        let expired = keys.member_token("m1", "s1", -60);
        let mut early = keys.claims(TokenKind::Member, "m1", "s1", 7_200);
        early.nbf = early.iat + 3_600;
        let not_yet_valid = keys.sign_with_header(access_token_header(keys.kid()), &early);
        let unknown_key = keys.sign_with_header(
            access_token_header("rotated-away"),
            &keys.claims(TokenKind::Member, "m1", "s1", 60),
        );

        assert!(verifier.verify(&valid).await.is_ok());
        for (token, refused, remembered) in [
            (&forged, VerifyError::Invalid, true),
            (&expired, VerifyError::Expired, true),
            (&not_yet_valid, VerifyError::NotYetValid, false),
            (&unknown_key, VerifyError::UnknownKey, false),
        ] {
            assert_eq!(verifier.verify(token).await.unwrap_err(), refused);
            let expected = remembered.then_some(refused);
            assert_eq!(verifier.refused_before(token), expected, "{refused:?}");
            // Asked again, by the gate or a replay, the answer is the same.
            assert_eq!(verifier.verify(token).await.unwrap_err(), refused);
            assert!(!verifier.signed_and_valid_now(token));
        }
        assert_eq!(verifier.refused_before(&valid), None);
    }
}
