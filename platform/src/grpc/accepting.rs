//! How a gRPC port takes its connections: with `TCP_NODELAY`, at most `per_client` at once from
//! one caller address, and no more in all than the process's descriptors allow.
//!
//! Internal TLS authenticates the server only: any pod the NetworkPolicy lets through can finish
//! a handshake and open HTTP/2, and an HTTP/2 client answers the server's keep-alive pings by
//! itself, so a connection that never sends a call stays open for good (there is no idle
//! timeout in hyper's HTTP/2 server). The cap per address bounds what one pod can hold; every
//! legitimate caller keeps one channel, one connection, per service. Beyond the total, accepting
//! waits and new connections queue in the kernel, as on the HTTP listeners
//! ([`crate::listener`]), so the process keeps descriptors for its databases and Redis. A
//! handshake that never finishes is closed by [`crate::tls::HANDSHAKE_TIMEOUT`], and any
//! connection still open past its [`Lifetime`] (maximum age and grace) closes itself, whatever
//! HTTP/2 was doing (a preface never sent, a GOAWAY ignored).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::{Stream, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Sleep;
use tonic::transport::server::{Connected, TcpConnectInfo, TcpIncoming};

use super::Lifetime;
use crate::listener::{ClientCounts, Counted, from_open_file_limit, refused_per_client};

/// The connections `listener` accepts, with `TCP_NODELAY` on, at most `per_client` at once from
/// one address (0: no cap) and at most the open-file limit less what the process keeps, each
/// closing itself at `lifetime`'s maximum age and grace (never without a maximum age). The
/// builder's `tcp_nodelay` is ignored for a listener handed in (tonic's docs), so it is set
/// here. Without it Nagle held a small answer back until the caller's delayed ACK, about 40 ms:
/// the hop's p99 (issue #20).
pub fn accepting(
    listener: TcpListener,
    per_client: usize,
    lifetime: Lifetime,
) -> impl Stream<Item = io::Result<Accepted>> + Send + 'static {
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    let state = State {
        incoming,
        slots: Arc::new(Semaphore::new(from_open_file_limit())),
        clients: ClientCounts::default(),
        per_client,
        ends_after: lifetime.max_age.map(|age| age + lifetime.grace),
    };
    futures::stream::unfold(state, |mut state| async move {
        let next = state.next().await?;
        Some((next, state))
    })
}

struct State {
    incoming: TcpIncoming,
    slots: Arc<Semaphore>,
    clients: ClientCounts,
    per_client: usize,
    /// How long after its accept a connection closes itself: maximum age plus grace.
    ends_after: Option<std::time::Duration>,
}

impl State {
    /// The next connection within the caps, or an accept error for tonic to judge; `None` when
    /// the listener is gone.
    async fn next(&mut self) -> Option<io::Result<Accepted>> {
        loop {
            let slot = self
                .slots
                .clone()
                .acquire_owned()
                .await
                .expect("the semaphore is never closed");
            let stream = match self.incoming.next().await? {
                Ok(stream) => stream,
                Err(err) => return Some(Err(err)),
            };
            let Ok(peer) = stream.peer_addr() else {
                // Gone before it was looked at.
                continue;
            };
            match self.clients.admit(peer.ip(), self.per_client) {
                Some(counted) => {
                    return Some(Ok(Accepted {
                        stream,
                        peer,
                        end: self.ends_after.map(|d| Box::pin(tokio::time::sleep(d))),
                        ended: false,
                        _counted: counted,
                        _slot: slot,
                    }));
                }
                None => refused_per_client("grpc", peer.ip(), self.per_client),
            }
        }
    }
}

/// An accepted connection that holds its place in the caps until it closes, and fails every
/// read and write once `end` has passed.
#[derive(Debug)]
pub struct Accepted {
    stream: TcpStream,
    peer: SocketAddr,
    end: Option<Pin<Box<Sleep>>>,
    ended: bool,
    _counted: Counted<std::net::IpAddr>,
    _slot: OwnedSemaphorePermit,
}

impl Accepted {
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Whether the connection has outlived its age and grace. Checked before each read and
    /// write; the timer is polled only when the socket has nothing to give or take, so a
    /// connection waiting on nothing else is still woken at its end.
    fn outlived(&mut self, cx: &mut Context<'_>, waiting: bool) -> bool {
        let Some(end) = self.end.as_mut() else {
            return false;
        };
        let passed = end.is_elapsed() || (waiting && end.as_mut().poll(cx).is_ready());
        if passed && !self.ended {
            self.ended = true;
            tracing::info!(
                peer = %self.peer,
                "grpc connection closed: still open past its maximum age and grace"
            );
        }
        passed
    }

    /// Runs one socket operation unless the connection has outlived its end, which then fails
    /// it (checked again when the operation would wait, so the timer wakes the connection).
    fn unless_outlived<T>(
        &mut self,
        cx: &mut Context<'_>,
        operation: impl FnOnce(Pin<&mut TcpStream>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        if self.outlived(cx, false) {
            return Poll::Ready(Err(past_its_age()));
        }
        let done = operation(Pin::new(&mut self.stream), cx);
        if done.is_pending() && self.outlived(cx, true) {
            return Poll::Ready(Err(past_its_age()));
        }
        done
    }
}

fn past_its_age() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "connection open past its maximum age and grace",
    )
}

impl Connected for Accepted {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.stream.connect_info()
    }
}

impl AsyncRead for Accepted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.unless_outlived(cx, |stream, cx| stream.poll_read(cx, buf))
    }
}

impl AsyncWrite for Accepted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.unless_outlived(cx, |stream, cx| stream.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.unless_outlived(cx, |stream, cx| stream.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn a_service_port_accepts_its_callers_with_nagle_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut incoming = Box::pin(accepting(listener, 0, Lifetime::default()));
        let _caller = TcpStream::connect(address).await.unwrap();
        let accepted = incoming.next().await.unwrap().unwrap();
        assert!(
            accepted.stream().nodelay().unwrap(),
            "a small answer would wait for the caller's delayed ACK"
        );
    }

    #[tokio::test]
    async fn a_caller_past_its_cap_is_closed_and_taken_again_once_one_of_its_connections_closes() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let mut incoming = Box::pin(accepting(listener, 2, Lifetime::default()));
        let _first_caller = TcpStream::connect(address).await.unwrap();
        let _second_caller = TcpStream::connect(address).await.unwrap();
        let mut third_caller = TcpStream::connect(address).await.unwrap();
        let first = incoming.next().await.unwrap().unwrap();
        let _second = incoming.next().await.unwrap().unwrap();
        // The third is taken and closed inside the stream, which then waits for a fourth.
        let waiting = tokio::time::timeout(Duration::from_millis(300), incoming.next()).await;
        assert!(waiting.is_err(), "the third was not handed to the server");
        let mut byte = [0_u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(2), third_caller.read(&mut byte))
            .await
            .expect("the third connection is closed at once");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");

        drop(first);
        let _fourth_caller = TcpStream::connect(address).await.unwrap();
        let fourth = tokio::time::timeout(Duration::from_secs(2), incoming.next())
            .await
            .expect("a place was freed");
        assert!(fourth.unwrap().is_ok());
    }
}
