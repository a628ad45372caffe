//! The Mi Club gateway: the REST API the web app calls (`docs/api.md`), translated into gRPC
//! calls to the services. It owns cookies, CSRF checks, edge rate limits, request ids and the
//! mapping of service errors to HTTP statuses and Spanish bodies; it holds no business rules.
//! It also serves the built web app, and its request metrics on an ops port ([`ops`]).

pub mod activity;
pub mod compression;
pub mod config;
pub mod cookies;
pub mod csrf;
pub mod error;
pub mod extract;
pub mod flags;
pub mod headers;
pub mod openapi;
pub mod ops;
pub mod proxies;
pub mod recaptcha;
pub mod routes;
pub mod rut;
pub mod state;
pub mod user_agent;
pub mod web;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::HeaderName;
use miclub_platform::access::{ServiceChannel, as_client};
use miclub_platform::config::Environment;
use miclub_platform::ephemeral::SharedStore;
use miclub_platform::grpc::{ClientSettings, RetryIdempotent};
use miclub_platform::listener::{self, Limits};
use miclub_platform::notify::DevMailbox;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::telemetry::{adopt_remote_trace, metrics_handle, serve_ops};
use miclub_platform::tokens::{KeySource, ServiceTokens, TokenVerifier};
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;
use miclub_proto::missions::v1::missions_service_client::MissionsServiceClient;
use miclub_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use tokio::net::TcpListener;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::{DefaultOnResponse, TraceLayer};

pub use config::Settings;
use cookies::CookiePolicy;
use state::AppState;

/// What the gateway needs from the process that runs it.
#[derive(Debug)]
pub struct Dependencies {
    pub environment: Environment,
    pub store: SharedStore,
    /// Verification keys (auth's JWKS).
    pub key_source: Arc<dyn KeySource>,
    /// The dev mailbox of an in-process auth (standalone); served only when configured.
    pub mailbox: Option<Arc<DevMailbox>>,
}

#[derive(Debug)]
pub struct Application {
    listener: TcpListener,
    state: AppState,
    /// Serves `GET /metrics` when `ops_port` is set.
    ops_listener: Option<TcpListener>,
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

impl Application {
    pub async fn build(settings: Settings, deps: Dependencies) -> anyhow::Result<Self> {
        let state = build_state(settings, deps)?;
        let address = format!("{}:{}", state.settings.host, state.settings.port);
        let listener = TcpListener::bind(&address)
            .await
            .with_context(|| format!("binding {address}"))?;
        let ops_listener = match state.settings.ops_port {
            Some(port) => {
                metrics_handle();
                let address = format!("{}:{port}", state.settings.host);
                let ops = TcpListener::bind(&address)
                    .await
                    .with_context(|| format!("binding the ops port {address}"))?;
                Some(ops)
            }
            None => None,
        };
        Ok(Self {
            listener,
            state,
            ops_listener,
        })
    }

    pub fn port(&self) -> u16 {
        self.listener
            .local_addr()
            .map(|a| a.port())
            .unwrap_or_default()
    }

    /// The port `GET /metrics` is served on, when there is an ops listener.
    pub fn ops_port(&self) -> Option<u16> {
        self.ops_listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| a.port())
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        tracing::info!(address = %self.listener.local_addr()?, "gateway listening");
        // Metrics stay scrapeable while the gateway drains; the task ends with it.
        let ops = self
            .ops_listener
            .map(|listener| tokio::spawn(serve_ops(listener)));
        let proxies = self.state.proxies.clone();
        let limits = Limits::resolve("member", &self.state.settings.connections, move |peer| {
            proxies.contains(peer)
        });
        listener::serve(
            self.listener,
            router(self.state),
            limits,
            shutdown.wait(),
            DRAIN,
        )
        .await;
        if let Some(ops) = ops {
            ops.abort();
        }
        tracing::info!("gateway stopped");
        Ok(())
    }
}

/// The shared state of the handlers, with production's refusals applied.
pub fn build_state(settings: Settings, deps: Dependencies) -> anyhow::Result<AppState> {
    let production = deps.environment.is_production();
    let mailbox = match (settings.dev_mailbox, production) {
        (true, true) => anyhow::bail!("gateway.dev_mailbox cannot be enabled in production"),
        (true, false) => deps.mailbox,
        (false, _) => None,
    };
    let recaptcha = recaptcha::build(&settings.recaptcha, production)?;
    let tokens = if settings.service_client.is_configured() {
        Some(Arc::new(ServiceTokens::new(
            settings.auth.channel()?,
            settings.service_client.clone(),
        )))
    } else if production {
        anyhow::bail!(
            "production needs the gateway's client credentials at auth (gateway.service_client.client_id and client_secret)"
        );
    } else {
        tracing::warn!(
            "no gateway.service_client: anonymous calls go without a service token and the services will refuse them"
        );
        None
    };
    let channel = |client: &ClientSettings| -> anyhow::Result<ServiceChannel> {
        Ok(as_client(client.channel()?, tokens.clone()))
    };
    let retrying = |client: &ClientSettings| -> anyhow::Result<state::Channel> {
        Ok(RetryIdempotent::new(
            channel(client)?,
            client.request_timeout(),
        ))
    };
    let verifier = Arc::new(TokenVerifier::new(
        &settings.tokens,
        deps.key_source,
        Some(deps.store.clone()),
    ));
    Ok(AppState::new(state::Shared {
        auth: AuthServiceClient::new(retrying(&settings.auth)?),
        accounts: AccountsServiceClient::new(retrying(&settings.accounts)?),
        content: ContentServiceClient::new(retrying(&settings.content)?),
        registration: RegistrationServiceClient::new(retrying(&settings.registration)?),
        missions: MissionsServiceClient::new(retrying(&settings.missions)?),
        flags: flags::FlagSource::new(
            ContentServiceClient::new(channel(&settings.content)?),
            &settings.flags,
            std::time::Duration::from_secs(settings.flags_cache_secs),
        ),
        cookies: CookiePolicy {
            secure: settings.secure_cookies,
        },
        proxies: proxies::TrustedProxies::parse(&settings.trusted_proxies)?,
        headers: Arc::new(headers::SecurityHeaders::new(&settings)),
        activity: activity::ActivityMarks::new(deps.store.clone()),
        settings: Arc::new(settings),
        environment: deps.environment,
        verifier,
        store: deps.store,
        recaptcha,
        mailbox,
    }))
}

/// The whole HTTP surface: `/api`, then the web app for everything else.
///
/// Two tiers of middleware. What reads the matched route (the request span's `http.route`, the
/// request metric's label) must run inside the router, which wraps every route's service in it;
/// axum clones a route's whole stack, and each `from_fn` layer its inner stack again, on every
/// request. Everything else (headers, compression, cookies, the request id) wraps the router
/// once, where a clone per request is a few reference counts. The order a request meets the
/// layers is unchanged.
pub fn router(
    state: AppState,
) -> impl tower::Service<
    Request,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future: Send + 'static,
> + Clone
+ Send
+ Sync
+ 'static {
    let body_limit = state.settings.body_limit_bytes;
    let (api, _document) = routes::api_router(&state);
    let api = api
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            csrf::check,
        ))
        .layer(DefaultBodyLimit::max(body_limit));
    let mut app = api.with_state(state.clone());
    if let Some(dir) = state
        .settings
        .web_dir
        .as_ref()
        .filter(|d| d.join("index.html").exists())
    {
        tracing::info!(dir = %dir.display(), "serving the web app");
        app = app.merge(web::router(dir));
    } else {
        tracing::warn!(
            "no built web app found: serving the api only (build it with npm run build in web/)"
        );
    }
    let trace_sources = proxies::TraceSources::new(&state.proxies, state.settings.proxy_traces);
    let trace = TraceLayer::new_for_http()
        .make_span_with(move |request: &Request| {
            // Borrowed, not copied: the span's fields are formatted from it once, here.
            let route = request
                .extensions()
                .get::<MatchedPath>()
                .map_or_else(|| request.uri().path(), MatchedPath::as_str);
            let request_id = request
                .headers()
                .get(REQUEST_ID)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            // Concatenated, not formatted: `%format_args!` ran the formatting machinery once
            // per layer (the JSON span fields and the trace's span name).
            let name = [request.method().as_str(), " ", route].concat();
            let span = tracing::info_span!(
                "http.request",
                otel.name = name.as_str(),
                otel.kind = "server",
                // Strings as `&str`: recorded as they are, where `%` formats each one anew for
                // the JSON log's span fields and again for the trace's attributes.
                http.method = request.method().as_str(),
                http.route = route,
                request_id = request_id,
            );
            adopt_remote_trace(&span, request.headers(), trace_sources.of(request));
            span
        })
        .on_response(
            DefaultOnResponse::new()
                .level(tracing::Level::INFO)
                .latency_unit(tower_http::LatencyUnit::Millis),
        );
    let routed = app
        .layer(axum::middleware::from_fn(ops::count_request))
        .layer(trace);
    tower::ServiceBuilder::new()
        // Outermost: every answer, whichever layer or route produced it, carries the headers.
        .layer(axum::middleware::from_fn_with_state(
            state.headers.clone(),
            headers::apply,
        ))
        .layer(compression::layer())
        .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
        .layer(PropagateRequestIdLayer::new(REQUEST_ID))
        .service(routed)
}

/// How long the gateway waits for in-flight requests after the shutdown signal.
pub const DRAIN: Duration = Duration::from_secs(10);
