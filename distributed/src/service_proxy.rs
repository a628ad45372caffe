//! A Kubernetes Service on one machine: a TCP listener that hands each new connection to one of
//! the Service's ready endpoints, as kube-proxy does. Endpoints change while it runs (a rolling
//! restart adds the new process once it is ready and removes the old one before SIGTERM);
//! connections already made stay with their endpoint until it closes them, so an old process
//! drains what it was given. TLS passes through untouched: the certificates name 127.0.0.1.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use tokio::net::{TcpListener, TcpStream};

/// One Service's listener and its endpoints.
#[derive(Debug)]
pub struct ServiceProxy {
    pub name: String,
    pub address: SocketAddr,
    endpoints: Arc<RwLock<Vec<SocketAddr>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ServiceProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ServiceProxy {
    /// Listens on `listener`, forwarding to `endpoints`.
    pub fn start(
        name: &str,
        listener: std::net::TcpListener,
        endpoints: Vec<SocketAddr>,
    ) -> anyhow::Result<Self> {
        listener.set_nonblocking(true)?;
        let listener = TcpListener::from_std(listener)?;
        let address = listener.local_addr()?;
        let endpoints = Arc::new(RwLock::new(endpoints));
        let task = tokio::spawn(accept(name.to_owned(), listener, endpoints.clone()));
        Ok(Self {
            name: name.to_owned(),
            address,
            endpoints,
            task,
        })
    }

    pub fn endpoints(&self) -> Vec<SocketAddr> {
        self.endpoints.read().map(|e| e.clone()).unwrap_or_default()
    }

    /// Adds an endpoint that answers its readiness probe.
    pub fn add(&self, endpoint: SocketAddr) {
        if let Ok(mut endpoints) = self.endpoints.write()
            && !endpoints.contains(&endpoint)
        {
            endpoints.push(endpoint);
        }
    }

    /// Removes an endpoint: no new connection reaches it.
    pub fn remove(&self, endpoint: SocketAddr) {
        if let Ok(mut endpoints) = self.endpoints.write() {
            endpoints.retain(|e| *e != endpoint);
        }
    }
}

async fn accept(name: String, listener: TcpListener, endpoints: Arc<RwLock<Vec<SocketAddr>>>) {
    let next = AtomicUsize::new(0);
    loop {
        let Ok((mut inbound, _)) = listener.accept().await else {
            continue;
        };
        let endpoint = {
            let endpoints = endpoints.read().map(|e| e.clone()).unwrap_or_default();
            if endpoints.is_empty() {
                // No ready endpoint: refused, as a Service without endpoints refuses.
                tracing::warn!(service = %name, "connection refused: no ready endpoint");
                continue;
            }
            endpoints[next.fetch_add(1, Ordering::Relaxed) % endpoints.len()]
        };
        let name = name.clone();
        tokio::spawn(async move {
            match TcpStream::connect(endpoint).await {
                Ok(mut outbound) => {
                    let _ = inbound.set_nodelay(true);
                    let _ = outbound.set_nodelay(true);
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
                Err(err) => {
                    tracing::warn!(service = %name, %endpoint, error = %err, "endpoint unreachable");
                }
            }
        });
    }
}
