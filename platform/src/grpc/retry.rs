//! One bounded retry of the gRPC calls that change nothing, and of any call the server never took.
//!
//! [`retry_idempotent`] is the policy: which failures are worth one more attempt, the jittered
//! pause and the deadline. [`RetryIdempotent`] applies it under a client, to the methods named in
//! [`IDEMPOTENT_METHODS`] only, so a call site makes a plain client call and the list of what may
//! be retried lives here rather than at each call site. The layer buffers the (small, unary)
//! request to send it again, and the answer to read its status before handing it to tonic.
//!
//! Every other method, writes included, is sent once more only when the server refused the call
//! unprocessed ([`was_refused_unprocessed`]): during a rolling restart a service closes its
//! connections with a GOAWAY, and a call that crossed it would otherwise reach the member as an
//! internal error although nothing was done (gRPC's "transparent retry", proposal A6).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::Frame;
use http_body_util::{BodyExt, Full, StreamBody};
use tonic::body::Body;
use tower::ServiceExt;

use crate::error::caused_by;

/// The read-only methods the gateway calls on a member's or a visitor's behalf: each answers
/// from what is stored and changes nothing, so sending one twice is harmless. A write must never
/// join this list (a write retried after a reset may apply twice).
pub const IDEMPOTENT_METHODS: &[&str] = &[
    "/miclub.accounts.v1.AccountsService/GetMember",
    "/miclub.accounts.v1.AccountsService/GetBalance",
    // Reads; the one write it may make (a number for an account the start-up backfill has not
    // reached) fills an empty column only, so a second call finds it and writes nothing.
    "/miclub.accounts.v1.AccountsService/GetMemberCard",
    "/miclub.accounts.v1.AccountsService/ListMovements",
    "/miclub.accounts.v1.AccountsService/GetMovementDetail",
    "/miclub.accounts.v1.AccountsService/ListGenders",
    "/miclub.accounts.v1.AccountsService/ListUnsubscribeReasons",
    "/miclub.auth.v1.AuthService/ListSessions",
    "/miclub.auth.v1.AuthService/ListSecurityEvents",
    "/miclub.content.v1.ContentService/GetCurrentTerms",
    "/miclub.content.v1.ContentService/ListPromotions",
    "/miclub.content.v1.ContentService/ListAlliances",
    "/miclub.content.v1.ContentService/ListBanners",
    "/miclub.content.v1.ContentService/ListFaqs",
    "/miclub.missions.v1.MissionsService/ListMyMissions",
    "/miclub.registration.v1.RegistrationService/GetRegistration",
];

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A client channel that gives the calls of its idempotent methods [`retry_idempotent`]'s one
/// retry within `deadline` (the channel's own request timeout); every other call is sent again,
/// within the same deadline, only when the server refused it unprocessed.
#[derive(Debug, Clone)]
pub struct RetryIdempotent<S> {
    inner: S,
    deadline: Duration,
    methods: &'static [&'static str],
}

impl<S> RetryIdempotent<S> {
    /// Retries the methods of [`IDEMPOTENT_METHODS`].
    pub fn new(inner: S, deadline: Duration) -> Self {
        Self::with_methods(inner, deadline, IDEMPOTENT_METHODS)
    }

    /// Retries the methods of `methods` (full paths, `/package.Service/Method`).
    pub fn with_methods(inner: S, deadline: Duration, methods: &'static [&'static str]) -> Self {
        Self {
            inner,
            deadline,
            methods,
        }
    }
}

impl<S, B> tower::Service<http::Request<Body>> for RetryIdempotent<S>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<B>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = http::Response<Body>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        // The clone is not ready; the ready one goes with this call (tower's usual swap).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let deadline = self.deadline;
        let idempotent = self.methods.contains(&request.uri().path());
        Box::pin(async move {
            // Buffered once, so either path can send the same request again.
            let (parts, body) = request.into_parts();
            let body = body.collect().await?.to_bytes();
            let request = move || {
                http::Request::from_parts(parts.clone(), Body::new(Full::new(body.clone())))
            };
            let spare = inner.clone();
            if !idempotent {
                let started = Instant::now();
                let err: BoxError = match inner.call(request()).await {
                    Ok(response) => return Ok(response.map(Body::new)),
                    Err(err) => err.into(),
                };
                let Some(left) = deadline.checked_sub(started.elapsed()) else {
                    return Err(err);
                };
                if !was_refused_unprocessed(&*err) {
                    return Err(err);
                }
                tracing::warn!(error = %err, "sending again a call the server refused unprocessed");
                let again = async move {
                    let response = spare
                        .ready_oneshot()
                        .await
                        .map_err(as_status)?
                        .call(request())
                        .await
                        .map_err(as_status)?;
                    Ok(response.map(Body::new))
                };
                return within(left, again).await.map_err(Into::into);
            }
            let mut first = Some(inner);
            let answer = retry_idempotent(deadline, move || {
                let request = request();
                let ready = first.take();
                let spare = spare.clone();
                async move {
                    let mut service = match ready {
                        Some(service) => service,
                        None => spare.ready_oneshot().await.map_err(as_status)?,
                    };
                    attempt(service.call(request)).await
                }
            })
            .await;
            // tonic takes a status it is given as the call's own.
            answer.map_err(Into::into)
        })
    }
}

/// `second`, cut at `left`: a retry never runs past the first call's deadline.
async fn within<T>(
    left: Duration,
    second: impl Future<Output = Result<T, tonic::Status>>,
) -> Result<T, tonic::Status> {
    tokio::time::timeout(left, second)
        .await
        .unwrap_or_else(|_| {
            Err(tonic::Status::deadline_exceeded(
                "deadline reached while retrying",
            ))
        })
}

/// One call, read to its end: its gRPC status as tonic would make it, or the answer rebuilt
/// from what was read.
async fn attempt<B, E>(
    call: impl Future<Output = Result<http::Response<B>, E>>,
) -> Result<http::Response<Body>, tonic::Status>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
    E: Into<BoxError>,
{
    let response = call.await.map_err(as_status)?;
    if let Some(status) = failure(response.headers()) {
        return Err(status);
    }
    let (parts, body) = response.into_parts();
    let read = body.collect().await.map_err(as_status)?;
    let trailers = read.trailers().cloned();
    if let Some(status) = trailers.as_ref().and_then(failure) {
        return Err(status);
    }
    let data = read.to_bytes();
    if trailers.is_none() && data.is_empty() && parts.status != http::StatusCode::OK {
        return Err(status_of_http(parts.status));
    }
    let mut frames = Vec::with_capacity(2);
    if !data.is_empty() {
        frames.push(Ok::<_, std::convert::Infallible>(Frame::data(data)));
    }
    if let Some(trailers) = trailers {
        frames.push(Ok(Frame::trailers(trailers)));
    }
    let body = StreamBody::new(tokio_stream::iter(frames));
    Ok(http::Response::from_parts(parts, Body::new(body)))
}

/// A non-OK `grpc-status` among `headers` (an answer's headers or trailers).
fn failure(headers: &http::HeaderMap) -> Option<tonic::Status> {
    tonic::Status::from_header_map(headers).filter(|status| status.code() != tonic::Code::Ok)
}

/// The status tonic gives a transport error.
fn as_status(err: impl Into<BoxError>) -> tonic::Status {
    tonic::Status::from_error(err.into())
}

/// The status tonic gives an empty answer without a gRPC status (a proxy's refusal), after the
/// gRPC HTTP mapping.
fn status_of_http(status: http::StatusCode) -> tonic::Status {
    let code = match status {
        http::StatusCode::BAD_REQUEST => tonic::Code::Internal,
        http::StatusCode::UNAUTHORIZED => tonic::Code::Unauthenticated,
        http::StatusCode::FORBIDDEN => tonic::Code::PermissionDenied,
        http::StatusCode::NOT_FOUND => tonic::Code::Unimplemented,
        http::StatusCode::TOO_MANY_REQUESTS
        | http::StatusCode::BAD_GATEWAY
        | http::StatusCode::SERVICE_UNAVAILABLE
        | http::StatusCode::GATEWAY_TIMEOUT => tonic::Code::Unavailable,
        _ => tonic::Code::Unknown,
    };
    tonic::Status::new(
        code,
        format!(
            "grpc-status header missing, mapped from HTTP status code {}",
            status.as_u16()
        ),
    )
}

/// Calls a read-only (idempotent) RPC, and once more after a short jittered pause when the
/// first attempt found the service unavailable: a `Unavailable` status, a `Cancelled` made by
/// the transport (the connection reset before any answer), or a refusal of a stream the server
/// never took ([`was_refused_unprocessed`], which tonic reports as `Internal`). Never retried:
/// a timeout (the channel's `Timeout expired` and `DeadlineExceeded`: a slow service would only
/// get slower) and every business error. The second attempt never runs past `deadline` counted from the
/// first call, so a retried call takes no longer than an unretried one may.
///
/// Only for calls that change nothing: a write retried after a reset may apply twice.
pub async fn retry_idempotent<T, F, Fut>(
    deadline: Duration,
    mut call: F,
) -> Result<T, tonic::Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, tonic::Status>>,
{
    let started = Instant::now();
    let status = match call().await {
        Ok(answer) => return Ok(answer),
        Err(status) if is_retryable(&status) => status,
        Err(status) => return Err(status),
    };
    let pause = Duration::from_millis(rand::random_range(25..=75));
    let Some(left) = deadline.checked_sub(started.elapsed() + pause) else {
        return Err(status);
    };
    tracing::warn!(code = ?status.code(), error = %status.message(), "retrying an idempotent call once");
    tokio::time::sleep(pause).await;
    within(left, call()).await
}

/// Whether a failed attempt may be tried again: see [`retry_idempotent`].
fn is_retryable(status: &tonic::Status) -> bool {
    is_transport_failure(status) && !is_timeout(status)
}

/// Whether a call failed in the transport rather than being answered by the server: a
/// `Unavailable` status (connection refused or reset), a `Cancelled` made here from a transport
/// error (the connection closed before an answer; one a peer sends has no source), or a stream
/// the server refused unprocessed ([`was_refused_unprocessed`], which tonic reports as
/// `Internal`). A status the server sent, whatever its code, is not one. The rule the retry of
/// idempotent calls starts from, and the one the drain and rolling-restart tests hold a
/// service's restarts to.
pub fn is_transport_failure(status: &tonic::Status) -> bool {
    if was_refused_unprocessed(status) {
        return true;
    }
    match status.code() {
        tonic::Code::Unavailable => true,
        tonic::Code::Cancelled => std::error::Error::source(status).is_some(),
        _ => false,
    }
}

/// Whether the server refused the call before processing any of it, which RFC 9113 guarantees
/// in two cases: a stream reset with REFUSED_STREAM, and a stream above the last one named by a
/// GOAWAY (a server closing its connection gracefully, NO_ERROR, names the last stream it will
/// finish; h2 fails every later stream, and any opened after the GOAWAY arrived, with that
/// GOAWAY). Such a call may be sent again even when it is a write. A GOAWAY carrying an error is
/// not counted: the connection broke, and what it had taken may or may not have been done.
pub fn was_refused_unprocessed(err: &(dyn std::error::Error + 'static)) -> bool {
    caused_by::<h2::Error>(err).is_some_and(|refusal| {
        refusal.is_remote()
            && match refusal.reason() {
                Some(h2::Reason::NO_ERROR) => refusal.is_go_away(),
                Some(h2::Reason::REFUSED_STREAM) => refusal.is_reset(),
                _ => false,
            }
    })
}

/// The channel's own per-call timeout, which tonic reports as `Cancelled`.
fn is_timeout(status: &tonic::Status) -> bool {
    caused_by::<tonic::TimeoutExpired>(status).is_some()
        || status.message().contains("Timeout expired")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Runs `retry_idempotent` over a call answering `answers` in turn; returns the outcome
    /// and the attempts made.
    async fn attempts(
        answers: Vec<Result<u32, tonic::Status>>,
    ) -> (Result<u32, tonic::Code>, usize) {
        let calls = AtomicUsize::new(0);
        let answers = std::sync::Mutex::new(answers.into_iter());
        let outcome = retry_idempotent(Duration::from_secs(5), || {
            calls.fetch_add(1, Ordering::SeqCst);
            let answer = answers
                .lock()
                .unwrap()
                .next()
                .expect("no more answers scripted");
            async move { answer }
        })
        .await;
        (outcome.map_err(|s| s.code()), calls.load(Ordering::SeqCst))
    }

    /// A `Cancelled` the way tonic makes one from a transport error (it carries the error).
    fn transport_cancelled(
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> tonic::Status {
        let mut status = tonic::Status::cancelled(source.to_string());
        status.set_source(std::sync::Arc::new(source));
        status
    }

    #[derive(Debug)]
    struct Reset;

    impl std::fmt::Display for Reset {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("connection reset")
        }
    }

    impl std::error::Error for Reset {}

    #[tokio::test]
    async fn an_unavailable_service_is_tried_once_more_and_then_given_up_on() {
        let (outcome, calls) = attempts(vec![Err(tonic::Status::unavailable("down")), Ok(7)]).await;
        assert_eq!((outcome, calls), (Ok(7), 2));
        let (outcome, calls) = attempts(vec![
            Err(tonic::Status::unavailable("down")),
            Err(tonic::Status::unavailable("still down")),
            Ok(7),
        ])
        .await;
        assert_eq!((outcome, calls), (Err(tonic::Code::Unavailable), 2));
    }

    #[tokio::test]
    async fn business_errors_and_timeouts_are_never_retried() {
        for status in [
            tonic::Status::invalid_argument("bad"),
            tonic::Status::deadline_exceeded("slow"),
            tonic::Status::not_found("none"),
            tonic::Status::internal("bug"),
            // A Cancelled the peer sent, not the transport.
            tonic::Status::cancelled("peer cancelled"),
        ] {
            let code = status.code();
            let (outcome, calls) = attempts(vec![Err(status), Ok(7)]).await;
            assert_eq!((outcome, calls), (Err(code), 1), "{code:?}");
        }
        // The channel's own timeout is reported as Cancelled carrying TimeoutExpired.
        let timeout = tonic::Status::from_error(Box::new(tonic::TimeoutExpired(())));
        assert_eq!(timeout.code(), tonic::Code::Cancelled);
        let (outcome, calls) = attempts(vec![Err(timeout), Ok(7)]).await;
        assert_eq!((outcome, calls), (Err(tonic::Code::Cancelled), 1));
    }

    #[tokio::test]
    async fn a_connection_reset_before_any_answer_is_retried() {
        let reset = transport_cancelled(Reset);
        assert!(std::error::Error::source(&reset).is_some());
        let (outcome, calls) = attempts(vec![Err(reset), Ok(7)]).await;
        assert_eq!((outcome, calls), (Ok(7), 2));
    }

    #[tokio::test]
    async fn the_retry_never_runs_past_the_deadline_of_the_first_call() {
        let calls = AtomicUsize::new(0);
        let started = Instant::now();
        let outcome: Result<(), _> = retry_idempotent(Duration::from_millis(300), || {
            let first = calls.fetch_add(1, Ordering::SeqCst) == 0;
            async move {
                if first {
                    Err(tonic::Status::unavailable("down"))
                } else {
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    Ok(())
                }
            }
        })
        .await;
        assert_eq!(outcome.unwrap_err().code(), tonic::Code::DeadlineExceeded);
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert!(started.elapsed() < Duration::from_secs(2));
        // A first failure that already used the whole budget is not retried at all.
        let calls = AtomicUsize::new(0);
        let outcome: Result<(), _> = retry_idempotent(Duration::from_millis(50), || {
            calls.fetch_add(1, Ordering::SeqCst);
            async {
                tokio::time::sleep(Duration::from_millis(60)).await;
                Err(tonic::Status::unavailable("down"))
            }
        })
        .await;
        assert_eq!(outcome.unwrap_err().code(), tonic::Code::Unavailable);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    /// A health service whose `Check` answers `answers` in turn, recording what it was asked.
    struct Scripted {
        answers: std::sync::Mutex<std::vec::IntoIter<Result<i32, tonic::Status>>>,
        asked: Arc<std::sync::Mutex<Vec<String>>>,
    }

    #[tonic::async_trait]
    impl tonic_health::pb::health_server::Health for Scripted {
        async fn check(
            &self,
            request: tonic::Request<tonic_health::pb::HealthCheckRequest>,
        ) -> Result<tonic::Response<tonic_health::pb::HealthCheckResponse>, tonic::Status> {
            self.asked
                .lock()
                .unwrap()
                .push(request.into_inner().service);
            let status = self
                .answers
                .lock()
                .unwrap()
                .next()
                .expect("no more answers scripted")?;
            Ok(tonic::Response::new(
                tonic_health::pb::HealthCheckResponse { status },
            ))
        }

        type WatchStream =
            tokio_stream::Empty<Result<tonic_health::pb::HealthCheckResponse, tonic::Status>>;

        async fn watch(
            &self,
            _request: tonic::Request<tonic_health::pb::HealthCheckRequest>,
        ) -> Result<tonic::Response<Self::WatchStream>, tonic::Status> {
            Err(tonic::Status::unimplemented("not scripted"))
        }
    }

    const CHECK: &str = "/grpc.health.v1.Health/Check";

    /// Serves `answers` on a real tonic server and makes one `Check` through a channel that
    /// retries `methods`; returns the outcome and the services the server was asked about.
    async fn check_through_layer(
        methods: &'static [&'static str],
        answers: Vec<Result<i32, tonic::Status>>,
    ) -> (Result<i32, tonic::Status>, Vec<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let service = Scripted {
            answers: std::sync::Mutex::new(answers.into_iter()),
            asked: asked.clone(),
        };
        let server = tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(tonic_health::pb::health_server::HealthServer::new(service))
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
        );
        let channel = tonic::transport::Endpoint::from_shared(format!("http://{address}"))
            .unwrap()
            .connect_lazy();
        let mut client = tonic_health::pb::health_client::HealthClient::new(
            RetryIdempotent::with_methods(channel, Duration::from_secs(5), methods),
        );
        let outcome = client
            .check(tonic_health::pb::HealthCheckRequest {
                service: "miclub".into(),
            })
            .await
            .map(|answer| answer.into_inner().status);
        server.abort();
        let asked = asked.lock().unwrap().clone();
        (outcome, asked)
    }

    #[tokio::test]
    async fn an_idempotent_method_found_unavailable_is_sent_again_once_with_the_same_request() {
        let (outcome, asked) = check_through_layer(
            &[CHECK],
            vec![Err(tonic::Status::unavailable("down")), Ok(1)],
        )
        .await;
        assert_eq!(outcome.unwrap(), 1);
        assert_eq!(asked, ["miclub", "miclub"]);
        let (outcome, asked) = check_through_layer(
            &[CHECK],
            vec![
                Err(tonic::Status::unavailable("down")),
                Err(tonic::Status::unavailable("still down")),
                Ok(1),
            ],
        )
        .await;
        let status = outcome.unwrap_err();
        assert_eq!(
            (status.code(), status.message()),
            (tonic::Code::Unavailable, "still down")
        );
        assert_eq!(asked.len(), 2, "one retry, not a loop");
    }

    #[tokio::test]
    async fn a_method_not_declared_idempotent_is_never_sent_again() {
        let (outcome, asked) =
            check_through_layer(&[], vec![Err(tonic::Status::unavailable("down")), Ok(1)]).await;
        assert_eq!(outcome.unwrap_err().code(), tonic::Code::Unavailable);
        assert_eq!(asked, ["miclub"]);
    }

    #[tokio::test]
    async fn an_idempotent_method_answered_or_refused_reaches_the_caller_as_sent() {
        let (outcome, asked) = check_through_layer(&[CHECK], vec![Ok(2)]).await;
        assert_eq!((outcome.unwrap(), asked.len()), (2, 1));
        let (outcome, asked) = check_through_layer(
            &[CHECK],
            vec![Err(tonic::Status::not_found("no such service")), Ok(1)],
        )
        .await;
        let status = outcome.unwrap_err();
        assert_eq!(
            (status.code(), status.message(), asked.len()),
            (tonic::Code::NotFound, "no such service", 1)
        );
    }

    /// An HTTP/2 peer that takes no call: it answers each request's HEADERS with a GOAWAY naming
    /// stream 0 as the last it will process (what a server closing gracefully sends for a stream
    /// that crossed its GOAWAY), and counts the requests it was sent.
    async fn refusing_server() -> (String, Arc<AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        const SETTINGS: u8 = 0x4;
        const HEADERS: u8 = 0x1;
        const GOAWAY: u8 = 0x7;
        fn frame(kind: u8, flags: u8, payload: &[u8]) -> Vec<u8> {
            let length = u32::try_from(payload.len()).unwrap().to_be_bytes();
            let mut out = vec![length[1], length[2], length[3], kind, flags, 0, 0, 0, 0];
            out.extend_from_slice(payload);
            out
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let counted = counted.clone();
                tokio::spawn(async move {
                    let mut preface = [0u8; 24];
                    socket.read_exact(&mut preface).await?;
                    socket.write_all(&frame(SETTINGS, 0, &[])).await?;
                    loop {
                        let mut head = [0u8; 9];
                        socket.read_exact(&mut head).await?;
                        let length = u32::from_be_bytes([0, head[0], head[1], head[2]]);
                        let mut payload = vec![0u8; usize::try_from(length).unwrap()];
                        socket.read_exact(&mut payload).await?;
                        match head[3] {
                            SETTINGS if head[4] & 0x1 == 0 => {
                                socket.write_all(&frame(SETTINGS, 0x1, &[])).await?;
                            }
                            HEADERS => {
                                counted.fetch_add(1, Ordering::SeqCst);
                                // Last stream id 0, error code NO_ERROR.
                                socket.write_all(&frame(GOAWAY, 0, &[0; 8])).await?;
                            }
                            _ => {}
                        }
                    }
                    #[allow(unreachable_code)]
                    Ok::<_, std::io::Error>(())
                });
            }
        });
        (format!("http://{address}"), requests)
    }

    async fn check_refused(methods: &'static [&'static str]) -> (tonic::Status, usize) {
        let (url, requests) = refusing_server().await;
        let channel = tonic::transport::Endpoint::from_shared(url)
            .unwrap()
            .connect_lazy();
        let mut client = tonic_health::pb::health_client::HealthClient::new(
            RetryIdempotent::with_methods(channel, Duration::from_secs(5), methods),
        );
        let status = client
            .check(tonic_health::pb::HealthCheckRequest {
                service: "miclub".into(),
            })
            .await
            .expect_err("the peer answers nothing");
        (status, requests.load(Ordering::SeqCst))
    }

    #[tokio::test]
    async fn a_call_the_server_refused_unprocessed_is_sent_once_more_even_when_it_is_a_write() {
        for methods in [&[][..], &[CHECK][..]] {
            let (status, requests) = check_refused(methods).await;
            assert!(was_refused_unprocessed(&status), "{status:?}");
            assert_eq!(requests, 2, "one retry, not a loop ({methods:?})");
        }
    }

    #[test]
    fn a_refusal_is_unprocessed_only_when_http2_says_so() {
        let refused = h2::Error::from(h2::Reason::REFUSED_STREAM);
        // Made here (by the library), not sent by the server.
        assert!(!was_refused_unprocessed(&refused));
        assert!(!was_refused_unprocessed(&tonic::Status::internal("bug")));
        assert!(!was_refused_unprocessed(&tonic::Status::unavailable(
            "down"
        )));
    }

    #[test]
    fn the_declared_methods_are_full_grpc_paths() {
        for method in IDEMPOTENT_METHODS {
            let (service, name) = method[1..].split_once('/').expect(method);
            assert!(
                method.starts_with("/miclub.") && service.ends_with("Service"),
                "{method}"
            );
            assert!(!name.is_empty() && !name.contains('/'), "{method}");
        }
    }
}
