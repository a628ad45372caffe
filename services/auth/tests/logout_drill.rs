//! Fault drill: a logout while auth's Redis is down is never a silent success. Auth runs on
//! PostgreSQL with its Redis behind a [`FaultProxy`]. With Redis cut, `Logout` answers
//! UNAVAILABLE (the gateway turns that into a 503 and still clears the cookies), yet the
//! session's refresh tokens are already revoked in SQL, so it cannot be renewed. Once Redis is
//! back, the same `Logout` succeeds and every verifier refuses the access token. "Cerrar las
//! demás sesiones" under the same cut is refused before anything is revoked, so the retry
//! finds the sessions again.

mod support;

use std::sync::Arc;

use miclub_platform::ephemeral::{EphemeralSettings, RedisStore, SharedStore};
use miclub_platform::error::ErrorCode;
use miclub_platform::storage::Database;
use miclub_platform::testing::{FaultProxy, TestEnv};
use sqlx::Row;

use support::{TestApp, ana, spawn_app};

/// Auth on PostgreSQL with its Redis behind a proxy the drill cuts and restores.
struct Drill {
    app: TestApp,
    proxy: FaultProxy,
    /// Auth's own store, through the proxy.
    through_proxy: SharedStore,
    /// A store straight to Redis, for the verifiers of the other hops.
    direct: SharedStore,
}

impl Drill {
    async fn start() -> Self {
        let mut env = TestEnv::postgres_redis().await;
        let (proxy, proxied) = FaultProxy::for_url(&env.ephemeral.redis_url).await.unwrap();
        let ephemeral = EphemeralSettings {
            redis_url: proxied,
            response_timeout_ms: 1_000,
            ..env.ephemeral.clone()
        };
        let direct = env.store.clone();
        let through_proxy: SharedStore = Arc::new(RedisStore::connect(&ephemeral).await.unwrap());
        env.store = through_proxy.clone();
        env.ephemeral = ephemeral;
        Self {
            app: spawn_app(env).await,
            proxy,
            through_proxy,
            direct,
        }
    }
}

/// Ends the cut; auth's store reconnects by itself, and its ping answering is the sign Redis
/// is back.
async fn restore(proxy: &FaultProxy, through_proxy: &SharedStore) {
    proxy.restore();
    let back = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while through_proxy.ping().await.is_err() {
        assert!(std::time::Instant::now() < back, "redis never came back");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_logout_while_redis_is_down_is_refused_yet_revoked_in_sql_and_completes_once_it_is_back()
{
    let Drill {
        app,
        proxy,
        through_proxy,
        direct,
    } = Drill::start().await;
    let session = app.login(ana()).await.session.expect("a session");
    let sid_revoked_in_sql = |db: Database| async move {
        let row = sqlx::query(
            "SELECT COUNT(*) AS live FROM refresh_tokens WHERE member_id = $1 AND revoked_at IS NULL",
        )
        .bind(ana().member_id)
        .fetch_one(db.pool())
        .await
        .unwrap();
        row.get::<i64, _>("live") == 0
    };
    let db = Database::connect(&app.env.database).await.unwrap();
    assert!(!sid_revoked_in_sql(db.clone()).await, "a live session");

    proxy.cut();
    let refused = app
        .logout(&session.access_token)
        .await
        .expect_err("a logout redis could not record");
    assert_eq!(refused.code, ErrorCode::Unavailable);
    assert!(
        sid_revoked_in_sql(db.clone()).await,
        "the refresh tokens are revoked in sql before redis is asked"
    );

    restore(&proxy, &through_proxy).await;
    // The member logs out again, and this time it is recorded.
    app.logout(&session.access_token)
        .await
        .expect("a logout once redis is back");
    let verifier = miclub_platform::tokens::TokenVerifier::new(
        &app.settings.tokens,
        Arc::new(miclub_platform::tokens::StaticKeySource(
            serde_json::from_str(
                &app.client()
                    .get_jwks(miclub_proto::auth::v1::GetJwksRequest {})
                    .await
                    .unwrap()
                    .into_inner()
                    .jwks_json,
            )
            .unwrap(),
        )),
        Some(direct),
    );
    app.assert_session_over(&verifier, &session).await;
}

/// The same cut during "Cerrar las demás sesiones": the call is refused while the other
/// sessions are still open (listed, renewable), so the member's retry finds them; once Redis is
/// back the retry closes them at both hops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_other_sessions_while_redis_is_down_is_refused_with_them_still_open_and_a_retry_closes_them()
 {
    let Drill {
        app,
        proxy,
        through_proxy,
        ..
    } = Drill::start().await;
    let mine = app.login(ana()).await.session.expect("a session");
    let other = app.login(ana()).await.session.expect("another session");

    proxy.cut();
    let refused = app
        .end_other_sessions(&mine.access_token)
        .await
        .expect_err("a close redis could not record");
    assert_eq!(refused.code, ErrorCode::Unavailable);
    restore(&proxy, &through_proxy).await;
    assert_eq!(
        app.list_sessions(&mine.access_token).await.unwrap().len(),
        2,
        "the other session is still listed for a retry"
    );
    assert_eq!(app.end_other_sessions(&mine.access_token).await.unwrap(), 1);
    app.assert_session_over(&app.verifier().await, &other).await;
}
