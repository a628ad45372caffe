//! Test support: a fresh database and ephemeral store per test, on both backends.
//!
//! PostgreSQL and Redis come from `TEST_POSTGRES_URL` (a server URL; each test creates and drops
//! its own `test_<uuid>` database) and `TEST_REDIS_URL` (each test gets its own key prefix).
//! Without those variables, testcontainers starts them when a Docker engine is reachable;
//! otherwise the local defaults `postgres://postgres@127.0.0.1:5432/postgres` and
//! `redis://127.0.0.1:6379` are used. [`backend_tests!`](crate::backend_tests) runs one scenario
//! on PostgreSQL + Redis and on SQLite + memory. [`FaultProxy`] stands between a client and
//! one of those servers to make it look stopped or slow, for fault drills.
//! [`assert_same_schema`] checks that a service's PostgreSQL and SQLite migrations build the
//! same schema.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use sqlx::Connection;

use crate::ephemeral::{EphemeralSettings, MemoryStore, RedisStore, SharedStore};
use crate::storage::{Backend, DatabaseSettings};

mod fault_proxy;
mod schema;

pub use fault_proxy::FaultProxy;
pub use schema::{
    Column, ForeignKey, Index, Schema, SchemaDiff, Table, TypeFamily, assert_same_schema, compare,
    compare_migrations, normalise_expression, normalise_predicate, read_postgres, read_sqlite,
};

/// One test's storage: a database of its own and an ephemeral store of its own.
#[derive(Debug)]
pub struct TestEnv {
    pub backend: Backend,
    pub database: DatabaseSettings,
    pub store: SharedStore,
    pub ephemeral: EphemeralSettings,
    _cleanup: Cleanup,
}

impl TestEnv {
    pub async fn postgres_redis() -> Self {
        let servers = servers();
        let (url, cleanup) = fresh_postgres_database().await;
        let database = DatabaseSettings {
            url,
            ..Default::default()
        };
        let ephemeral = EphemeralSettings {
            redis_url: servers.redis.clone(),
            key_prefix: format!("test:{}:", uuid::Uuid::new_v4().simple()),
            ..Default::default()
        };
        let store: SharedStore = Arc::new(
            RedisStore::connect(&ephemeral)
                .await
                .unwrap_or_else(|e| panic!("cannot reach redis at {}: {e}", servers.redis)),
        );
        Self {
            backend: Backend::Postgres,
            database,
            store,
            ephemeral,
            _cleanup: cleanup,
        }
    }

    pub async fn sqlite_memory() -> Self {
        let (dir, cleanup) = fresh_sqlite_dir();
        let database = DatabaseSettings {
            url: format!("sqlite://{}", dir.join("test.db").display()),
            ..Default::default()
        };
        Self {
            backend: Backend::Sqlite,
            database,
            store: Arc::new(MemoryStore::default()),
            ephemeral: EphemeralSettings::default(),
            _cleanup: cleanup,
        }
    }
}

/// A new, empty database on the tests' PostgreSQL server: its URL, and the cleanup that drops
/// it.
async fn fresh_postgres_database() -> (String, Cleanup) {
    let servers = servers();
    let name = format!("test_{}", uuid::Uuid::new_v4().simple());
    let mut admin = sqlx::PgConnection::connect(&servers.postgres)
        .await
        .unwrap_or_else(|e| panic!("cannot reach postgresql at {}: {e}", servers.postgres));
    // The name is a generated uuid, never input.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin)
        .await
        .expect("create test database");
    admin.close().await.ok();
    let url = replace_database(&servers.postgres, &name);
    let cleanup = Cleanup::Postgres {
        server: servers.postgres.clone(),
        name,
    };
    (url, cleanup)
}

/// A new, empty temporary folder (for a SQLite file), and the cleanup that removes it.
fn fresh_sqlite_dir() -> (PathBuf, Cleanup) {
    let dir = std::env::temp_dir().join(format!("miclub-test-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    (dir.clone(), Cleanup::Dir(dir))
}

#[derive(Debug)]
enum Cleanup {
    Postgres { server: String, name: String },
    Dir(PathBuf),
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        match self {
            Cleanup::Dir(dir) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Cleanup::Postgres { server, name } => {
                let (server, name) = (server.clone(), name.clone());
                // Drop runs inside the test's runtime; a thread of its own may block.
                let _ = std::thread::spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build();
                    if let Ok(runtime) = runtime {
                        runtime.block_on(async {
                            if let Ok(mut admin) = sqlx::PgConnection::connect(&server).await {
                                let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                                )))
                                .execute(&mut admin)
                                .await;
                            }
                        });
                    }
                })
                .join();
            }
        }
    }
}

/// The PostgreSQL server (an admin URL) and the Redis server the tests of this binary use.
#[derive(Debug)]
pub struct Servers {
    pub postgres: String,
    pub redis: String,
}

/// The servers, decided once per test binary: `TEST_POSTGRES_URL` and `TEST_REDIS_URL` when
/// both are set; else containers when a Docker engine is reachable; else the local defaults.
/// The distributed topology's tests provision on these too.
pub fn servers() -> &'static Servers {
    static SERVERS: OnceLock<Servers> = OnceLock::new();
    SERVERS.get_or_init(|| {
        let postgres = std::env::var("TEST_POSTGRES_URL").ok();
        let redis = std::env::var("TEST_REDIS_URL").ok();
        if let (Some(postgres), Some(redis)) = (&postgres, &redis) {
            return Servers {
                postgres: postgres.clone(),
                redis: redis.clone(),
            };
        }
        if std::path::Path::new("/var/run/docker.sock").exists()
            && let Some(started) = containers::start()
        {
            return started;
        }
        Servers {
            postgres: postgres
                .unwrap_or_else(|| "postgres://postgres@127.0.0.1:5432/postgres".into()),
            redis: redis.unwrap_or_else(|| "redis://127.0.0.1:6379".into()),
        }
    })
}

mod containers {
    //! PostgreSQL and Redis in containers, started once per test binary and kept for its life.

    use testcontainers::runners::AsyncRunner;
    use testcontainers_modules::{postgres::Postgres, redis::Redis};

    pub(super) fn start() -> Option<super::Servers> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok()?;
            runtime.block_on(async move {
                let started = async {
                    let pg = Postgres::default().start().await.ok()?;
                    let redis = Redis::default().start().await.ok()?;
                    let pg_port = pg.get_host_port_ipv4(5432).await.ok()?;
                    let redis_port = redis.get_host_port_ipv4(6379).await.ok()?;
                    Some((pg, redis, pg_port, redis_port))
                }
                .await;
                match started {
                    Some((pg, redis, pg_port, redis_port)) => {
                        let _ = tx.send(Some(super::Servers {
                            postgres: format!(
                                "postgres://postgres:postgres@127.0.0.1:{pg_port}/postgres"
                            ),
                            redis: format!("redis://127.0.0.1:{redis_port}"),
                        }));
                        // Keep the containers for the life of the test binary.
                        let _keep = (pg, redis);
                        std::future::pending::<()>().await;
                    }
                    None => {
                        let _ = tx.send(None);
                    }
                }
                Some(())
            })
        });
        rx.recv().ok().flatten()
    }
}

fn replace_database(server_url: &str, name: &str) -> String {
    let (base, query) = match server_url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (server_url, None),
    };
    let without_db = match base.rfind('/') {
        Some(i) if i > "postgres://".len() => &base[..i],
        _ => base,
    };
    match query {
        Some(q) => format!("{without_db}/{name}?{q}"),
        None => format!("{without_db}/{name}"),
    }
}

/// Runs each scenario `async fn name(env: TestEnv)` on PostgreSQL + Redis and on SQLite +
/// memory, as tests `name::on_postgresql_and_redis` and `name::on_sqlite_and_memory`.
#[macro_export]
macro_rules! backend_tests {
    ($($scenario:ident),* $(,)?) => {
        $(
            mod $scenario {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn on_postgresql_and_redis() {
                    super::$scenario($crate::testing::TestEnv::postgres_redis().await).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn on_sqlite_and_memory() {
                    super::$scenario($crate::testing::TestEnv::sqlite_memory().await).await
                }
            }
        )*
    };
}

/// A signing key of the tests' own, to mint access tokens the way auth does and verify them
/// with the real [`TokenVerifier`](crate::tokens::TokenVerifier).
#[derive(Clone)]
pub struct TestKeys {
    kid: String,
    encoding: jsonwebtoken::EncodingKey,
    jwks: jsonwebtoken::jwk::JwkSet,
    pub settings: crate::tokens::TokenSettings,
}

impl std::fmt::Debug for TestKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestKeys").field("kid", &self.kid).finish()
    }
}

impl Default for TestKeys {
    fn default() -> Self {
        Self::new()
    }
}

impl TestKeys {
    pub fn new() -> Self {
        use ed25519_dalek::pkcs8::EncodePrivateKey;
        let seed: [u8; 32] = rand::random();
        // PKCS#8 v1 (no public key inside): the 48-byte form jsonwebtoken derives JWKs from.
        let der = ed25519_dalek::pkcs8::KeypairBytes {
            secret_key: seed,
            public_key: None,
        }
        .to_pkcs8_der()
        .expect("pkcs8");
        let encoding = jsonwebtoken::EncodingKey::from_ed_der(der.as_bytes());
        let kid = format!("test-{}", uuid::Uuid::new_v4().simple());
        let mut jwk =
            jsonwebtoken::jwk::Jwk::from_encoding_key(&encoding, jsonwebtoken::Algorithm::EdDSA)
                .expect("jwk");
        jwk.common.key_id = Some(kid.clone());
        Self {
            kid,
            encoding,
            jwks: jsonwebtoken::jwk::JwkSet { keys: vec![jwk] },
            settings: crate::tokens::TokenSettings::default(),
        }
    }

    pub fn key_source(&self) -> Arc<dyn crate::tokens::KeySource> {
        Arc::new(crate::tokens::StaticKeySource(self.jwks.clone()))
    }

    /// A verifier of these keys, checking revocations in `store`.
    pub fn verifier(&self, store: Option<SharedStore>) -> crate::tokens::TokenVerifier {
        crate::tokens::TokenVerifier::new(&self.settings, self.key_source(), store)
    }

    /// A member access token for `member_id` in session `sid`, valid for `ttl_secs`
    /// (negative for an expired one).
    pub fn member_token(&self, member_id: &str, sid: &str, ttl_secs: i64) -> String {
        self.sign(crate::tokens::TokenKind::Member, member_id, sid, ttl_secs)
    }

    /// A service access token for the internal caller `client_id`, granted every scoped
    /// method: for tests that are not about who may call what (those use [`Self::scoped_token`]).
    pub fn service_token(&self, client_id: &str, ttl_secs: i64) -> String {
        let methods: Vec<String> = crate::access::served_methods()
            .into_iter()
            .filter(|method| crate::access::access_of(method) == crate::access::Access::Scoped)
            .collect();
        let methods: Vec<&str> = methods.iter().map(String::as_str).collect();
        self.scoped_token(client_id, &methods, ttl_secs)
    }

    /// A service token of `client_id` allowed to call `methods` (`package.Service/Method`),
    /// as auth signs one for a client granted them.
    pub fn scoped_token(&self, client_id: &str, methods: &[&str], ttl_secs: i64) -> String {
        let sid = format!("svc-{}", uuid::Uuid::new_v4().simple());
        let mut claims = self.claims(crate::tokens::TokenKind::Service, client_id, &sid, ttl_secs);
        claims.scope = methods.join(" ");
        self.sign_claims(&claims)
    }

    /// A service token of `client_id` allowed every method of the gRPC `services` (e.g.
    /// `miclub.registration.v1.RegistrationService`) that takes a scope: for tests of one
    /// service that are not about who may call it.
    pub fn token_for_services(&self, client_id: &str, services: &[&str], ttl_secs: i64) -> String {
        let methods: Vec<String> = crate::access::served_methods()
            .into_iter()
            .filter(|method| {
                services
                    .iter()
                    .any(|service| method.split('/').next() == Some(*service))
                    && crate::access::access_of(method) == crate::access::Access::Scoped
            })
            .collect();
        let methods: Vec<&str> = methods.iter().map(String::as_str).collect();
        self.scoped_token(client_id, &methods, ttl_secs)
    }

    pub fn sign(
        &self,
        kind: crate::tokens::TokenKind,
        sub: &str,
        sid: &str,
        ttl_secs: i64,
    ) -> String {
        self.sign_claims(&self.claims(kind, sub, sid, ttl_secs))
    }

    /// The claims auth would sign for a token of `kind` (its kind's audience, `nbf` = `iat`).
    pub fn claims(
        &self,
        kind: crate::tokens::TokenKind,
        sub: &str,
        sid: &str,
        ttl_secs: i64,
    ) -> crate::tokens::Claims {
        let now = chrono::Utc::now().timestamp();
        crate::tokens::Claims {
            iss: self.settings.issuer.clone(),
            aud: self.settings.audience_of(kind).to_owned(),
            sub: sub.to_owned(),
            sid: sid.to_owned(),
            kind,
            iat: now,
            nbf: now,
            exp: now + ttl_secs,
            jti: uuid::Uuid::new_v4().to_string(),
            scope: String::new(),
        }
    }

    /// `claims` signed with this key under auth's header (`typ: at+jwt`, this key's `kid`).
    pub fn sign_claims(&self, claims: &crate::tokens::Claims) -> String {
        self.sign_with_header(crate::tokens::access_token_header(&self.kid), claims)
    }

    /// `claims` (any JSON object) signed with this key under any `header`, to forge what auth
    /// never signs.
    pub fn sign_with_header(
        &self,
        header: jsonwebtoken::Header,
        claims: &impl serde::Serialize,
    ) -> String {
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("sign test token")
    }

    /// The id of this signing key.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The published public keys (one OKP Ed25519 JWK).
    pub fn jwks(&self) -> &jsonwebtoken::jwk::JwkSet {
        &self.jwks
    }
}

/// Adds `authorization: Bearer <token>` to every call of a test's gRPC client
/// (`XServiceClient::with_interceptor(channel, Bearer(token))`).
#[derive(Debug, Clone)]
pub struct Bearer(pub String);

impl tonic::service::Interceptor for Bearer {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if !request.metadata().contains_key("authorization") {
            let value = format!("Bearer {}", self.0)
                .parse()
                .map_err(|_| tonic::Status::internal("token is not a header value"))?;
            request.metadata_mut().insert("authorization", value);
        }
        Ok(request)
    }
}

/// A channel whose calls carry a token unless they carry one already.
pub type BearerChannel =
    tonic::service::interceptor::InterceptedService<tonic::transport::Channel, Bearer>;

/// A gate that admits every call: for a test's stand-in of another service, which is not the
/// component under test and has no policy of its own.
#[derive(Debug, Clone, Copy)]
pub struct AdmitAll;

impl crate::grpc::Gate for AdmitAll {
    fn admit<'a>(
        &'a self,
        request: axum::extract::Request,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<crate::grpc::Pass, tonic::Status>> + Send + 'a>,
    > {
        Box::pin(async move { Ok(crate::grpc::Pass::through(request)) })
    }

    /// Every caller, as a test's stand-in trusts the test.
    fn vouches_for(&self, _headers: &http::HeaderMap) -> bool {
        true
    }
}

/// The notices still in a service's mail outbox (`crate::notify::outbox`), each as its subject
/// and the tries made so far, oldest first.
pub async fn mail_outbox(db: &crate::storage::Database) -> Vec<(String, i64)> {
    mail_outbox_rows(db)
        .await
        .into_iter()
        .map(|(subject, tries, _)| (subject, tries))
        .collect()
}

/// [`mail_outbox`] with each notice's `due_at` (Unix ms) too.
async fn mail_outbox_rows(db: &crate::storage::Database) -> Vec<(String, i64, i64)> {
    use sqlx::Row;
    sqlx::query(
        "SELECT subject, CAST(tries AS BIGINT) AS tries, due_at FROM mail_outbox \
         ORDER BY created_at, id",
    )
    .fetch_all(db.pool())
    .await
    .expect("reading the mail outbox")
    .iter()
    .map(|row| (row.get("subject"), row.get("tries"), row.get("due_at")))
    .collect()
}

/// Waits up to 5 s until the mail outbox holds `subject`'s notice alone, tried at least once
/// and set for its retry: its relay tried it, the try failed, and the failure is recorded. At
/// least once, since under load the relay's retry a second later may come before the test
/// looks; recorded, since a service stopped between the claim and the failure's record leaves
/// the notice under its claim's lease (five minutes), which is not what such a test stages.
pub async fn mail_outbox_tried(db: &crate::storage::Database, subject: &str) {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
    let leased_from =
        || crate::storage::now_millis() + crate::notify::MailOutbox::LEASE.as_millis() as i64 / 2;
    loop {
        let outbox = mail_outbox_rows(db).await;
        if matches!(outbox.as_slice(), [(held, tries, due_at)]
            if held == subject && *tries >= 1 && *due_at < leased_from())
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{subject:?} not tried alone and set for its retry: {outbox:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// A gRPC port on a free port of 127.0.0.1 serving health and reflection, and what `add`
/// puts beside them, with the rules of `settings` (its TLS, calls, connection cap and
/// lifetime) and every call passing `gate`; it drains at once and stops when the trigger drops.
pub async fn serve_port(
    settings: &crate::grpc::ServerSettings,
    add: impl FnOnce(tonic::service::Routes) -> tonic::service::Routes,
    gate: Arc<dyn crate::grpc::Gate>,
) -> (u16, crate::shutdown::ShutdownTrigger) {
    let (server, health, routes) = crate::grpc::server(&[], settings)
        .await
        .expect("a grpc server");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let port = listener.local_addr().expect("a bound port").port();
    let (trigger, stop) = crate::shutdown::channel();
    tokio::spawn(crate::grpc::serve(
        server,
        add(routes),
        crate::grpc::CappedListener {
            listener,
            per_client: settings.connections_per_client,
            lifetime: settings.lifetime(),
        },
        health,
        std::time::Duration::ZERO,
        stop,
        gate,
    ));
    (port, trigger)
}

/// The status a gRPC port's health service answers `client` for `service` ("" for the whole
/// port; 1 is SERVING), or the status that refused the call.
pub async fn health_status(
    client: &crate::grpc::ClientSettings,
    service: &str,
) -> Result<i32, tonic::Status> {
    let channel = client.channel().expect("a channel");
    let answer = tonic_health::pb::health_client::HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest {
            service: service.to_owned(),
        })
        .await?;
    Ok(answer.into_inner().status)
}
