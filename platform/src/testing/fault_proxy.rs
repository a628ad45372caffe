//! A fault-injecting TCP proxy for drills (a small toxiproxy): tests point a client at
//! [`FaultProxy::address`] instead of a real server, then make that server look stopped
//! ([`FaultProxy::cut`]), back ([`FaultProxy::restore`]) or slow ([`FaultProxy::set_delay`])
//! without touching the shared PostgreSQL or Redis other tests use.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A proxy on `127.0.0.1:0` forwarding every connection to one upstream address. It stops
/// (and drops every connection) when the proxy is dropped.
#[derive(Debug)]
pub struct FaultProxy {
    address: SocketAddr,
    shared: Arc<Shared>,
    accept: tokio::task::JoinHandle<()>,
}

#[derive(Debug)]
struct Shared {
    upstream: String,
    /// True while the upstream should look stopped.
    cut: AtomicBool,
    /// Delay before each chunk is forwarded, in microseconds.
    delay_micros: AtomicU64,
    /// Bumped by every cut; each connection ends when it changes.
    generation: watch::Sender<u64>,
}

impl FaultProxy {
    /// A proxy to `upstream` (`host:port`), forwarding at once until told otherwise.
    pub async fn start(upstream: impl Into<String>) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let shared = Arc::new(Shared {
            upstream: upstream.into(),
            cut: AtomicBool::new(false),
            delay_micros: AtomicU64::new(0),
            generation: watch::channel(0).0,
        });
        let accept = tokio::spawn(accept_loop(listener, shared.clone()));
        Ok(Self {
            address,
            shared,
            accept,
        })
    }

    /// A proxy to the host and port of `url` (`redis://h:p/0`, `postgres://u@h:p/db`), and
    /// `url` rewritten to go through it.
    pub async fn for_url(url: &str) -> std::io::Result<(Self, String)> {
        let invalid = || std::io::Error::new(std::io::ErrorKind::InvalidInput, url.to_owned());
        let (scheme, rest) = url.split_once("://").ok_or_else(invalid)?;
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(authority_end);
        let (userinfo, host_port) = match authority.rsplit_once('@') {
            Some((user, host)) => (format!("{user}@"), host),
            None => (String::new(), authority),
        };
        let default_port = match scheme {
            "redis" => 6379,
            "postgres" | "postgresql" => 5432,
            _ => return Err(invalid()),
        };
        let upstream = if host_port.contains(':') {
            host_port.to_owned()
        } else {
            format!("{host_port}:{default_port}")
        };
        let proxy = Self::start(upstream).await?;
        let proxied = format!("{scheme}://{userinfo}{}{tail}", proxy.address());
        Ok((proxy, proxied))
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Makes the upstream look stopped: every live connection is dropped, and new ones are
    /// reset as soon as they connect.
    pub fn cut(&self) {
        self.shared.cut.store(true, Ordering::SeqCst);
        self.shared.generation.send_modify(|g| *g += 1);
    }

    /// Forwards new connections again (the dropped ones stay dropped, as after a restart).
    pub fn restore(&self) {
        self.shared.cut.store(false, Ordering::SeqCst);
    }

    /// Delays every chunk, both ways, by `delay` before forwarding it; zero forwards at once.
    pub fn set_delay(&self, delay: Duration) {
        self.shared
            .delay_micros
            .store(delay.as_micros() as u64, Ordering::SeqCst);
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        let Ok((client, _)) = listener.accept().await else {
            continue;
        };
        if shared.cut.load(Ordering::SeqCst) {
            // A reset right after the connect: the client gets no answer, as from a stopped
            // server.
            let _ = client.set_zero_linger();
            drop(client);
            continue;
        }
        tokio::spawn(connection(client, shared.clone()));
    }
}

async fn connection(client: TcpStream, shared: Arc<Shared>) {
    let mut generation = shared.generation.subscribe();
    generation.mark_unchanged();
    let Ok(upstream) = TcpStream::connect(&shared.upstream).await else {
        let _ = client.set_zero_linger();
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (upstream_read, upstream_write) = upstream.into_split();
    let forward = async {
        tokio::select! {
            _ = pipe(client_read, upstream_write, &shared) => {}
            _ = pipe(upstream_read, client_write, &shared) => {}
        }
    };
    tokio::select! {
        _ = forward => {}
        // A cut drops both sockets at once, mid-conversation.
        _ = generation.changed() => {}
    }
}

/// Copies `from` to `to` chunk by chunk, each after the current delay, until either side ends.
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    shared: &Shared,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let read = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        let delay = shared.delay_micros.load(Ordering::SeqCst);
        if delay > 0 {
            tokio::time::sleep(Duration::from_micros(delay)).await;
        }
        if to.write_all(&buffer[..read]).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;

    /// An upstream answering every chunk with itself.
    async fn echo_server() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let (mut read, mut write) = socket.split();
                    let _ = tokio::io::copy(&mut read, &mut write).await;
                });
            }
        });
        address
    }

    async fn round_trip(stream: &mut TcpStream, message: &[u8]) -> std::io::Result<Vec<u8>> {
        stream.write_all(message).await?;
        let mut answer = vec![0u8; message.len()];
        stream.read_exact(&mut answer).await?;
        Ok(answer)
    }

    #[tokio::test]
    async fn a_cut_drops_live_connections_and_resets_new_ones_until_restored() {
        let proxy = FaultProxy::start(echo_server().await.to_string())
            .await
            .unwrap();
        let mut live = TcpStream::connect(proxy.address()).await.unwrap();
        assert_eq!(round_trip(&mut live, b"hola").await.unwrap(), b"hola");

        proxy.cut();
        assert!(
            round_trip(&mut live, b"sigues?").await.is_err(),
            "a live connection is dropped by the cut"
        );
        let mut fresh = TcpStream::connect(proxy.address()).await.unwrap();
        assert!(round_trip(&mut fresh, b"hola").await.is_err());

        proxy.restore();
        let mut again = TcpStream::connect(proxy.address()).await.unwrap();
        assert_eq!(round_trip(&mut again, b"vuelta").await.unwrap(), b"vuelta");
    }

    #[tokio::test]
    async fn a_delay_holds_every_chunk_back_until_it_is_lifted() {
        let proxy = FaultProxy::start(echo_server().await.to_string())
            .await
            .unwrap();
        let mut stream = TcpStream::connect(proxy.address()).await.unwrap();
        proxy.set_delay(Duration::from_millis(150));
        let started = Instant::now();
        assert_eq!(round_trip(&mut stream, b"lento").await.unwrap(), b"lento");
        // Held back once on the way there and once on the way back.
        assert!(started.elapsed() >= Duration::from_millis(300));

        proxy.set_delay(Duration::ZERO);
        let started = Instant::now();
        assert_eq!(round_trip(&mut stream, b"rapido").await.unwrap(), b"rapido");
        assert!(started.elapsed() < Duration::from_millis(300));
    }

    #[tokio::test]
    async fn a_url_is_rewritten_to_go_through_the_proxy() {
        let (proxy, url) = FaultProxy::for_url("postgres://postgres@127.0.0.1:5432/test_x?a=b")
            .await
            .unwrap();
        assert_eq!(
            url,
            format!("postgres://postgres@{}/test_x?a=b", proxy.address())
        );
        assert_eq!(proxy.shared.upstream, "127.0.0.1:5432");
        let (proxy, url) = FaultProxy::for_url("redis://localhost").await.unwrap();
        assert_eq!(url, format!("redis://{}", proxy.address()));
        assert_eq!(proxy.shared.upstream, "localhost:6379");
    }
}
