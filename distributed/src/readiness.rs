//! Waiting for a process to be ready the way Kubernetes does: its readiness probe
//! (`grpc.health.v1`, an HTTP GET or a TCP connect, as its manifest says), tried until it answers, while
//! watching that the process is still alive. Never a fixed sleep: the first answer ends the wait.

use std::future::Future;
use std::time::{Duration, Instant};

use anyhow::bail;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::processes::Child;

/// How often a probe is tried.
const PERIOD: Duration = Duration::from_millis(100);

/// Tries `probe` until it answers true; fails when `child` exits or `limit` passes, with the
/// end of its log.
pub async fn wait_until<F, Fut>(
    child: &mut Child,
    limit: Duration,
    mut probe: F,
) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let started = Instant::now();
    let mut ticks = tokio::time::interval(PERIOD);
    loop {
        ticks.tick().await;
        if probe().await {
            tracing::info!(process = %child.name, ms = started.elapsed().as_millis() as u64, "ready");
            return Ok(());
        }
        if let Some(status) = child.exited() {
            bail!(
                "{} exited ({status}) before it was ready; the end of {}:\n{}",
                child.name,
                child.log.display(),
                child.log_tail(30)
            );
        }
        if started.elapsed() > limit {
            bail!(
                "{} was not ready after {} s; the end of {}:\n{}",
                child.name,
                limit.as_secs(),
                child.log.display(),
                child.log_tail(30)
            );
        }
    }
}

/// True when `grpc.health.v1` on `127.0.0.1:port` answers SERVING for `service` ("" = the
/// server as a whole, as a Kubernetes grpc probe asks).
pub async fn grpc_serving(port: u16, service: &str) -> bool {
    let Ok(endpoint) = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
    else {
        return false;
    };
    let Ok(channel) = endpoint
        .connect_timeout(Duration::from_secs(1))
        .timeout(Duration::from_secs(2))
        .connect()
        .await
    else {
        return false;
    };
    HealthClient::new(channel)
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await
        .is_ok_and(|answer| answer.into_inner().status == ServingStatus::Serving as i32)
}

/// True when process `pid` itself holds the listening socket on `port` (Linux: a listener in
/// `/proc/net/tcp` whose inode is one of the process's open sockets). A probe alone cannot tell
/// the process from another program that took the port first, after which the process fails
/// to bind and exits: the probe would have answered for a stranger.
pub fn owns_listener(pid: u32, port: u16) -> bool {
    let tables = ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .collect::<Vec<_>>()
        .join("\n");
    let inodes: Vec<String> = tables
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let local_port = fields.get(1)?.rsplit(':').next()?;
            let listening = fields.get(3)? == &"0A";
            let inode = fields.get(9)?;
            (listening && u16::from_str_radix(local_port, 16).ok()? == port)
                .then(|| format!("socket:[{inode}]"))
        })
        .collect();
    if inodes.is_empty() {
        return false;
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            inodes
                .iter()
                .any(|inode| target.as_os_str() == inode.as_str())
        })
    })
}

/// True when `err` says a port was taken before its process bound it: Rust's "os error 98"
/// or node's EADDRINUSE (the mail catcher's log tail), so a start on new ports may succeed.
pub fn port_taken(err: &anyhow::Error) -> bool {
    let text = format!("{err:#}");
    text.contains("os error 98") || text.contains("EADDRINUSE")
}

/// True when `127.0.0.1:port` accepts a connection (a `tcpSocket` probe).
pub async fn tcp_open(port: u16) -> bool {
    tokio::time::timeout(
        Duration::from_secs(1),
        tokio::net::TcpStream::connect(("127.0.0.1", port)),
    )
    .await
    .is_ok_and(|connected| connected.is_ok())
}

/// True when a GET of `url` answers 2xx.
pub async fn http_ok(client: &reqwest::Client, url: &str) -> bool {
    client
        .get(url)
        .timeout(Duration::from_secs(2))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
}

#[cfg(test)]
mod tests {
    use super::owns_listener;

    #[test]
    fn a_listener_is_owned_by_the_process_that_bound_it_and_by_no_other() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(owns_listener(std::process::id(), port));
        // The parent (cargo's test runner or a shell) holds no such socket.
        assert!(!owns_listener(std::os::unix::process::parent_id(), port));
        drop(listener);
        assert!(!owns_listener(std::process::id(), port));
    }
}
