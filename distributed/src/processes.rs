//! The child processes: started each in its own process group with only the environment its
//! plan gives (as a container gets only its manifest's), logging to a file, and stopped as the
//! kubelet stops a pod: SIGTERM to the group, then SIGKILL after a grace period. A dropped
//! [`Child`] is killed (tokio's kill_on_drop), so children never outlive the tool's normal exit.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use rustix::process::{Pid, Signal, kill_process_group};
use tokio::process::Command;

use crate::plan::ProcessPlan;

/// A running child.
#[derive(Debug)]
pub struct Child {
    pub name: String,
    pub log: PathBuf,
    inner: tokio::process::Child,
    pid: Option<Pid>,
}

impl Child {
    /// Starts `program` in a new process group, its output appended to `log`.
    pub fn spawn(name: &str, mut command: Command, log: &Path) -> anyhow::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("opening {}", log.display()))?;
        command
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file)
            .process_group(0)
            .kill_on_drop(true);
        let inner = command
            .spawn()
            .with_context(|| format!("starting {name}"))?;
        let pid = inner
            .id()
            .and_then(|id| Pid::from_raw(i32::try_from(id).ok()?));
        Ok(Self {
            name: name.to_owned(),
            log: log.to_owned(),
            inner,
            pid,
        })
    }

    /// Starts the process of `plan` from `bin_dir`.
    pub fn start(plan: &ProcessPlan, bin_dir: &Path, log: &Path) -> anyhow::Result<Self> {
        Self::spawn(&plan.name, command(plan, bin_dir)?, log)
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid.map(|p| p.as_raw_nonzero().get() as u32)
    }

    /// The exit status if the process has ended.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.inner.try_wait().ok().flatten()
    }

    pub async fn wait(&mut self) -> anyhow::Result<std::process::ExitStatus> {
        Ok(self.inner.wait().await?)
    }

    /// SIGTERM to the process group.
    pub fn terminate(&self) {
        if let Some(pid) = self.pid {
            let _ = kill_process_group(pid, Signal::TERM);
        }
    }

    /// SIGKILL to the process group.
    pub fn kill(&self) {
        if let Some(pid) = self.pid {
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }

    /// SIGTERM, then SIGKILL if it has not ended within `grace`.
    pub async fn stop(&mut self, grace: Duration) {
        if self.exited().is_some() {
            self.kill();
            return;
        }
        self.terminate();
        if tokio::time::timeout(grace, self.inner.wait())
            .await
            .is_err()
        {
            tracing::warn!(process = %self.name, "did not stop within the grace period, killed");
        }
        // Whatever else is left in its group.
        self.kill();
        let _ = self.inner.wait().await;
    }

    /// The last lines of its log, for an error message.
    pub fn log_tail(&self, lines: usize) -> String {
        tail(&self.log, lines)
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        // kill_on_drop kills the leader; its group may hold more.
        self.kill();
    }
}

/// The command for `plan`: its binary, arguments, working folder and nothing but its
/// environment.
pub fn command(plan: &ProcessPlan, bin_dir: &Path) -> anyhow::Result<Command> {
    let binary = bin_dir.join(&plan.binary);
    if !binary.exists() {
        anyhow::bail!(
            "{} is not built (cargo build -p {} in the workspace; scripts/run --distributed builds them all)",
            binary.display(),
            plan.binary
        );
    }
    let mut command = Command::new(binary);
    command
        .args(&plan.args)
        .current_dir(&plan.workdir)
        .env_clear()
        .envs(&plan.env);
    Ok(command)
}

/// The last `lines` lines of a file.
pub fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
