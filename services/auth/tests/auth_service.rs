//! The auth service over gRPC, as the gateway calls it: each scenario spawns the real
//! `Application` on port 0 and runs on PostgreSQL + Redis and on SQLite + memory. Its
//! PostgreSQL and SQLite migrations build the same schema (`schema`).

mod schema;
mod support;

use std::time::Duration;

use miclub_auth::SERVICE_NAME;
use miclub_platform::backend_tests;
use miclub_platform::demo::DEMO_PASSWORD;
use miclub_platform::error::ErrorCode;
use miclub_platform::identity::Rut;
use miclub_platform::storage::Database;
use miclub_platform::testing::TestEnv;
use miclub_platform::tokens::{MAX_ACCESS_TTL, TokenKind, VerifyError};
use sqlx::Row;
use support::{ana, bruno, carla, diego, spawn_app, spawn_app_with};
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

async fn the_right_password_sends_a_code_that_opens_a_session_the_verifier_accepts(env: TestEnv) {
    let app = spawn_app(env).await;
    let member = ana();
    let started = app
        .start_login("11.111.111-1", DEMO_PASSWORD)
        .await
        .unwrap();
    assert_eq!(started.challenge_id.len(), 43);
    assert_eq!(started.masked_destination, "a***@example.cl");
    assert_eq!(started.expires_in_seconds, 300);
    assert_eq!(started.resend_after_seconds, 60);
    let mail = app.mailbox.list().into_iter().next().unwrap();
    assert_eq!(mail.to, member.email);
    assert_eq!(mail.subject, "Tu código de acceso a Mi Club");
    let code = mail.code.unwrap();
    assert!(code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()));
    assert!(mail.body.contains(&code) && mail.body.contains("Vence en 5 minutos"));

    let done = app.verify(&started.challenge_id, &code).await.unwrap();
    assert_eq!(done.member_id, member.member_id);
    assert!(!done.is_user_migrating);
    let session = done.session.unwrap();
    assert!(session.access_expires_in_seconds as u64 <= MAX_ACCESS_TTL.as_secs());
    // The refresh token lives as long as the session may: its absolute limit (12 hours).
    assert_eq!(session.refresh_expires_in_seconds, 12 * 3600);
    assert!(!session.refresh_token.is_empty());

    let header = jsonwebtoken::decode_header(&session.access_token).unwrap();
    assert_eq!(header.alg, jsonwebtoken::Algorithm::EdDSA);
    assert!(header.kid.is_some());
    let claims = app
        .verifier()
        .await
        .verify(&session.access_token)
        .await
        .unwrap();
    assert_eq!(claims.sub, member.member_id);
    assert_eq!(claims.kind, TokenKind::Member);
    assert_eq!(claims.iss, "miclub-auth");
    assert_eq!(claims.aud, "miclub");
    assert!(claims.exp - claims.iat <= MAX_ACCESS_TTL.as_secs() as i64);
    assert!(!claims.sid.is_empty() && !claims.jti.is_empty());
}

async fn any_common_form_of_the_rut_logs_in(env: TestEnv) {
    let app = spawn_app(env).await;
    for user in ["11111111-1", "111111111", " 11.111.111-1 "] {
        assert!(app.start_login(user, DEMO_PASSWORD).await.is_ok(), "{user}");
    }
}

async fn an_unknown_user_and_a_wrong_password_get_the_same_answer(env: TestEnv) {
    let app = spawn_app(env).await;
    let unknown = app
        .start_login("12.345.678-5", DEMO_PASSWORD)
        .await
        .unwrap_err();
    let wrong = app
        .start_login("11.111.111-1", "NoEsLaClave1")
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::InvalidCredentials);
    assert_eq!(unknown, wrong);
    assert_eq!(wrong.message, "RUT o contraseña incorrectos.");
    assert!(app.mailbox.list().is_empty());
}

async fn malformed_input_is_refused_with_its_field(env: TestEnv) {
    let app = spawn_app(env).await;
    let rut = app
        .start_login("11.111.111-2", DEMO_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(rut.code, ErrorCode::InvalidRut);
    assert_eq!(rut.field.as_deref(), Some("user"));
    assert_eq!(rut.message, "El RUT ingresado no es válido.");
    let no_user = app.start_login("  ", DEMO_PASSWORD).await.unwrap_err();
    assert_eq!(no_user.code, ErrorCode::InvalidArgument);
    assert_eq!(no_user.field.as_deref(), Some("user"));
    let no_password = app.start_login("11.111.111-1", "").await.unwrap_err();
    assert_eq!(no_password.code, ErrorCode::InvalidArgument);
    assert_eq!(no_password.field.as_deref(), Some("password"));
    let huge = app
        .start_login("11.111.111-1", &"x".repeat(10_000))
        .await
        .unwrap_err();
    assert_eq!(huge.field.as_deref(), Some("password"));
}

async fn a_member_whose_email_is_not_verified_is_offered_the_verification_email(env: TestEnv) {
    let app = spawn_app(env).await;
    let member = carla();
    let refused = app
        .start_login(member.rut, DEMO_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::EmailNotVerified);
    let action = refused.action.unwrap();
    assert_eq!(action.url, "/registro/verificar-correo");
    assert_eq!(action.url_name, "Reenviar correo de verificación");
    // Only a right password learns that the email is not verified.
    let wrong = app
        .start_login(member.rut, "NoEsLaClave1")
        .await
        .unwrap_err();
    assert_eq!(wrong.code, ErrorCode::InvalidCredentials);
    assert_eq!(app.mails_to(member.email), 0);
}

async fn after_five_wrong_codes_the_right_code_is_refused(env: TestEnv) {
    let app = spawn_app(env).await;
    let (challenge, code) = app.password_step(ana()).await;
    let wrong = if code == "000000" { "000001" } else { "000000" };
    for _ in 0..5 {
        assert_eq!(
            app.verify(&challenge, wrong).await.unwrap_err().code,
            ErrorCode::OtpInvalid
        );
    }
    let sixth = app.verify(&challenge, &code).await.unwrap_err();
    assert_eq!(sixth.code, ErrorCode::OtpTooManyAttempts);
    // The challenge is over: neither the code nor a resend brings it back.
    assert_eq!(
        app.verify(&challenge, &code).await.unwrap_err().code,
        ErrorCode::OtpTooManyAttempts
    );
    assert_eq!(
        app.resend(&challenge).await.unwrap_err().code,
        ErrorCode::OtpExpired
    );
}

async fn a_malformed_code_is_refused_without_spending_a_try(env: TestEnv) {
    let app = spawn_app(env).await;
    let (challenge, code) = app.password_step(ana()).await;
    for bad in ["", "12345", "1234567", "12a456", "123 456"] {
        let refused = app.verify(&challenge, bad).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidArgument, "{bad:?}");
        assert_eq!(refused.field.as_deref(), Some("otp"));
    }
    assert!(app.verify(&challenge, &code).await.is_ok());
}

async fn a_code_cannot_be_used_twice(env: TestEnv) {
    let app = spawn_app(env).await;
    let (challenge, code) = app.password_step(ana()).await;
    assert!(app.verify(&challenge, &code).await.is_ok());
    assert_eq!(
        app.verify(&challenge, &code).await.unwrap_err().code,
        ErrorCode::OtpExpired
    );

    // Two right answers at once: exactly one session.
    let (challenge, code) = app.password_step(ana()).await;
    let (a, b) = tokio::join!(app.verify(&challenge, &code), app.verify(&challenge, &code));
    let winners = [&a, &b].iter().filter(|r| r.is_ok()).count();
    assert_eq!(winners, 1, "{a:?} {b:?}");
    let loser = a.err().or(b.err()).unwrap();
    assert_eq!(loser.code, ErrorCode::OtpExpired);
}

async fn a_resent_code_replaces_the_old_one(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.resend_cooldown_secs = 0).await;
    let member = ana();
    let (challenge, old) = app.password_step(member).await;
    let mut new = old.clone();
    for _ in 0..3 {
        let sent = app.resend(&challenge).await.unwrap();
        assert_eq!(sent.expires_in_seconds, 300);
        new = app.last_code_for(member.email);
        if new != old {
            break;
        }
    }
    assert_ne!(new, old, "three resends drew the same code");
    assert_eq!(
        app.verify(&challenge, &old).await.unwrap_err().code,
        ErrorCode::OtpInvalid
    );
    assert!(app.verify(&challenge, &new).await.is_ok());
}

async fn a_resend_within_the_cooldown_is_refused(env: TestEnv) {
    let app = spawn_app(env).await;
    let (challenge, code) = app.password_step(ana()).await;
    let refused = app.resend(&challenge).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::OtpResendCooldown);
    assert_eq!(app.mails_to(ana().email), 1);
    // The pending code still works.
    assert!(app.verify(&challenge, &code).await.is_ok());
    // An unknown challenge is a login that is no longer pending.
    assert_eq!(
        app.resend("nope").await.unwrap_err().code,
        ErrorCode::OtpExpired
    );
}

async fn codes_stop_at_the_daily_cap(env: TestEnv) {
    let app = spawn_app_with(env, |s| {
        s.policy.resend_cooldown_secs = 0;
        s.policy.daily_send_cap = 3;
    })
    .await;
    let member = ana();
    let (challenge, _) = app.password_step(member).await;
    app.resend(&challenge).await.unwrap();
    app.resend(&challenge).await.unwrap();
    assert_eq!(
        app.resend(&challenge).await.unwrap_err().code,
        ErrorCode::OtpDailyLimit
    );
    // A new login does not get around the cap either.
    let again = app
        .start_login(member.rut, DEMO_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(again.code, ErrorCode::OtpDailyLimit);
    assert_eq!(app.mails_to(member.email), 3);
    // The last code sent still works.
    let code = app.last_code_for(member.email);
    assert!(app.verify(&challenge, &code).await.is_ok());
}

async fn an_expired_code_is_refused(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.otp_ttl_secs = 1).await;
    let (challenge, code) = app.password_step(ana()).await;
    tokio::time::sleep(Duration::from_millis(1_300)).await;
    assert_eq!(
        app.verify(&challenge, &code).await.unwrap_err().code,
        ErrorCode::OtpExpired
    );
}

async fn twenty_concurrent_wrong_passwords_get_no_more_checks_than_the_limit(env: TestEnv) {
    // A long first wait, so the pair is still waiting when the right password comes, and
    // room under the per-address limit, so that is what refuses it.
    let app = spawn_app_with(env, |s| {
        s.policy.first_delay_secs = 30;
        s.policy.ip_attempts = 100;
        s.policy.ip_failures = 100;
    })
    .await;
    let limit = app.settings.policy.free_failures as usize;
    let attempts: Vec<_> = (0..20)
        .map(|i| {
            let mut client = app.client();
            tokio::spawn(async move {
                let request = miclub_proto::auth::v1::StartLoginRequest {
                    user: "11.111.111-1".into(),
                    password: format!("wrong-{i}"),
                    client_ip: support::CLIENT_IP.into(),
                    user_agent: String::new(),
                };
                client.start_login(request).await
            })
        })
        .collect();
    let mut checked = 0;
    let mut limited = 0;
    for attempt in attempts {
        let status = attempt.await.unwrap().unwrap_err();
        match miclub_platform::error::ErrorBody::from_status(&status).code {
            ErrorCode::InvalidCredentials => checked += 1,
            ErrorCode::TooManyAttempts => limited += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert!(
        checked <= limit,
        "{checked} passwords checked, limit {limit}"
    );
    assert_eq!(checked + limited, 20);
    // The right password is refused too while the pair waits, and is told how long.
    let right = app
        .start_login("11.111.111-1", DEMO_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(right.code, ErrorCode::TooManyAttempts);
    assert!(right.retry_after_secs.is_some_and(|s| s >= 1));
}

async fn wrong_passwords_are_limited_per_client_address(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.ip_failures = 3).await;
    for user in ["12.345.678-5", "11.111.111-1", "22.222.222-2"] {
        assert_eq!(
            app.start_login(user, "wrong").await.unwrap_err().code,
            ErrorCode::InvalidCredentials
        );
    }
    let limited = app
        .start_login("44.444.444-4", DEMO_PASSWORD)
        .await
        .unwrap_err();
    assert_eq!(limited.code, ErrorCode::TooManyAttempts);
    // Another address is not affected.
    assert!(
        app.start_login_from("44.444.444-4", DEMO_PASSWORD, "198.51.100.1")
            .await
            .is_ok()
    );
}

async fn members_behind_one_address_logging_in_do_not_use_up_its_wrong_passwords(env: TestEnv) {
    // A carrier's NAT: many members, one address. Their right passwords give back what each
    // took, so the typos and a stranger's guesses are what the limit counts.
    let app = spawn_app_with(env, |s| s.policy.ip_failures = 3).await;
    for _ in 0..2 {
        for member in [ana(), bruno(), diego()] {
            assert!(app.start_login(member.rut, DEMO_PASSWORD).await.is_ok());
        }
    }
    for user in ["12.345.678-5", "11.111.111-1", "22.222.222-2"] {
        assert_eq!(
            app.start_login(user, "wrong").await.unwrap_err().code,
            ErrorCode::InvalidCredentials
        );
    }
    let limited = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap_err();
    assert_eq!(limited.code, ErrorCode::TooManyAttempts);
    assert!(limited.retry_after_secs.is_some_and(|s| s >= 1));
}

async fn an_attacker_s_own_right_password_buys_back_no_guess(env: TestEnv) {
    // A right password gives back only the one it took itself: interleaving logins to one's
    // own account with guesses at others leaves the guesses counted.
    let app = spawn_app_with(env, |s| s.policy.ip_failures = 3).await;
    for body in 30_000_000..30_000_003u32 {
        let guess = format!("{body}-{}", Rut::check_digit(body));
        assert_eq!(
            app.start_login(&guess, "wrong").await.unwrap_err().code,
            ErrorCode::InvalidCredentials
        );
        if body < 30_000_002 {
            assert!(app.start_login(ana().rut, DEMO_PASSWORD).await.is_ok());
        }
    }
    let body = 30_000_003;
    let guess = format!("{body}-{}", Rut::check_digit(body));
    assert_eq!(
        app.start_login(&guess, "wrong").await.unwrap_err().code,
        ErrorCode::TooManyAttempts
    );
}

async fn passwords_checked_from_one_address_are_limited_right_or_wrong(env: TestEnv) {
    // What bounds the hashing one address can ask for, with passwords it knows.
    let app = spawn_app_with(env, |s| s.policy.ip_attempts = 3).await;
    for _ in 0..3 {
        assert!(app.start_login(ana().rut, DEMO_PASSWORD).await.is_ok());
    }
    let limited = app.start_login(ana().rut, DEMO_PASSWORD).await.unwrap_err();
    assert_eq!(limited.code, ErrorCode::TooManyAttempts);
    assert!(
        app.start_login_from(ana().rut, DEMO_PASSWORD, "198.51.100.1")
            .await
            .is_ok()
    );
}

async fn concurrent_guesses_across_accounts_get_no_more_checks_than_the_address_allows(
    env: TestEnv,
) {
    // Twenty accounts, one wrong password each, all at once from one address: each pair is
    // fresh, so only the address's limit stands in the way.
    let app = spawn_app_with(env, |s| s.policy.ip_failures = 5).await;
    let attempts: Vec<_> = (0..20u32)
        .map(|i| {
            let body = 30_000_000 + i;
            let user = format!("{body}-{}", Rut::check_digit(body));
            let mut client = app.client();
            tokio::spawn(async move {
                let request = miclub_proto::auth::v1::StartLoginRequest {
                    user,
                    password: "wrong".into(),
                    client_ip: support::CLIENT_IP.into(),
                    user_agent: String::new(),
                };
                client.start_login(request).await
            })
        })
        .collect();
    let mut checked = 0;
    for attempt in attempts {
        let status = attempt.await.unwrap().unwrap_err();
        match miclub_platform::error::ErrorBody::from_status(&status).code {
            ErrorCode::InvalidCredentials => checked += 1,
            ErrorCode::TooManyAttempts => {}
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(checked, 5, "passwords checked with a limit of 5");
}

async fn a_right_password_clears_the_pair(env: TestEnv) {
    let app = spawn_app_with(env, |s| s.policy.free_failures = 5).await;
    for _ in 0..4 {
        app.start_login("11.111.111-1", "wrong").await.unwrap_err();
    }
    app.start_login("11.111.111-1", DEMO_PASSWORD)
        .await
        .unwrap();
    for _ in 0..4 {
        let refused = app.start_login("11.111.111-1", "wrong").await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::InvalidCredentials);
    }
}

async fn a_refresh_token_rotates_into_a_new_pair_of_the_same_session(env: TestEnv) {
    let app = spawn_app(env).await;
    let first = app.login(ana()).await.session.unwrap();
    let second = app.refresh(&first.refresh_token).await.unwrap();
    assert_ne!(second.refresh_token, first.refresh_token);
    let verifier = app.verifier().await;
    let before = verifier.verify(&first.access_token).await.unwrap();
    let after = verifier.verify(&second.access_token).await.unwrap();
    assert_eq!(before.sid, after.sid);
    assert_eq!(after.sub, ana().member_id);
    let third = app.refresh(&second.refresh_token).await.unwrap();
    assert!(verifier.verify(&third.access_token).await.is_ok());
    let unknown = app.refresh("not-a-token-we-issued").await.unwrap_err();
    assert_eq!(unknown.code, ErrorCode::Unauthenticated);
    assert_eq!(
        app.refresh("").await.unwrap_err().code,
        ErrorCode::Unauthenticated
    );
}

async fn a_reused_refresh_token_revokes_its_whole_session(env: TestEnv) {
    let app = spawn_app(env).await;
    let stolen = app.login(ana()).await.session.unwrap();
    let rotated = app.refresh(&stolen.refresh_token).await.unwrap();
    let reuse = app.refresh(&stolen.refresh_token).await.unwrap_err();
    assert_eq!(reuse.code, ErrorCode::Unauthenticated);
    // The rotated token and the live access tokens of the session die with it.
    assert_eq!(
        app.refresh(&rotated.refresh_token).await.unwrap_err().code,
        ErrorCode::Unauthenticated
    );
    let verifier = app.verifier().await;
    assert_eq!(
        verifier.verify(&rotated.access_token).await.unwrap_err(),
        VerifyError::Revoked
    );
    assert_eq!(
        verifier.verify(&stolen.access_token).await.unwrap_err(),
        VerifyError::Revoked
    );
    // Another session of the same member is untouched.
    let other = app.login(ana()).await.session.unwrap();
    assert!(verifier.verify(&other.access_token).await.is_ok());
    assert!(app.refresh(&other.refresh_token).await.is_ok());
}

async fn two_concurrent_refreshes_with_one_token_cannot_both_succeed(env: TestEnv) {
    let app = spawn_app(env).await;
    let session = app.login(ana()).await.session.unwrap();
    let (a, b) = tokio::join!(
        app.refresh(&session.refresh_token),
        app.refresh(&session.refresh_token)
    );
    assert!(a.is_err() || b.is_err(), "both refreshes succeeded");
}

async fn a_token_used_after_logout_is_refused(env: TestEnv) {
    let app = spawn_app(env).await;
    let session = app.login(ana()).await.session.unwrap();
    let verifier = app.verifier().await;
    assert!(verifier.verify(&session.access_token).await.is_ok());
    app.logout(&session.access_token).await.unwrap();
    app.assert_session_over(&verifier, &session).await;
    // Logging out again is fine; logging out with nothing is not.
    app.logout(&session.access_token).await.unwrap();
    assert_eq!(
        app.logout("garbage").await.unwrap_err().code,
        ErrorCode::Unauthenticated
    );
}

async fn logout_with_only_the_refresh_token_revokes_the_session(env: TestEnv) {
    let app = spawn_app(env).await;
    let session = app.login(ana()).await.session.unwrap();
    let request = miclub_proto::auth::v1::LogoutRequest {
        refresh_token: session.refresh_token.clone(),
        access_token: String::new(),
    };
    app.client().logout(request).await.unwrap();
    assert_eq!(
        app.refresh(&session.refresh_token).await.unwrap_err().code,
        ErrorCode::Unauthenticated
    );
    let verifier = app.verifier().await;
    assert_eq!(
        verifier.verify(&session.access_token).await.unwrap_err(),
        VerifyError::Revoked
    );
}

async fn a_legacy_member_is_migrated_to_argon2id_on_first_login(env: TestEnv) {
    let app = spawn_app(env).await;
    let member = diego();
    let stored = |db: Database| async move {
        let row =
            sqlx::query("SELECT hash_scheme, password_hash FROM credentials WHERE member_id = $1")
                .bind(member.member_id)
                .fetch_one(db.pool())
                .await
                .unwrap();
        (
            row.get::<String, _>("hash_scheme"),
            row.get::<String, _>("password_hash"),
        )
    };
    let db = Database::connect(&app.env.database).await.unwrap();
    let (scheme, hash) = stored(db.clone()).await;
    assert_eq!(scheme, "legacy_bcrypt");
    assert!(hash.starts_with("$2"));

    let first = app.login(member).await;
    assert!(first.is_user_migrating);
    let (scheme, hash) = stored(db.clone()).await;
    assert_eq!(scheme, "argon2id");
    assert!(
        hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
        "{hash}"
    );

    let second = app.login(member).await;
    assert!(!second.is_user_migrating);
    db.close().await;
}

async fn the_demo_seed_is_idempotent(env: TestEnv) {
    let app = spawn_app(env).await;
    // Migrate Diego, then start a second instance on the same database.
    assert!(app.login(diego()).await.is_user_migrating);
    let settings = support::test_settings(&app.env);
    let deps = miclub_auth::Dependencies {
        store: app.env.store.clone(),
        notifier: app.mailbox.clone(),
        environment: miclub_platform::config::Environment::Development,
    };
    miclub_auth::Application::build(settings, deps)
        .await
        .unwrap();
    let db = Database::connect(&app.env.database).await.unwrap();
    let count: i64 = sqlx::query("SELECT COUNT(*) AS n FROM credentials")
        .fetch_one(db.pool())
        .await
        .unwrap()
        .get("n");
    assert_eq!(count, miclub_platform::demo::MEMBERS.len() as i64);
    db.close().await;
    assert!(!app.login(diego()).await.is_user_migrating);
}

async fn grpc_health_reports_serving(env: TestEnv) {
    let app = spawn_app(env).await;
    let channel = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{}", app.port))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = HealthClient::new(channel);
    for service in [SERVICE_NAME, ""] {
        let status = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .unwrap()
            .into_inner()
            .status;
        assert_eq!(status, ServingStatus::Serving as i32, "{service:?}");
    }
}

backend_tests!(
    the_right_password_sends_a_code_that_opens_a_session_the_verifier_accepts,
    any_common_form_of_the_rut_logs_in,
    an_unknown_user_and_a_wrong_password_get_the_same_answer,
    malformed_input_is_refused_with_its_field,
    a_member_whose_email_is_not_verified_is_offered_the_verification_email,
    after_five_wrong_codes_the_right_code_is_refused,
    a_malformed_code_is_refused_without_spending_a_try,
    a_code_cannot_be_used_twice,
    a_resent_code_replaces_the_old_one,
    a_resend_within_the_cooldown_is_refused,
    codes_stop_at_the_daily_cap,
    an_expired_code_is_refused,
    twenty_concurrent_wrong_passwords_get_no_more_checks_than_the_limit,
    wrong_passwords_are_limited_per_client_address,
    members_behind_one_address_logging_in_do_not_use_up_its_wrong_passwords,
    passwords_checked_from_one_address_are_limited_right_or_wrong,
    an_attacker_s_own_right_password_buys_back_no_guess,
    concurrent_guesses_across_accounts_get_no_more_checks_than_the_address_allows,
    a_right_password_clears_the_pair,
    a_refresh_token_rotates_into_a_new_pair_of_the_same_session,
    a_reused_refresh_token_revokes_its_whole_session,
    two_concurrent_refreshes_with_one_token_cannot_both_succeed,
    a_token_used_after_logout_is_refused,
    logout_with_only_the_refresh_token_revokes_the_session,
    a_legacy_member_is_migrated_to_argon2id_on_first_login,
    the_demo_seed_is_idempotent,
    grpc_health_reports_serving,
);
