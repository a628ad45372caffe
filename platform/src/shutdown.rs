//! Graceful shutdown: one signal fans out to every server in the process.
//!
//! On SIGTERM (or Ctrl-C) the trigger fires; gRPC servers first report NOT_SERVING so load
//! balancers stop sending new work, wait the drain delay, then stop accepting and finish the
//! requests already in flight.

use tokio::sync::watch;

/// Fires the shutdown.
#[derive(Debug, Clone)]
pub struct ShutdownTrigger(watch::Sender<bool>);

/// Waits for the shutdown; cheap to clone.
#[derive(Debug, Clone)]
pub struct Shutdown(watch::Receiver<bool>);

pub fn channel() -> (ShutdownTrigger, Shutdown) {
    let (tx, rx) = watch::channel(false);
    (ShutdownTrigger(tx), Shutdown(rx))
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        let _ = self.0.send(true);
    }
}

impl Shutdown {
    /// A shutdown that fires on SIGTERM or Ctrl-C.
    pub fn on_signals() -> Self {
        let (trigger, shutdown) = channel();
        tokio::spawn(async move {
            wait_for_signal().await;
            tracing::info!("shutdown signal received");
            trigger.trigger();
        });
        shutdown
    }

    /// Resolves once the shutdown has fired (at once if it already has).
    pub async fn wait(mut self) {
        let _ = self.0.wait_for(|fired| *fired).await;
    }

    pub fn is_triggered(&self) -> bool {
        *self.0.borrow()
    }
}

async fn wait_for_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::error!(error = %err, "cannot listen for sigterm");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
