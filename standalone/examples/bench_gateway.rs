//! The servers of `bench/gateway.sh` (issue #8, point 1): the authenticated balance path and
//! the baselines it is measured beside, each run alone while `wrk` loads it.
//!
//! - `bare PORT`: an axum handler answering `GET /api/balance` with the same JSON from memory.
//! - `hop PORT`: an axum handler making one tonic call (a plain channel, the generated
//!   `AccountsServiceClient`) to an in-process gRPC server that answers `GetBalance` from
//!   memory: the bare REST → gRPC hop.
//! - `pg PORT` (row `hop+pg`): `hop` whose gRPC server reads Ana's balance from PostgreSQL
//!   (`BENCH_ACCOUNTS_DB`, the database `full` seeded) through accounts' own store; no token,
//!   no Redis, no logging. The ceiling of the full path: the hop plus one real balance read.
//! - `full PORT TOKEN_FILE`: the real portal in this process (gateway, auth, accounts, …) with
//!   auth and accounts on PostgreSQL (`BENCH_AUTH_DB`, `BENCH_ACCOUNTS_DB`) and the ephemeral
//!   store on Redis (`BENCH_REDIS_URL`), every other setting at its default (`APP_*` variables
//!   override any of them, e.g. `APP_EPHEMERAL__CLIENT_CACHE=false`), production's logging
//!   (JSON lines at `info` on stdout, which the script sends to a file). Ana logs in with her
//!   password and the code from the dev mailbox; her session cookie is written to `TOKEN_FILE`
//!   for `wrk` (`__Host-mc_session` with `APP_GATEWAY__SECURE_COOKIES=true`, production's
//!   cookies over TLS). The token is checked by the gateway and again by accounts, and the balance is
//!   read from PostgreSQL.
//!
//! nginx is started by the script in front of `bare`; `uncached` is `full` with
//! `APP_EPHEMERAL__CLIENT_CACHE=false`.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::routing::get;
use miclub_accounts::domain::MemberId;
use miclub_accounts::store::Store;
use miclub_platform::config::{Environment, Layered};
use miclub_platform::demo::MEMBERS;
use miclub_platform::shutdown;
use miclub_platform::storage::{DatabaseSettings, millis_to_rfc3339};
use miclub_platform::telemetry::{self, TelemetrySettings};
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::accounts::v1::{GetBalanceRequest, GetBalanceResponse};
use serde::Serialize;
use tonic::codegen::{BoxFuture, Service, http};
use tonic::transport::Channel;

#[path = "common/login.rs"]
mod common;
#[path = "common/loopback_jar.rs"]
mod loopback_jar;

// The portal's allocator (see `src/main.rs`), in every configuration alike.
#[global_allocator]
static ALLOCATOR: miclub_platform::Allocator = miclub_platform::Allocator;

/// The body every configuration answers, shaped like the gateway's `Balance`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Balance {
    balance: i64,
    updated_at: Option<String>,
}

const BALANCE: i64 = 12_345;
const UPDATED_AT: &str = "2026-11-21T12:00:00.000Z";

fn from_memory() -> Balance {
    Balance {
        balance: BALANCE,
        updated_at: Some(UPDATED_AT.to_owned()),
    }
}

async fn serve(port: u16, app: Router) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("ready {}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

async fn bare(port: u16) -> anyhow::Result<()> {
    let app = Router::new().route(
        "/api/balance",
        get(|| async { ([(header::CACHE_CONTROL, "no-store")], Json(from_memory())) }),
    );
    serve(port, app).await
}

/// `GetBalance` of `miclub.accounts.v1.AccountsService`, answered from memory (`hop`) or from
/// PostgreSQL (`pg`); every other method is unimplemented. Written against tonic's server parts
/// because the generated server trait would need all nineteen methods.
#[derive(Clone, Debug)]
enum BenchAccounts {
    Memory,
    Postgres(Arc<StoredBalance>),
}

impl tonic::server::NamedService for BenchAccounts {
    const NAME: &'static str = "miclub.accounts.v1.AccountsService";
}

#[derive(Clone, Copy, Debug)]
struct GetBalance;

impl tonic::server::UnaryService<GetBalanceRequest> for GetBalance {
    type Response = GetBalanceResponse;
    type Future = BoxFuture<tonic::Response<GetBalanceResponse>, tonic::Status>;

    fn call(&mut self, _request: tonic::Request<GetBalanceRequest>) -> Self::Future {
        Box::pin(async {
            Ok(tonic::Response::new(GetBalanceResponse {
                balance: BALANCE,
                updated_at: UPDATED_AT.to_owned(),
            }))
        })
    }
}

/// Ana's balance read through accounts' store, the query the real `GetBalance` makes.
#[derive(Debug)]
struct StoredBalance {
    store: Store,
    member: MemberId,
}

#[derive(Clone, Debug)]
struct GetStoredBalance(Arc<StoredBalance>);

impl tonic::server::UnaryService<GetBalanceRequest> for GetStoredBalance {
    type Response = GetBalanceResponse;
    type Future = BoxFuture<tonic::Response<GetBalanceResponse>, tonic::Status>;

    fn call(&mut self, _request: tonic::Request<GetBalanceRequest>) -> Self::Future {
        let source = Arc::clone(&self.0);
        Box::pin(async move {
            // A missing balance is an error, so wrk counts non-2xx and the script refuses the run.
            let balance = source
                .store
                .balance(&source.member)
                .await
                .map_err(|err| tonic::Status::internal(err.to_string()))?
                .ok_or_else(|| tonic::Status::not_found("Ana has no club account"))?;
            Ok(tonic::Response::new(GetBalanceResponse {
                balance: balance.pesos(),
                updated_at: millis_to_rfc3339(balance.updated_at()),
            }))
        })
    }
}

impl Service<http::Request<tonic::body::Body>> for BenchAccounts {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let accounts = self.clone();
        Box::pin(async move {
            if request.uri().path() == "/miclub.accounts.v1.AccountsService/GetBalance" {
                let mut grpc = tonic::server::Grpc::new(tonic_prost::ProstCodec::default());
                Ok(match accounts {
                    BenchAccounts::Memory => grpc.unary(GetBalance, request).await,
                    BenchAccounts::Postgres(source) => {
                        grpc.unary(GetStoredBalance(source), request).await
                    }
                })
            } else {
                Ok(tonic::Status::unimplemented("bench").into_http())
            }
        })
    }
}

/// The `pg` mode: `hop` with Ana's balance read from `BENCH_ACCOUNTS_DB`.
async fn hop_pg(port: u16) -> anyhow::Result<()> {
    let store = Store::connect(&DatabaseSettings {
        url: env("BENCH_ACCOUNTS_DB")?,
        ..Default::default()
    })
    .await?;
    let ana = MEMBERS
        .first()
        .ok_or_else(|| anyhow::anyhow!("no demo members"))?;
    let member = MemberId::parse(ana.member_id)?;
    hop(
        port,
        BenchAccounts::Postgres(Arc::new(StoredBalance { store, member })),
    )
    .await
}

async fn hop(port: u16, accounts: BenchAccounts) -> anyhow::Result<()> {
    let grpc_listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let grpc_address = grpc_listener.local_addr()?;
    tokio::spawn(async move {
        // Sockets with TCP_NODELAY, as the services' own ports (the builder's setting does not
        // reach a listener handed in); no cap and no lifetime, the floor.
        let forever = miclub_platform::grpc::Lifetime {
            max_age: None,
            grace: std::time::Duration::ZERO,
        };
        let incoming = miclub_platform::grpc::accepting(grpc_listener, 0, forever);
        if let Err(err) = tonic::transport::Server::builder()
            .add_service(accounts)
            .serve_with_incoming(incoming)
            .await
        {
            eprintln!("bench accounts failed: {err}");
        }
    });
    let connections: usize = std::env::var("BENCH_HOP_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let endpoint = Channel::from_shared(format!("http://{grpc_address}"))?.tcp_nodelay(true);
    let channel = if connections > 1 {
        Channel::balance_list(std::iter::repeat_n(endpoint, connections))
    } else {
        endpoint.connect_lazy()
    };
    let app = Router::new()
        .route(
            "/api/balance",
            get(
                |State(accounts): State<AccountsServiceClient<Channel>>| async move {
                    let answer = accounts
                        .clone()
                        .get_balance(GetBalanceRequest {})
                        .await
                        .map_err(|status| {
                            (
                                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                                status.message().to_owned(),
                            )
                        })?
                        .into_inner();
                    Ok::<_, (axum::http::StatusCode, String)>((
                        [(header::CACHE_CONTROL, "no-store")],
                        Json(Balance {
                            balance: answer.balance,
                            updated_at: Some(answer.updated_at).filter(|s| !s.is_empty()),
                        }),
                    ))
                },
            ),
        )
        .with_state(AccountsServiceClient::new(channel));
    serve(port, app).await
}

fn env(name: &str) -> anyhow::Result<String> {
    std::env::var(name).map_err(|_| anyhow::anyhow!("{name} is not set"))
}

async fn full(port: u16, token_file: &str) -> anyhow::Result<()> {
    let data = std::env::temp_dir().join(format!("miclub-bench-gateway-{}", std::process::id()));
    // `APP_*` variables override the benchmark's settings, to measure any of them. wrk is one
    // address standing for many members, so the per-address connection cap is off.
    let config = Layered::from_toml_with_overrides(
        Environment::Development,
        &format!(
            "[standalone]\ndata_dir = {data:?}\n\
             [gateway]\nport = {port}\nweb_dir = {no_web:?}\nlogin_requests_per_minute = 1000000\n\
             [gateway.connections]\nper_client = 0\n\
             [auth.policy]\ndaily_send_cap = 1000000\naccount_attempts = 1000000\n\
             ip_attempts = 1000000\nip_failures = 1000000\n\
             [auth.database]\nurl = {auth_db:?}\n\
             [accounts.database]\nurl = {accounts_db:?}\n\
             [ephemeral]\nredis_url = {redis:?}\nkey_prefix = \"bench:\"\n",
            data = data.display().to_string(),
            no_web = data.join("no-web").display().to_string(),
            auth_db = env("BENCH_AUTH_DB")?,
            accounts_db = env("BENCH_ACCOUNTS_DB")?,
            redis = env("BENCH_REDIS_URL")?,
        ),
    )?;
    // Production's logging: JSON lines, the default filter.
    let _telemetry = telemetry::init("miclub-bench", &TelemetrySettings::default())?;
    let (_stop, shutdown) = shutdown::channel();
    let running = miclub_standalone::start(&config, shutdown).await?;
    let base = format!("http://127.0.0.1:{}", running.gateway_port);
    // The loopback jar keeps production's `__Host-` cookies (`APP_GATEWAY__SECURE_COOKIES`).
    let browser = reqwest::Client::builder()
        .cookie_provider(std::sync::Arc::new(loopback_jar::LoopbackJar::default()))
        .build()?;
    let validated = common::log_in_ana(&browser, &base, &running.mailbox).await?;
    let session = validated
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("mc_session=") || v.starts_with("__Host-mc_session="))
        .and_then(|v| v.split(';').next())
        .ok_or_else(|| anyhow::anyhow!("no session cookie after the code step"))?
        .to_owned();
    std::fs::write(token_file, &session)?;
    eprintln!("ready 127.0.0.1:{}", running.gateway_port);
    let outcome = running.wait().await;
    let _ = std::fs::remove_dir_all(&data);
    outcome
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let port = |i: usize| -> anyhow::Result<u16> {
        Ok(args
            .get(i)
            .ok_or_else(|| anyhow::anyhow!("missing port"))?
            .parse()?)
    };
    match args.first().map(String::as_str) {
        Some("bare") => bare(port(1)?).await,
        Some("hop") => hop(port(1)?, BenchAccounts::Memory).await,
        Some("pg") => hop_pg(port(1)?).await,
        Some("full") => {
            let token_file = args
                .get(2)
                .ok_or_else(|| anyhow::anyhow!("missing token file"))?;
            full(port(1)?, token_file).await
        }
        _ => anyhow::bail!("usage: bench_gateway bare|hop|pg PORT | full PORT TOKEN_FILE"),
    }
}
