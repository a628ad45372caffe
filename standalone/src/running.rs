//! The components once started: each runs as a task until the shutdown, and [`Running::wait`]
//! reports the first that failed.

use std::future::Future;
use std::sync::Arc;

use miclub_platform::notify::DevMailbox;
use miclub_platform::shutdown::Shutdown;
use tokio::task::JoinSet;

type Tasks = JoinSet<(String, anyhow::Result<()>)>;

/// The running portal.
#[derive(Debug)]
pub struct Running {
    pub gateway_port: u16,
    pub mailbox: Arc<DevMailbox>,
    tasks: Tasks,
}

impl Running {
    /// Waits until every component has stopped; the first failure is returned.
    pub async fn wait(mut self) -> anyhow::Result<()> {
        let mut outcome = Ok(());
        while let Some(joined) = self.tasks.join_next().await {
            match joined {
                Ok((_, Ok(()))) => {}
                Ok((name, Err(err))) => {
                    tracing::error!(component = %name, error = %format!("{err:#}"), "component failed");
                    if outcome.is_ok() {
                        outcome = Err(err.context(format!("{name} failed")));
                    }
                }
                Err(err) => outcome = Err(anyhow::anyhow!("component panicked: {err}")),
            }
        }
        outcome
    }
}

/// The components started so far, all stopped by one shutdown.
pub(crate) struct Components {
    tasks: Tasks,
    shutdown: Shutdown,
}

impl Components {
    pub fn new(shutdown: Shutdown) -> Self {
        Self {
            tasks: JoinSet::new(),
            shutdown,
        }
    }

    /// Runs the component `name` as a task: `run` is its `run_until_stopped`.
    pub fn spawn<F, Fut>(&mut self, name: &str, run: F)
    where
        F: FnOnce(Shutdown) -> Fut,
        Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        let name = name.to_owned();
        let running = run(self.shutdown.clone());
        self.tasks.spawn(async move { (name, running.await) });
    }

    pub fn into_running(self, gateway_port: u16, mailbox: Arc<DevMailbox>) -> Running {
        Running {
            gateway_port,
            mailbox,
            tasks: self.tasks,
        }
    }
}
