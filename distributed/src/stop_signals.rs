//! The signals that stop the topology (SIGINT from a terminal, SIGTERM from a harness or a
//! supervisor) and the process that sent each. A stop nobody meant to send, a stray signal
//! from another run, names its sender in the log instead of passing for an ordinary Ctrl-C.

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::SignalsInfo;
use signal_hook::iterator::exfiltrator::WithOrigin;
use tokio::sync::mpsc;

/// A stop signal as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopSignal {
    pub name: &'static str,
    /// The sending process, when the kernel says (a terminal's Ctrl-C comes from no process).
    pub sender: Option<Sender>,
}

/// The process that sent a signal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    pub pid: i32,
    /// Its command line, read on arrival; empty when it had already ended.
    pub command: String,
}

impl std::fmt::Display for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.command.is_empty() {
            write!(f, "{} (already ended)", self.pid)
        } else {
            write!(f, "{} ({})", self.pid, self.command)
        }
    }
}

/// Takes over SIGINT and SIGTERM for the rest of the process; each one that arrives is sent on
/// the returned channel. A thread of its own waits for them (signal-hook's iterator), because
/// tokio's signal streams do not say who sent a signal.
pub fn listen() -> std::io::Result<mpsc::UnboundedReceiver<StopSignal>> {
    let mut signals = SignalsInfo::<WithOrigin>::new([SIGINT, SIGTERM])?;
    let (sent, received) = mpsc::unbounded_channel();
    std::thread::Builder::new()
        .name("stop-signals".into())
        .spawn(move || {
            for origin in signals.forever() {
                let sender = origin.process.map(|process| Sender {
                    pid: process.pid,
                    command: command_line(process.pid),
                });
                let name = if origin.signal == SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                if sent.send(StopSignal { name, sender }).is_err() {
                    break;
                }
            }
        })?;
    Ok(received)
}

/// `/proc/<pid>/cmdline` with its arguments joined by spaces; empty once the process is gone.
fn command_line(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| {
            raw.split(|byte| *byte == 0)
                .filter(|part| !part.is_empty())
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_stop_signal_names_the_process_that_sent_it() {
        let mut received = listen().unwrap();
        // A sender that is still alive when the signal is read: a shell that signals this
        // process, then waits. It waits as itself: with `exec sleep 5` the signal could be read
        // while the shell was becoming `sleep`, when /proc shows an empty command line (seen
        // once in a clean-clone run). The `:` after the sleep keeps a shell from exec'ing it.
        let mut shell = std::process::Command::new("sh")
            .args([
                "-c",
                &format!("kill -TERM {}; sleep 5; :", std::process::id()),
            ])
            .spawn()
            .unwrap();
        let signal = tokio::time::timeout(std::time::Duration::from_secs(10), received.recv())
            .await
            .expect("the signal arrived")
            .unwrap();
        let _ = shell.kill();
        let _ = shell.wait();
        assert_eq!(signal.name, "SIGTERM");
        let sender = signal.sender.expect("kill(2) names its sender");
        assert_eq!(sender.pid, shell.id() as i32);
        assert!(
            sender.command.starts_with("sh -c kill -TERM"),
            "the sender's command line: {sender}"
        );
    }
}
