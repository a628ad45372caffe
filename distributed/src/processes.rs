//! The child processes: started each in its own process group with only the environment its
//! plan gives (as a container gets only its manifest's), logging to a file, and stopped as the
//! kubelet stops a pod: SIGTERM to the group, then SIGKILL after a grace period. A dropped
//! [`Child`] is killed (tokio's kill_on_drop), so children never outlive the tool's normal exit.
//!
//! A group is signalled only while its leader is unreaped. An ended leader stays a zombie
//! until [`Child::stop`] or [`Child::wait`] collects it, and the zombie keeps its pid, which is
//! the group's id, from being handed out again. With `pid_max` at 32768 (these machines), a
//! signal to a reaped leader's group could otherwise land on a stranger's group: another test's
//! mail catcher or service, which then takes its whole topology down.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, kill_process_group, waitid};
use tokio::process::Command;

use crate::plan::ProcessPlan;

/// A running child.
#[derive(Debug)]
pub struct Child {
    pub name: String,
    pub log: PathBuf,
    inner: tokio::process::Child,
    pid: Option<Pid>,
    /// Set once the leader is collected: its group's id may then belong to anyone.
    reaped: bool,
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
            reaped: false,
        })
    }

    /// Starts the process of `plan` from `bin_dir`.
    pub fn start(plan: &ProcessPlan, bin_dir: &Path, log: &Path) -> anyhow::Result<Self> {
        Self::spawn(&plan.name, command(plan, bin_dir)?, log)
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid.map(|p| p.as_raw_nonzero().get() as u32)
    }

    /// The exit status if the process has ended. The leader is left unreaped (see the module
    /// header), so its group can still be signalled safely.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        if self.reaped {
            return self.inner.try_wait().ok().flatten();
        }
        let pid = self.pid?;
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        let status = waitid(WaitId::Pid(pid), options).ok().flatten()?;
        Some(wait_status(&status))
    }

    /// Waits for the process to end by itself, and collects it.
    pub async fn wait(&mut self) -> anyhow::Result<std::process::ExitStatus> {
        let status = self.inner.wait().await?;
        self.reaped = true;
        Ok(status)
    }

    /// SIGTERM to the process group.
    pub fn terminate(&self) {
        self.signal_group(Signal::TERM);
    }

    /// SIGKILL to the process group.
    pub fn kill(&self) {
        self.signal_group(Signal::KILL);
    }

    /// Signals the group while its leader is unreaped; false when nothing was sent.
    fn signal_group(&self, signal: Signal) -> bool {
        match self.pid {
            Some(pid) if !self.reaped => kill_process_group(pid, signal).is_ok(),
            _ => false,
        }
    }

    /// SIGTERM, then SIGKILL if it has not ended within `grace`; whatever else is left in its
    /// group is killed before the leader is collected.
    pub async fn stop(&mut self, grace: Duration) {
        if self.reaped {
            return;
        }
        if self.exited().is_none() {
            self.terminate();
            let deadline = tokio::time::Instant::now() + grace;
            while self.exited().is_none() {
                if tokio::time::Instant::now() >= deadline {
                    tracing::warn!(process = %self.name, "did not stop within the grace period, killed");
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        self.kill();
        let _ = self.inner.wait().await;
        self.reaped = true;
    }

    /// The last lines of its log, for an error message.
    pub fn log_tail(&self, lines: usize) -> String {
        tail(&self.log, lines)
    }
}

impl Drop for Child {
    fn drop(&mut self) {
        // kill_on_drop kills the leader and reaps it later; its group may hold more.
        self.kill();
    }
}

/// The `waitid` status in the shape `wait` gives (`ExitStatus` displays either).
fn wait_status(status: &rustix::process::WaitIdStatus) -> std::process::ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    let raw = match (status.exit_status(), status.terminating_signal()) {
        (Some(code), _) => (code & 0xff) << 8,
        (None, Some(signal)) if status.dumped() => signal | 0x80,
        (None, Some(signal)) => signal,
        (None, None) => 0,
    };
    std::process::ExitStatus::from_raw(raw)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str, dir: &Path) -> Child {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        Child::spawn("sh", command, &dir.join("sh.log")).unwrap()
    }

    fn proc_state(pid: u32) -> Option<char> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // "pid (comm) S ...": the state follows the last parenthesis.
        stat.rsplit_once(") ")?.1.chars().next()
    }

    async fn ended(child: &mut Child) -> std::process::ExitStatus {
        for _ in 0..500 {
            if let Some(status) = child.exited() {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the child never ended");
    }

    #[tokio::test]
    async fn a_child_that_ended_stays_a_zombie_so_its_group_id_cannot_be_handed_out_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = shell("exit 3", dir.path());
        let status = ended(&mut child).await;
        assert_eq!(status.code(), Some(3));
        // Asked again, the same answer: looking did not collect it.
        assert_eq!(child.exited().map(|s| s.code()), Some(Some(3)));
        let pid = child.pid().unwrap();
        assert_eq!(proc_state(pid), Some('Z'));
        assert!(child.signal_group(Signal::KILL), "the group is still ours");

        child.stop(Duration::from_secs(5)).await;
        assert_eq!(proc_state(pid), None, "stop collects it");
        assert!(
            !child.signal_group(Signal::KILL),
            "a collected leader's group id may be anyone's: nothing is sent to it"
        );
    }

    #[tokio::test]
    async fn stop_ends_a_running_child_with_sigterm_and_collects_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = shell("exec sleep 30", dir.path());
        let pid = child.pid().unwrap();
        assert!(child.exited().is_none());
        child.stop(Duration::from_secs(5)).await;
        let status = child.exited().expect("stopped");
        assert_eq!(status.to_string(), "signal: 15 (SIGTERM)");
        assert_eq!(proc_state(pid), None);
        assert!(!child.signal_group(Signal::TERM));
    }

    #[tokio::test]
    async fn a_job_collected_by_wait_is_never_signalled_afterwards() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = shell("exit 0", dir.path());
        assert!(child.wait().await.unwrap().success());
        assert!(!child.signal_group(Signal::KILL));
        assert!(child.exited().unwrap().success());
    }
}
