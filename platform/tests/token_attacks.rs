//! Forged and misused access tokens against the real [`TokenVerifier`], one attack per test:
//! each must be refused with the [`VerifyError`] that names why. The keys are a real Ed25519
//! pair published through a [`KeySource`], as auth publishes its JWK Set.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use miclub_platform::error::ErrorCode;
use miclub_platform::testing::TestKeys;
use miclub_platform::tokens::{
    Claims, KeySource, StaticKeySource, TokenKind, TokenSettings, TokenVerifier, VerifyError,
    access_token_header, with_bearer,
};

fn member_claims(keys: &TestKeys) -> Claims {
    keys.claims(TokenKind::Member, "m1", "s1", 60)
}

fn b64(json: &serde_json::Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(json).unwrap())
}

/// The raw 32 bytes of the published Ed25519 public key (the JWK's `x`).
fn public_key_bytes(jwks: &JwkSet) -> Vec<u8> {
    match &jwks.keys[0].algorithm {
        AlgorithmParameters::OctetKeyPair(okp) => URL_SAFE_NO_PAD.decode(&okp.x).unwrap(),
        other => panic!("not an OKP key: {other:?}"),
    }
}

/// A key source that counts its fetches, to see the verifier asked again.
#[derive(Debug)]
struct CountingKeySource {
    inner: StaticKeySource,
    fetches: AtomicUsize,
}

#[async_trait]
impl KeySource for CountingKeySource {
    async fn fetch(&self) -> anyhow::Result<JwkSet> {
        self.fetches.fetch_add(1, Ordering::SeqCst);
        self.inner.fetch().await
    }
}

#[tokio::test]
async fn a_token_auth_signed_passes_as_its_own_kind() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let member = keys.member_token("m1", "s1", 60);
    let service = keys.service_token("pos", 60);
    assert_eq!(verifier.verify(&member).await.unwrap().sub, "m1");
    assert_eq!(verifier.verify_service(&service).await.unwrap().sub, "pos");
    let header = jsonwebtoken::decode_header(&member).unwrap();
    assert_eq!(header.typ.as_deref(), Some("at+jwt"));
}

#[tokio::test]
async fn a_token_with_alg_none_and_no_signature_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let header = serde_json::json!({"alg": "none", "typ": "at+jwt", "kid": keys.kid()});
    let claims = serde_json::to_value(member_claims(&keys)).unwrap();
    for forged in [
        format!("{}.{}.", b64(&header), b64(&claims)),
        format!("{}.{}", b64(&header), b64(&claims)),
    ] {
        assert_eq!(
            verifier.verify(&forged).await.unwrap_err(),
            VerifyError::Invalid
        );
    }
    // `none` in other spellings, with the signature of a genuine token left in place.
    let genuine = keys.member_token("m1", "s1", 60);
    let signature = genuine.rsplit('.').next().unwrap();
    for alg in ["None", "NONE", "nOnE"] {
        let header = serde_json::json!({"alg": alg, "typ": "at+jwt", "kid": keys.kid()});
        let forged = format!("{}.{}.{signature}", b64(&header), b64(&claims));
        assert_eq!(
            verifier.verify(&forged).await.unwrap_err(),
            VerifyError::Invalid,
            "{alg}"
        );
    }
}

#[tokio::test]
async fn a_token_signed_with_hs256_keyed_by_the_public_key_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let raw = public_key_bytes(keys.jwks());
    let x = URL_SAFE_NO_PAD.encode(&raw);
    let jwk_json = serde_json::to_vec(&keys.jwks().keys[0]).unwrap();
    // Every form of the public key a verifier might mistake for an HMAC secret.
    for secret in [raw.clone(), x.into_bytes(), jwk_json] {
        for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            let mut header = access_token_header(keys.kid());
            header.alg = alg;
            let forged = jsonwebtoken::encode(
                &header,
                &member_claims(&keys),
                &EncodingKey::from_secret(&secret),
            )
            .unwrap();
            assert_eq!(
                verifier.verify(&forged).await.unwrap_err(),
                VerifyError::Invalid,
                "{alg:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_token_from_another_issuer_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let claims = Claims {
        iss: "someone-else".into(),
        ..member_claims(&keys)
    };
    assert_eq!(
        verifier
            .verify(&keys.sign_claims(&claims))
            .await
            .unwrap_err(),
        VerifyError::Invalid
    );
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    for aud in ["another-app", "", "MICLUB"] {
        let claims = Claims {
            aud: aud.into(),
            ..member_claims(&keys)
        };
        assert_eq!(
            verifier
                .verify(&keys.sign_claims(&claims))
                .await
                .unwrap_err(),
            VerifyError::Invalid,
            "{aud:?}"
        );
    }
    // Both audiences at once, as an array: neither kind's token looks like that.
    let mut both = serde_json::to_value(member_claims(&keys)).unwrap();
    both["aud"] = serde_json::json!(["miclub", "miclub-internal"]);
    let forged = keys.sign_with_header(access_token_header(keys.kid()), &both);
    assert_eq!(
        verifier.verify(&forged).await.unwrap_err(),
        VerifyError::Invalid
    );
    assert_eq!(
        verifier.verify_service(&forged).await.unwrap_err(),
        VerifyError::Invalid
    );
}

#[tokio::test]
async fn a_service_token_presented_as_a_member_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let service = keys.service_token("pos", 60);
    assert_eq!(
        verifier.verify(&service).await.unwrap_err(),
        VerifyError::WrongKind
    );
    let status = verifier
        .member(&with_bearer((), &service))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
    assert_eq!(VerifyError::WrongKind.error_code(), ErrorCode::Forbidden);
}

#[tokio::test]
async fn a_member_token_presented_as_a_service_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let member = keys.member_token("m1", "s1", 60);
    assert_eq!(
        verifier.verify_service(&member).await.unwrap_err(),
        VerifyError::WrongKind
    );
    let status = verifier
        .service(&with_bearer((), &member))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
}

#[tokio::test]
async fn a_kind_claim_that_disagrees_with_the_audience_passes_as_neither_kind() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let settings = TokenSettings::default();
    // The kind says service, the audience is the members' (and the reverse): the audience is
    // checked per kind, not only the `kind` claim.
    let service_for_members = Claims {
        kind: TokenKind::Service,
        aud: settings.audience.clone(),
        ..member_claims(&keys)
    };
    let member_for_services = Claims {
        kind: TokenKind::Member,
        aud: settings.service_audience.clone(),
        ..member_claims(&keys)
    };
    for claims in [service_for_members, member_for_services] {
        let forged = keys.sign_claims(&claims);
        assert_eq!(
            verifier.verify(&forged).await.unwrap_err(),
            VerifyError::Invalid
        );
        assert_eq!(
            verifier.verify_service(&forged).await.unwrap_err(),
            VerifyError::Invalid
        );
    }
}

#[tokio::test]
async fn a_token_verified_as_one_kind_is_not_accepted_as_the_other_from_the_cache() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let member = keys.member_token("m1", "s1", 60);
    let service = keys.service_token("pos", 60);
    // Verified (and cached) as their own kind first, then presented as the other.
    verifier.verify(&member).await.unwrap();
    verifier.verify_service(&service).await.unwrap();
    for _ in 0..2 {
        assert_eq!(
            verifier.verify_service(&member).await.unwrap_err(),
            VerifyError::WrongKind
        );
        assert_eq!(
            verifier.verify(&service).await.unwrap_err(),
            VerifyError::WrongKind
        );
    }
    assert!(verifier.verify(&member).await.is_ok());
}

#[tokio::test]
async fn a_token_with_a_wrong_or_missing_typ_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let claims = member_claims(&keys);
    for typ in [Some("JWT"), Some("jwt"), Some("at+jwt-not"), Some(""), None] {
        let mut header = access_token_header(keys.kid());
        header.typ = typ.map(str::to_owned);
        let forged = keys.sign_with_header(header, &claims);
        assert_eq!(
            verifier.verify(&forged).await.unwrap_err(),
            VerifyError::Invalid,
            "{typ:?}"
        );
    }
    // RFC 9068 allows the full media type, in any case.
    for typ in ["application/at+jwt", "AT+JWT"] {
        let mut header = access_token_header(keys.kid());
        header.typ = Some(typ.into());
        assert!(
            verifier
                .verify(&keys.sign_with_header(header, &claims))
                .await
                .is_ok(),
            "{typ}"
        );
    }
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    // Beyond the verifier's 5-second leeway for clock skew.
    let claims = Claims {
        exp: chrono::Utc::now().timestamp() - 10,
        ..member_claims(&keys)
    };
    assert_eq!(
        verifier
            .verify(&keys.sign_claims(&claims))
            .await
            .unwrap_err(),
        VerifyError::Expired
    );
}

#[tokio::test]
async fn a_token_not_yet_valid_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let now = chrono::Utc::now().timestamp();
    let claims = Claims {
        nbf: now + 60,
        exp: now + 120,
        ..member_claims(&keys)
    };
    let early = keys.sign_claims(&claims);
    assert_eq!(
        verifier.verify(&early).await.unwrap_err(),
        VerifyError::NotYetValid
    );
    // Refused, not cached: asking again is refused again.
    assert_eq!(
        verifier.verify(&early).await.unwrap_err(),
        VerifyError::NotYetValid
    );
}

#[tokio::test]
async fn a_token_without_nbf_is_refused() {
    let keys = TestKeys::new();
    let verifier = keys.verifier(None);
    let mut claims = serde_json::to_value(member_claims(&keys)).unwrap();
    claims.as_object_mut().unwrap().remove("nbf");
    let forged = keys.sign_with_header(access_token_header(keys.kid()), &claims);
    assert_eq!(
        verifier.verify(&forged).await.unwrap_err(),
        VerifyError::Invalid
    );
}

#[tokio::test]
async fn a_token_with_an_unknown_kid_is_refused_after_the_keys_are_fetched_again() {
    let keys = TestKeys::new();
    let source = Arc::new(CountingKeySource {
        inner: StaticKeySource(keys.jwks().clone()),
        fetches: AtomicUsize::new(0),
    });
    let settings = TokenSettings {
        jwks_min_refresh_ms: 0,
        ..keys.settings.clone()
    };
    let verifier = TokenVerifier::new(&settings, source.clone(), None);
    verifier
        .verify(&keys.member_token("m1", "s1", 60))
        .await
        .unwrap();
    assert_eq!(source.fetches.load(Ordering::SeqCst), 1);
    // Signed by the right key, under a kid nobody published.
    let forged = keys.sign_with_header(access_token_header("rotated-away"), &member_claims(&keys));
    assert_eq!(
        verifier.verify(&forged).await.unwrap_err(),
        VerifyError::UnknownKey
    );
    assert_eq!(source.fetches.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_key_embedded_in_the_token_header_is_not_trusted() {
    let keys = TestKeys::new();
    let attacker = TestKeys::new();
    let verifier = keys.verifier(None);
    // The attacker's own key in the `jwk` header, under the genuine kid and under its own.
    for kid in [keys.kid(), attacker.kid()] {
        let mut header: Header = access_token_header(kid);
        header.jwk = Some(attacker.jwks().keys[0].clone());
        let forged = attacker.sign_with_header(header, &member_claims(&keys));
        let refused = verifier.verify(&forged).await.unwrap_err();
        assert!(
            matches!(refused, VerifyError::Invalid | VerifyError::UnknownKey),
            "{refused:?}"
        );
    }
}

/// What a gRPC port asks before a call is admitted, to decide whether it continues the
/// caller's trace: only a token auth signed passes, and passing admits nothing.
#[tokio::test]
async fn only_a_token_auth_signed_is_known_at_once_and_being_known_admits_nothing() {
    let keys = TestKeys::new();
    let attacker = TestKeys::new();
    let verifier = keys.verifier(None);
    let member = keys.member_token("m1", "s1", 60);
    assert!(
        !verifier.signed_and_valid_now(&member),
        "no key is held before the first verification fetches them"
    );
    verifier
        .verify_service(&keys.service_token("pos", 60))
        .await
        .unwrap();

    assert!(verifier.signed_and_valid_now(&member));
    let header = serde_json::json!({"alg": "none", "typ": "at+jwt", "kid": keys.kid()});
    let unsigned = format!(
        "{}.{}.",
        b64(&header),
        b64(&serde_json::to_value(member_claims(&keys)).unwrap())
    );
    for stranger in [
        keys.member_token("m1", "s1", -60),
        attacker.member_token("m1", "s1", 60),
        attacker.sign_with_header(access_token_header(keys.kid()), &member_claims(&keys)),
        unsigned,
        "not.a.token".to_owned(),
    ] {
        assert!(!verifier.signed_and_valid_now(&stranger), "{stranger}");
    }
    // Known at once, and still held to its kind when the call is verified.
    assert_eq!(
        verifier.verify_service(&member).await.unwrap_err(),
        VerifyError::WrongKind
    );
}
