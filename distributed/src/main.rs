//! `miclub-distributed`: starts the topology for `scripts/run --distributed` and stops every
//! process on Ctrl-C (or SIGTERM), or when one of them dies.
//!
//! Options: `--port N` (the portal's port, 8080 by default; 0 picks a free one), `--bin-dir DIR`
//! (where the six binaries are, `target/release` by default), `--state-dir DIR` (keys, secrets,
//! logs; `.miclub/distributed` by default), `--set APP_SECTION__KEY=VALUE` (a setting changed as
//! in the overlay's ConfigMap, for every process reading that section), `--test` (databases,
//! roles and Redis keys unique to this run and dropped when it stops; free ports),
//! `--ready-file FILE` (once ready, a JSON with the portal's, the mail catcher's and each gRPC
//! port's addresses, the CA file and the `pos`/`ops` client secrets: the e2e suite's handle);
//! servers from `MICLUB_POSTGRES_ADMIN_URL` and `MICLUB_REDIS_URL`.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};

use miclub_distributed::secrets::Vault;
use miclub_distributed::stop_signals;
use miclub_distributed::topology::{Exited, Running};
use miclub_distributed::{Options, Topology};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let repo = std::env::current_dir()?;
    let cli = Cli::parse(std::env::args().skip(1))?;
    let mut options = Options::for_repo(&repo);
    if cli.test {
        let state = cli
            .state_dir
            .clone()
            .unwrap_or_else(|| options.state_dir.clone());
        options = Options::for_test(&repo, &state, &options.bin_dir);
    }
    if let Some(dir) = cli.bin_dir {
        options.bin_dir = dir;
    }
    if let Some(dir) = cli.state_dir {
        options.state_dir = dir;
    }
    if let Some(port) = cli.port {
        options.gateway_port = port;
    }
    options.overrides = cli.overrides;
    let state_dir = options.state_dir.clone();
    let mut running = Topology::start(options).await?;
    if let Some(path) = &cli.ready_file {
        write_ready_file(path, &running, &state_dir)?;
    }
    println!(
        "\nMi Club (distributed) at {}/\n  mail caught at {} (JSON)\n  logs in {}\n  Ctrl-C stops every process\n",
        running.gateway_url,
        running.mail_json_url,
        running.log_dir.display()
    );
    let mut stop_signals = stop_signals::listen()?;
    // The cause goes to the log before anything stops: a harness that reads the log when its
    // topology vanished finds why in it, even while the processes are still draining.
    let outcome = tokio::select! {
        Some(signal) = stop_signals.recv() => {
            match &signal.sender {
                Some(sender) => tracing::info!(signal = signal.name, %sender, "stopping every process"),
                None => tracing::info!(signal = signal.name, "stopping every process"),
            }
            running.exited_now().map_or(Ok(()), |exited| Err(exited_by_itself(&exited)))
        }
        exited = running.any_exited() => Err(exited_by_itself(&exited)),
    };
    running.stop().await?;
    outcome
}

/// Logs `exited` (what a harness that lost its topology looks for) and makes it the error
/// `main` ends with.
fn exited_by_itself(exited: &Exited) -> anyhow::Error {
    tracing::error!(
        process = %exited.name,
        status = %exited.status,
        log = %exited.log.display(),
        "a process exited by itself; stopping every process; the end of its log:\n{}",
        exited.log_tail
    );
    anyhow::anyhow!(
        "{} exited ({}); stopped the rest",
        exited.name,
        exited.status
    )
}

/// The command line: see the module doc.
#[derive(Debug, Default)]
struct Cli {
    bin_dir: Option<PathBuf>,
    state_dir: Option<PathBuf>,
    port: Option<u16>,
    test: bool,
    ready_file: Option<PathBuf>,
    overrides: Vec<(String, String)>,
}

impl Cli {
    fn parse(args: impl IntoIterator<Item = String>) -> anyhow::Result<Self> {
        // Absolute: each process starts in its own working folder.
        let absolute = |dir: String, flag: &str| -> anyhow::Result<PathBuf> {
            std::fs::create_dir_all(&dir).with_context(|| format!("{flag} {dir}"))?;
            Path::new(&dir)
                .canonicalize()
                .with_context(|| format!("{flag} {dir}"))
        };
        let mut cli = Cli::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
            match arg.as_str() {
                "--bin-dir" => cli.bin_dir = Some(absolute(value()?, "--bin-dir")?),
                "--state-dir" => cli.state_dir = Some(absolute(value()?, "--state-dir")?),
                "--port" => cli.port = Some(value()?.parse().context("--port needs a number")?),
                "--test" => cli.test = true,
                "--ready-file" => cli.ready_file = Some(value()?.into()),
                "--set" => {
                    let setting = value()?;
                    let (key, value) = setting
                        .split_once('=')
                        .with_context(|| format!("--set {setting}: use KEY=VALUE"))?;
                    cli.overrides.push((key.to_owned(), value.to_owned()));
                }
                other => bail!(
                    "unknown argument {other:?}: use --port N, --bin-dir DIR, --state-dir DIR, \
                     --test, --ready-file FILE or --set APP_SECTION__KEY=VALUE"
                ),
            }
        }
        Ok(cli)
    }
}

/// What a test harness needs to drive the started topology, written once every process is
/// ready (owner-only: it holds the internal clients' secrets).
fn write_ready_file(path: &Path, running: &Running, state_dir: &Path) -> anyhow::Result<()> {
    let mut vault = Vault::open(state_dir)?;
    let ready = serde_json::json!({
        "gatewayUrl": running.gateway_url,
        "mailJsonUrl": running.mail_json_url,
        "caFile": running.ca_file,
        "grpc": running.grpc.iter().map(|(name, address)| (name.clone(), address.to_string())).collect::<std::collections::BTreeMap<_, _>>(),
        "clientSecrets": {
            "pos": vault.client_secret("pos")?,
            "ops": vault.client_secret("ops")?,
        },
    });
    // Written whole under another name, then renamed: a reader never sees half a file.
    let partial = path.with_extension("partial");
    miclub_distributed::pki::write_private(&partial, &serde_json::to_string_pretty(&ready)?)?;
    std::fs::rename(&partial, path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
