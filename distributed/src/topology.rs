//! Starting and stopping the whole topology: the mail catcher and the reCAPTCHA stand-in, one
//! database per service, each migration Job of the overlay, the demo seed, then the workloads
//! in the order their Services are named (auth first, the gateway last), each waited on
//! through its readiness probe.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};

use crate::mailcatcher::{MailCatcher, MailCatcherOptions};
use crate::manifests::{self, Rendered, Workload};
use crate::pki::Pki;
use crate::plan::{Local, MailEndpoint, PlanError, ProcessPlan};
use crate::postgres::{self, Databases};
use crate::processes::Child;
use crate::readiness;
use crate::recaptcha::SiteVerify;
use crate::redis_keys::PrefixedKeys;
use crate::secrets::{self, Produce, Vault};
use crate::service_proxy::ServiceProxy;

/// The workloads whose binaries have demo data (`--seed-demo`), seeded in this order.
pub const DEMO_SEEDED: &[&str] = &["auth", "accounts", "missions"];

/// Where the manifests come from.
#[derive(Debug, Clone)]
pub enum Manifests {
    /// An overlay folder, rendered with `kubectl kustomize`.
    Overlay(PathBuf),
    /// An already rendered YAML stream (tests that change a manifest).
    Rendered(String),
}

/// How to start the topology.
#[derive(Debug, Clone)]
pub struct Options {
    /// The repository: `config/`, `web/dist`, `tools/mailcatcher`.
    pub repo_root: PathBuf,
    /// Generated keys, certificates, secrets, the processes' folders and logs.
    pub state_dir: PathBuf,
    /// Where the six binaries are (`target/release` for `scripts/run --distributed`).
    pub bin_dir: PathBuf,
    pub manifests: Manifests,
    pub postgres_admin_url: String,
    pub redis_url: String,
    /// Databases and roles are `<prefix><service>`.
    pub database_prefix: String,
    /// Prefix of every Redis key and stream (tests sharing one Redis); none in production.
    pub redis_key_prefix: Option<String>,
    /// The gateway's port; 0 picks a free one.
    pub gateway_port: u16,
    /// The mail catcher's web port (its JSON at `/api/email`); 0 picks a free one.
    pub mail_web_port: u16,
    pub otlp_endpoint: Option<String>,
    /// Seed the demo members, credentials and missions (`--seed-demo`).
    pub seed_demo: bool,
    /// Drop the databases and roles, and the Redis keys under `redis_key_prefix`, when stopped
    /// or when a start fails (tests).
    pub drop_databases: bool,
    /// Longest wait for one process to be ready.
    pub ready_limit: Duration,
    /// Settings changed as an operator would change the overlay's ConfigMaps: each
    /// `APP_<SECTION>__…` goes to every process that reads that section (tests that need a
    /// flag or a shorter cache).
    pub overrides: Vec<(String, String)>,
}

impl Options {
    /// `scripts/run --distributed`: the dev overlay, release binaries, state in
    /// `.miclub/distributed/`, the portal on 8080, servers from `MICLUB_POSTGRES_ADMIN_URL` and
    /// `MICLUB_REDIS_URL`.
    pub fn for_repo(repo_root: &Path) -> Self {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo_root.join("target"));
        Self {
            repo_root: repo_root.to_owned(),
            state_dir: repo_root.join(".miclub/distributed"),
            bin_dir: target.join("release"),
            manifests: Manifests::Overlay(repo_root.join("k8s/overlays/dev")),
            postgres_admin_url: std::env::var("MICLUB_POSTGRES_ADMIN_URL")
                .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into()),
            redis_url: std::env::var("MICLUB_REDIS_URL")
                .unwrap_or_else(|_| "redis://127.0.0.1:6379".into()),
            database_prefix: "miclub_".into(),
            redis_key_prefix: None,
            gateway_port: 8080,
            mail_web_port: 1080,
            otlp_endpoint: None,
            seed_demo: true,
            drop_databases: false,
            ready_limit: Duration::from_secs(120),
            overrides: Vec::new(),
        }
    }

    /// A test's topology: unique database and Redis prefixes (so parallel runs never collide),
    /// free ports everywhere, databases and Redis keys dropped when stopped.
    pub fn for_test(repo_root: &Path, state_dir: &Path, bin_dir: &Path) -> Self {
        let run = uuid::Uuid::new_v4().simple().to_string();
        let run = &run[..12];
        Self {
            state_dir: state_dir.to_owned(),
            bin_dir: bin_dir.to_owned(),
            database_prefix: format!("t{run}_"),
            redis_key_prefix: Some(format!("test:{run}:")),
            gateway_port: 0,
            mail_web_port: 0,
            drop_databases: true,
            ..Self::for_repo(repo_root)
        }
    }
}

/// The started topology. Dropping it kills every process (and drops a test run's databases and
/// Redis keys).
#[derive(Debug)]
pub struct Running {
    /// `http://127.0.0.1:<port>`: the portal.
    pub gateway_url: String,
    /// maildev's JSON list of captured messages.
    pub mail_json_url: String,
    /// Service workload → the address of its gRPC port (the container port named `grpc`).
    pub grpc: BTreeMap<String, SocketAddr>,
    /// The local CA every internal certificate chains to (gRPC clients trust it when the
    /// manifests turn internal TLS on, as the dev overlay does).
    pub ca_file: PathBuf,
    /// Service → the PostgreSQL URL of its own database and role.
    pub database_urls: BTreeMap<String, String>,
    /// The processes as planned from the overlay.
    pub plans: BTreeMap<String, ProcessPlan>,
    /// Where the processes' logs are.
    pub log_dir: PathBuf,
    /// Service → the address its proxy listens on (what the processes' URLs name).
    pub services: BTreeMap<String, SocketAddr>,
    routes: Vec<ServiceRoute>,
    ports: BTreeMap<(String, u16), u16>,
    rendered: Rendered,
    bin_dir: PathBuf,
    ready_limit: Duration,
    restarts: usize,
    children: Vec<Child>,
    mail: Option<MailCatcher>,
    _siteverify: SiteVerify,
    run_data: Option<RunData>,
}

/// Everything decided before a process starts.
#[derive(Debug)]
pub struct Planned {
    pub rendered: Rendered,
    pub workloads: Vec<ProcessPlan>,
    pub jobs: Vec<ProcessPlan>,
    /// (workload, container port) → local port.
    pub ports: BTreeMap<(String, u16), u16>,
    /// (Service, Service port) → the local port of its proxy.
    pub service_ports: BTreeMap<(String, u16), u16>,
    pub mail: MailEndpoint,
    pub mail_web_port: u16,
    pub pki: Pki,
    pub recaptcha_secret: String,
}

/// Facts that come from servers (databases, the stand-ins' URLs) when planning.
#[derive(Debug)]
pub struct Servers<'a> {
    pub database_urls: &'a BTreeMap<String, String>,
    pub recaptcha_verify_url: &'a str,
}

pub struct Topology;

impl std::fmt::Debug for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Topology")
    }
}

impl Topology {
    /// Renders the overlay and reads it.
    pub fn render(options: &Options) -> anyhow::Result<Rendered> {
        let yaml = match &options.manifests {
            Manifests::Overlay(dir) => manifests::render(dir)?,
            Manifests::Rendered(yaml) => yaml.clone(),
        };
        Rendered::parse(&yaml)
    }

    /// The services that own a database: the owners of every `database-url` Secret key.
    pub fn database_services(rendered: &Rendered) -> Vec<String> {
        let mut services = BTreeSet::new();
        for workload in rendered.workloads.iter().chain(&rendered.jobs) {
            for container in &workload.pod.containers {
                for var in &container.env {
                    if let Some(key_ref) = var
                        .value_from
                        .as_ref()
                        .and_then(|f| f.secret_key_ref.as_ref())
                        && secrets::produce(&key_ref.key) == Some(Produce::DatabaseUrl)
                    {
                        services.insert(secrets::owner(&key_ref.name).to_owned());
                    }
                }
            }
        }
        services.into_iter().collect()
    }

    /// Plans every process from the overlay without starting anything.
    pub fn plan(
        options: &Options,
        rendered: Rendered,
        vault: &mut Vault,
        servers: &Servers<'_>,
    ) -> Result<Planned, PlanError> {
        let mut ports = BTreeMap::new();
        for workload in &rendered.workloads {
            let container = workload.container()?;
            for port in &container.ports {
                let local = if workload.name == "gateway"
                    && port.name.as_deref() == Some("http")
                    && options.gateway_port != 0
                {
                    options.gateway_port
                } else {
                    free_port()?
                };
                ports.insert((workload.name.clone(), port.container_port), local);
            }
        }
        // Each Service port that selects a workload gets its own local port (its proxy's).
        let mut service_ports = BTreeMap::new();
        for (service, spec) in &rendered.services {
            for port in &spec.ports {
                if rendered.backend(service, port.port).is_some() {
                    service_ports.insert((service.clone(), port.port), free_port()?);
                }
            }
        }
        let mut names: Vec<String> = rendered.workloads.iter().map(|w| w.name.clone()).collect();
        names.push("mailcatcher".into());
        let pki = Pki::load_or_create(&options.state_dir.join("pki"), &names)?;
        let mail = MailEndpoint {
            host: "127.0.0.1".into(),
            smtp_port: free_port()?,
            username: "miclub".into(),
            password: vault.random("smtp-password")?,
        };
        let mail_web_port = match options.mail_web_port {
            0 => free_port()?,
            fixed => fixed,
        };
        let recaptcha_secret = vault.random("recaptcha-secret")?;
        let gateway_port = gateway_port(&rendered, &ports)?;
        let portal_url = format!("http://127.0.0.1:{gateway_port}");
        let app_root = options.state_dir.join("app");
        let local = Local {
            rendered: &rendered,
            ports: &ports,
            service_ports: &service_ports,
            databases: servers.database_urls,
            redis_url: &options.redis_url,
            pki: &pki,
            mail: &mail,
            portal_url: &portal_url,
            recaptcha_verify_url: servers.recaptcha_verify_url,
            otlp_endpoint: options.otlp_endpoint.as_deref(),
            redis_key_prefix: options.redis_key_prefix.as_deref(),
            app_root: &app_root,
        };
        let mut workloads = rendered
            .workloads
            .iter()
            .map(|w| local.plan(w, vault))
            .collect::<Result<Vec<_>, _>>()?;
        apply_overrides(&mut workloads, &options.overrides)?;
        let jobs = rendered
            .jobs
            .iter()
            .map(|w| local.plan(w, vault))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Planned {
            workloads,
            jobs,
            ports,
            service_ports,
            mail,
            mail_web_port,
            pki,
            recaptcha_secret,
            rendered,
        })
    }

    /// Starts everything; on any failure, what was started is stopped again. Ports are picked
    /// free, then bound by each process: another program can take one in between, and then
    /// the whole start is tried again on new ports (three times at most).
    pub async fn start(options: Options) -> anyhow::Result<Running> {
        let mut attempt = 1;
        loop {
            match Self::start_once(options.clone()).await {
                Err(err) if attempt < 3 && readiness::port_taken(&err) => {
                    tracing::warn!(attempt, error = %format!("{err:#}"), "a port was taken before its process bound it: starting again on new ports");
                    attempt += 1;
                }
                outcome => return outcome,
            }
        }
    }

    async fn start_once(options: Options) -> anyhow::Result<Running> {
        let rendered = Self::render(&options)?;
        let mut vault = Vault::open(&options.state_dir)?;
        let services = Self::database_services(&rendered);
        let databases = postgres::provision(
            &options.postgres_admin_url,
            &options.database_prefix,
            &services,
            |service| {
                if options.drop_databases {
                    Ok(secrets::random_secret())
                } else {
                    vault.random(&format!("database-password/{service}"))
                }
            },
        )
        .await?;
        // From here on the databases and Redis keys are dropped on failure (tests).
        let run_data = if options.drop_databases {
            Some(RunData {
                databases: databases.clone(),
                keys: options
                    .redis_key_prefix
                    .as_deref()
                    .map(|prefix| PrefixedKeys::new(&options.redis_url, prefix))
                    .transpose()?,
            })
        } else {
            None
        };
        let mut partial = Partial {
            run_data: run_data.clone(),
            children: Vec::new(),
        };
        let siteverify =
            SiteVerify::start(vault.random("recaptcha-secret")?, "127.0.0.1".into()).await?;
        let planned = Self::plan(
            &options,
            rendered,
            &mut vault,
            &Servers {
                database_urls: &databases.urls,
                recaptcha_verify_url: &siteverify.url,
            },
        )?;
        let log_dir = options.state_dir.join("logs");
        prepare_folders(&options, &planned, &log_dir)?;

        let mail = MailCatcher::start(MailCatcherOptions {
            package_dir: &options.repo_root.join("tools/mailcatcher"),
            cert: planned.pki.cert("mailcatcher")?,
            username: &planned.mail.username,
            password: &planned.mail.password,
            smtp_port: planned.mail.smtp_port,
            web_port: planned.mail_web_port,
            log: &log_dir.join("mailcatcher.log"),
        })
        .await?;

        // The migration Jobs, as `kubectl apply` would run them before the workloads.
        run_to_completion(planned.jobs.to_vec(), &options.bin_dir, &log_dir).await?;
        if options.seed_demo {
            let seeds = DEMO_SEEDED
                .iter()
                .filter_map(|name| planned.workloads.iter().find(|p| p.name == *name))
                .map(|plan| ProcessPlan {
                    name: format!("{}-seed-demo", plan.name),
                    args: vec!["--seed-demo".into()],
                    ..plan.clone()
                })
                .collect();
            run_to_completion(seeds, &options.bin_dir, &log_dir).await?;
        }

        // The Services, without endpoints until their workload is ready.
        let mut routes = Vec::new();
        for ((service, port), local) in &planned.service_ports {
            let (backend, container_port) = planned
                .rendered
                .backend(service, *port)
                .context("a planned Service lost its backend")?;
            let listener = std::net::TcpListener::bind(("127.0.0.1", *local))
                .with_context(|| format!("binding Service {service}'s port {local}"))?;
            routes.push(ServiceRoute {
                proxy: ServiceProxy::start(service, listener, Vec::new())?,
                workload: backend.name.clone(),
                container_port,
            });
        }

        let client = reqwest::Client::new();
        let mut started: BTreeSet<String> = BTreeSet::new();
        while started.len() < planned.workloads.len() {
            let wave: Vec<&ProcessPlan> = planned
                .workloads
                .iter()
                .filter(|p| !started.contains(&p.name))
                .filter(|p| {
                    p.depends_on
                        .iter()
                        .all(|d| started.contains(d) || *d == p.name)
                })
                .collect();
            if wave.is_empty() {
                bail!(
                    "the workloads name each other's Services in a cycle: cannot order their start"
                );
            }
            let first = partial.children.len();
            for plan in &wave {
                let log = log_dir.join(format!("{}.log", plan.name));
                partial
                    .children
                    .push(Child::start(plan, &options.bin_dir, &log)?);
            }
            for (offset, plan) in wave.iter().enumerate() {
                let workload = planned
                    .rendered
                    .workload(&plan.name)
                    .context("a planned workload vanished")?;
                let child = &mut partial.children[first + offset];
                wait_ready(
                    child,
                    workload,
                    &planned.ports,
                    &client,
                    options.ready_limit,
                )
                .await?;
                for route in routes.iter().filter(|r| r.workload == plan.name) {
                    let port = planned.ports[&(plan.name.clone(), route.container_port)];
                    route.proxy.add(SocketAddr::from(([127, 0, 0, 1], port)));
                }
            }
            started.extend(wave.iter().map(|p| p.name.clone()));
        }

        let gateway_port = gateway_port(&planned.rendered, &planned.ports)?;
        let mut grpc = BTreeMap::new();
        for workload in &planned.rendered.workloads {
            let Ok(container) = workload.container() else {
                continue;
            };
            let named_grpc = container
                .ports
                .iter()
                .find(|p| p.name.as_deref() == Some("grpc"));
            if let Some(local) = named_grpc.and_then(|p| {
                planned
                    .ports
                    .get(&(workload.name.clone(), p.container_port))
            }) {
                grpc.insert(
                    workload.name.clone(),
                    SocketAddr::from(([127, 0, 0, 1], *local)),
                );
            }
        }
        let children = std::mem::take(&mut partial.children);
        partial.run_data = None;
        let services = routes
            .iter()
            .map(|r| (r.proxy.name.clone(), r.proxy.address))
            .collect();
        Ok(Running {
            services,
            routes,
            ports: planned.ports.clone(),
            rendered: planned.rendered.clone(),
            bin_dir: options.bin_dir.clone(),
            ready_limit: options.ready_limit,
            restarts: 0,
            gateway_url: format!("http://127.0.0.1:{gateway_port}"),
            mail_json_url: mail.json_url.clone(),
            grpc,
            ca_file: planned.pki.ca_file.clone(),
            database_urls: databases.urls.clone(),
            plans: planned
                .workloads
                .into_iter()
                .map(|p| (p.name.clone(), p))
                .collect(),
            log_dir,
            children,
            mail: Some(mail),
            _siteverify: siteverify,
            run_data,
        })
    }
}

impl Running {
    /// Replaces `workload`'s process as a Deployment's rolling update does with `maxSurge: 1,
    /// maxUnavailable: 0`: the new process starts on new ports, joins its Services' endpoints
    /// once its readiness probe answers, the old one leaves them, and only then gets SIGTERM and
    /// drains what it was given (the kubelet's grace period, 30 s). The manifests' preStop
    /// sleep is not needed here: the endpoints change before the SIGTERM, not eventually.
    pub async fn rolling_restart(&mut self, workload: &str) -> anyhow::Result<()> {
        let (index, manifest, old_plan) = self.replaceable(workload)?;
        // New ports for every container port; the plan's values naming the old ones follow.
        let mut ports = self.ports.clone();
        let mut env = old_plan.env.clone();
        let mut moved = Vec::new();
        for port in &manifest.container()?.ports {
            let key = (workload.to_owned(), port.container_port);
            let old = self.ports[&key];
            let new = free_port()?;
            ports.insert(key, new);
            moved.push((old, new));
            for value in env.values_mut() {
                if *value == old.to_string() {
                    *value = new.to_string();
                }
            }
        }
        let plan = ProcessPlan { env, ..old_plan };
        let log = self.next_log(workload);
        let mut child = Child::start(&plan, &self.bin_dir, &log)?;
        let client = reqwest::Client::new();
        wait_ready(&mut child, &manifest, &ports, &client, self.ready_limit).await?;
        for route in self.routes.iter().filter(|r| r.workload == workload) {
            let old = self.ports[&(workload.to_owned(), route.container_port)];
            let new = ports[&(workload.to_owned(), route.container_port)];
            route.proxy.add(SocketAddr::from(([127, 0, 0, 1], new)));
            route.proxy.remove(SocketAddr::from(([127, 0, 0, 1], old)));
        }
        let mut old = std::mem::replace(&mut self.children[index], child);
        tracing::info!(
            process = workload,
            "old process out of the endpoints: SIGTERM"
        );
        old.stop(Duration::from_secs(30)).await;
        if let Some(grpc) = self.grpc.get_mut(workload)
            && let Some((_, new)) = moved.iter().find(|(old, _)| *old == grpc.port())
        {
            grpc.set_port(*new);
        }
        self.ports = ports;
        self.plans.insert(workload.to_owned(), plan);
        Ok(())
    }

    /// Stops `workload`'s process with SIGTERM (the kubelet's 30 s grace) and starts it again
    /// on the same ports, as a single replica without surge would be replaced: its Services
    /// have no ready endpoint in between. For comparison with [`Self::rolling_restart`].
    pub async fn restart_in_place(&mut self, workload: &str) -> anyhow::Result<()> {
        let (index, manifest, plan) = self.replaceable(workload)?;
        self.children[index].stop(Duration::from_secs(30)).await;
        let log = self.next_log(workload);
        self.children[index] = Child::start(&plan, &self.bin_dir, &log)?;
        let client = reqwest::Client::new();
        wait_ready(
            &mut self.children[index],
            &manifest,
            &self.ports,
            &client,
            self.ready_limit,
        )
        .await
    }

    /// What replacing `workload`'s process starts from: its child's index, its manifest and
    /// its current plan.
    fn replaceable(&self, workload: &str) -> anyhow::Result<(usize, Workload, ProcessPlan)> {
        let index = self
            .children
            .iter()
            .position(|c| c.name == workload)
            .with_context(|| format!("no running process for {workload}"))?;
        let manifest = self
            .rendered
            .workload(workload)
            .with_context(|| format!("{workload} is not a workload of the overlay"))?
            .clone();
        let plan = self
            .plans
            .get(workload)
            .with_context(|| format!("no plan for {workload}"))?
            .clone();
        Ok((index, manifest, plan))
    }

    /// A log file of its own for the next process that replaces `workload`'s.
    fn next_log(&mut self, workload: &str) -> PathBuf {
        self.restarts += 1;
        self.log_dir
            .join(format!("{workload}-{}.log", self.restarts))
    }

    /// The process id of a workload's process.
    pub fn pid(&self, workload: &str) -> Option<u32> {
        self.children
            .iter()
            .find(|c| c.name == workload)
            .and_then(Child::pid)
    }

    /// Waits until any process ends by itself; names it, its exit and how its log ended.
    pub async fn any_exited(&mut self) -> Exited {
        let mut ticks = tokio::time::interval(Duration::from_millis(500));
        loop {
            ticks.tick().await;
            if let Some(exited) = self.exited_now() {
                return exited;
            }
        }
    }

    /// A process that has already ended by itself, if any: looked at when a stop is asked too,
    /// so that a stop asked right after a process died (a test's clean-up after the failure it
    /// caused) does not hide why.
    pub fn exited_now(&mut self) -> Option<Exited> {
        self.children
            .iter_mut()
            .chain(self.mail.as_mut().map(|m| &mut m.child))
            .find_map(|child| {
                child.exited().map(|status| Exited {
                    name: child.name.clone(),
                    status,
                    log: child.log.clone(),
                    log_tail: child.log_tail(EXITED_LOG_LINES),
                })
            })
    }

    /// Stops every process as the kubelet would (SIGTERM to all at once, SIGKILL after the
    /// grace period), then drops a test run's databases and Redis keys.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        let grace = Duration::from_secs(30);
        let mut children = std::mem::take(&mut self.children);
        if let Some(mail) = self.mail.take() {
            children.push(mail.child);
        }
        for child in &children {
            child.terminate();
        }
        let deadline = tokio::time::Instant::now() + grace;
        for child in &mut children {
            child
                .stop(deadline.saturating_duration_since(tokio::time::Instant::now()))
                .await;
        }
        if let Some(run_data) = self.run_data.take() {
            run_data.drop_all().await?;
        }
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let mut partial = Partial {
            children: std::mem::take(&mut self.children),
            run_data: self.run_data.take(),
        };
        if let Some(mail) = self.mail.take() {
            partial.children.push(mail.child);
        }
        drop(partial);
    }
}

/// What a test run owns on the shared servers: its databases and roles, and its Redis keys.
#[derive(Debug, Clone)]
struct RunData {
    databases: Databases,
    keys: Option<PrefixedKeys>,
}

impl RunData {
    async fn drop_all(&self) -> anyhow::Result<()> {
        self.databases.drop_all().await?;
        if let Some(keys) = &self.keys {
            let dropped = keys.drop_all().await?;
            tracing::debug!(dropped, "test redis keys dropped");
        }
        Ok(())
    }
}

/// What a failed start leaves to clean up: killed and dropped on drop.
struct Partial {
    children: Vec<Child>,
    run_data: Option<RunData>,
}

impl Drop for Partial {
    fn drop(&mut self) {
        for child in &self.children {
            child.kill();
        }
        if self.run_data.is_some() {
            // Gone before their data goes: a relay still running could publish into the
            // keyspace just emptied for the next attempt.
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            for child in &mut self.children {
                while child.exited().is_none() && std::time::Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        }
        self.children.clear();
        if let Some(run_data) = self.run_data.take() {
            // Drop runs inside the runtime: a thread of its own may block on the cleanup.
            let _ = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?;
                runtime.block_on(run_data.drop_all())
            })
            .join();
        }
    }
}

/// Sets each override on the processes that read its section; one that no process reads is
/// an error, since it would change nothing.
fn apply_overrides(
    plans: &mut [ProcessPlan],
    overrides: &[(String, String)],
) -> Result<(), PlanError> {
    for (key, value) in overrides {
        let section = key
            .strip_prefix("APP_")
            .and_then(|rest| rest.split_once("__"))
            .map(|(section, _)| format!("APP_{section}__"))
            .ok_or_else(|| {
                PlanError::Other(anyhow::anyhow!(
                    "override {key} is not an APP_<SECTION>__<KEY> setting"
                ))
            })?;
        let mut applied = false;
        for plan in plans.iter_mut() {
            if plan.env.keys().any(|k| k.starts_with(&section)) {
                plan.env.insert(key.clone(), value.clone());
                applied = true;
            }
        }
        if !applied {
            return Err(PlanError::Other(anyhow::anyhow!(
                "override {key}: no process reads section {section}"
            )));
        }
    }
    Ok(())
}

/// Waits on `child` through its workload's readiness probe, on the local ports in `ports`.
async fn wait_ready(
    child: &mut Child,
    workload: &Workload,
    ports: &BTreeMap<(String, u16), u16>,
    client: &reqwest::Client,
    limit: Duration,
) -> anyhow::Result<()> {
    let pid = child.pid().context("a started process without a pid")?;
    let probe = Probe::of(workload, ports)?;
    let port = probe.port();
    // Ready when the probe answers and the answer came from this process's own listener.
    let owned = || readiness::owns_listener(pid, port);
    match probe {
        Probe::Grpc { port, service } => {
            readiness::wait_until(child, limit, || async {
                owned() && readiness::grpc_serving(port, &service).await
            })
            .await
        }
        Probe::Http { url, .. } => {
            readiness::wait_until(child, limit, || async {
                owned() && readiness::http_ok(client, &url).await
            })
            .await
        }
        Probe::Tcp { port } => {
            readiness::wait_until(child, limit, || async {
                owned() && readiness::tcp_open(port).await
            })
            .await
        }
    }
}

/// How many lines of an exited process's log [`Exited`] carries.
const EXITED_LOG_LINES: usize = 20;

/// A process of a running topology that ended by itself.
#[derive(Debug)]
pub struct Exited {
    pub name: String,
    pub status: std::process::ExitStatus,
    pub log: PathBuf,
    /// The last lines of its log: what it said before it ended.
    pub log_tail: String,
}

/// A Service's proxy and the workload port its endpoints are.
#[derive(Debug)]
struct ServiceRoute {
    proxy: ServiceProxy,
    workload: String,
    container_port: u16,
}

/// The readiness probe of a workload, on its local port.
enum Probe {
    Grpc {
        port: u16,
        service: String,
    },
    Http {
        url: String,
        port: u16,
    },
    /// `tcpSocket`: the gRPC ports with internal TLS (a kubelet's grpc probe speaks no TLS).
    Tcp {
        port: u16,
    },
}

impl Probe {
    /// The local port the probe knocks on.
    fn port(&self) -> u16 {
        match self {
            Probe::Grpc { port, .. } | Probe::Http { port, .. } | Probe::Tcp { port } => *port,
        }
    }

    fn of(workload: &Workload, ports: &BTreeMap<(String, u16), u16>) -> anyhow::Result<Self> {
        let container = workload.container()?;
        let probe = container
            .readiness_probe
            .as_ref()
            .with_context(|| format!("{} has no readinessProbe to wait on", workload.name))?;
        let local = |port: u16| {
            ports
                .get(&(workload.name.clone(), port))
                .copied()
                .with_context(|| {
                    format!("{}: the probe's port {port} is not declared", workload.name)
                })
        };
        if let Some(grpc) = &probe.grpc {
            return Ok(Probe::Grpc {
                port: local(grpc.port)?,
                service: grpc.service.clone().unwrap_or_default(),
            });
        }
        if let Some(http) = &probe.http_get {
            let port = container
                .port(&http.port)
                .with_context(|| format!("{}: the probe names an unknown port", workload.name))?;
            let port = local(port)?;
            return Ok(Probe::Http {
                url: format!("http://127.0.0.1:{port}{}", http.path),
                port,
            });
        }
        if let Some(tcp) = &probe.tcp_socket {
            let port = container
                .port(&tcp.port)
                .with_context(|| format!("{}: the probe names an unknown port", workload.name))?;
            return Ok(Probe::Tcp { port: local(port)? });
        }
        bail!(
            "{}: only grpc, httpGet and tcpSocket readiness probes are known here",
            workload.name
        )
    }
}

/// Runs one-shot processes (migrations, seeds) side by side; each must exit 0.
async fn run_to_completion(
    plans: Vec<ProcessPlan>,
    bin_dir: &Path,
    log_dir: &Path,
) -> anyhow::Result<()> {
    let mut children = Vec::new();
    for plan in &plans {
        children.push(Child::start(
            plan,
            bin_dir,
            &log_dir.join(format!("{}.log", plan.name)),
        )?);
    }
    for child in &mut children {
        let status = child.wait().await?;
        if !status.success() {
            bail!(
                "{} failed ({status}); the end of {}:\n{}",
                child.name,
                child.log.display(),
                child.log_tail(30)
            );
        }
        tracing::info!(process = %child.name, "done");
    }
    Ok(())
}

/// Each process's working folder (its `/app`): the repository's `config/` as the image copies
/// it, the mounted files, and the built web app.
pub fn prepare_folders(options: &Options, planned: &Planned, log_dir: &Path) -> anyhow::Result<()> {
    let app_root = options.state_dir.join("app");
    if app_root.exists() {
        std::fs::remove_dir_all(&app_root)
            .with_context(|| format!("clearing {}", app_root.display()))?;
    }
    std::fs::create_dir_all(log_dir)?;
    for plan in planned.workloads.iter().chain(&planned.jobs) {
        let config = plan.workdir.join("config");
        std::fs::create_dir_all(&config)?;
        for entry in std::fs::read_dir(options.repo_root.join("config"))? {
            let entry = entry?;
            if entry.path().extension().is_some_and(|e| e == "toml") {
                std::fs::copy(entry.path(), config.join(entry.file_name()))?;
            }
        }
        for (path, contents) in &plan.files {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            crate::pki::write_private(path, contents)?;
        }
        let web = options.repo_root.join("web/dist");
        if web.join("index.html").exists() {
            std::fs::create_dir_all(plan.workdir.join("web"))?;
            std::os::unix::fs::symlink(&web, plan.workdir.join("web/dist"))?;
        }
    }
    for entry in std::fs::read_dir(log_dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "log") {
            std::fs::remove_file(path)?;
        }
    }
    Ok(())
}

/// The gateway's local HTTP port.
fn gateway_port(rendered: &Rendered, ports: &BTreeMap<(String, u16), u16>) -> anyhow::Result<u16> {
    let gateway = rendered
        .workload("gateway")
        .context("the overlay has no gateway workload")?;
    let container = gateway.container()?;
    let http = container
        .ports
        .iter()
        .find(|p| p.name.as_deref() == Some("http"))
        .context("the gateway declares no port named http")?;
    ports
        .get(&("gateway".to_owned(), http.container_port))
        .copied()
        .context("no local port for the gateway")
}

/// A port free on loopback right now (bound and released; the process binds it next).
pub fn free_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(name: &str, keys: &[&str]) -> ProcessPlan {
        ProcessPlan {
            name: name.into(),
            binary: format!("miclub-{name}"),
            args: Vec::new(),
            env: keys
                .iter()
                .map(|k| ((*k).to_owned(), "x".to_owned()))
                .collect(),
            workdir: PathBuf::new(),
            files: Vec::new(),
            depends_on: BTreeSet::new(),
        }
    }

    #[test]
    fn an_override_reaches_only_the_processes_that_read_its_section() {
        let mut plans = [
            process(
                "gateway",
                &["APP_GATEWAY__PORT", "APP_TELEMETRY__JSON_LOGS"],
            ),
            process(
                "auth",
                &["APP_AUTH__SERVER__PORT", "APP_TELEMETRY__JSON_LOGS"],
            ),
        ];
        let overrides = [
            ("APP_GATEWAY__FLAGS_CACHE_SECS".to_owned(), "1".to_owned()),
            ("APP_TELEMETRY__LOG_FILTER".to_owned(), "debug".to_owned()),
        ];
        apply_overrides(&mut plans, &overrides).unwrap();
        assert_eq!(plans[0].env["APP_GATEWAY__FLAGS_CACHE_SECS"], "1");
        assert!(!plans[1].env.contains_key("APP_GATEWAY__FLAGS_CACHE_SECS"));
        assert_eq!(plans[0].env["APP_TELEMETRY__LOG_FILTER"], "debug");
        assert_eq!(plans[1].env["APP_TELEMETRY__LOG_FILTER"], "debug");
    }

    #[test]
    fn an_override_no_process_reads_is_refused_by_name() {
        let mut plans = [process("gateway", &["APP_GATEWAY__PORT"])];
        for key in ["APP_BILLING__KEY", "GATEWAY_PORT"] {
            let error = apply_overrides(&mut plans, &[(key.to_owned(), "1".to_owned())])
                .unwrap_err()
                .to_string();
            assert!(error.contains(key), "{error}");
        }
    }
}
