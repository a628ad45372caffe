//! What one caller can make a gRPC port hold, against a real port behind a real access policy:
//! no more calls open at once on a connection than the port allows, no more sent by a call than
//! its kind's `Allowance::bytes`, no more of one caller's requests held while they arrive than
//! its `Allowance::arriving` (the caller being the address, the member or the client), no more
//! calls waited on from one caller than `Allowance::waiting`, no more of its answers left
//! unread with the port than `Allowance::unsent`, and no call kept open past
//! the port's call timeout by a request that never ends; while a burst of whole calls, however
//! many, is all served. Without these, one
//! connection with no token opened calls to health without end, each sending most of tonic's
//! 4 MiB and never finishing: 2,000 of them held 750 MiB of the port's memory until the
//! connection's maximum age.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use miclub_platform::access::{Access, Policy};
use miclub_platform::grpc::{self, ServerSettings};
use miclub_platform::shutdown::ShutdownTrigger;
use miclub_platform::testing::{TestKeys, health_status, serve_port};
use miclub_platform::tokens::with_bearer;
use miclub_proto::missions::v1::missions_service_client::MissionsServiceClient;
use miclub_proto::missions::v1::missions_service_server::{MissionsService, MissionsServiceServer};
use miclub_proto::missions::v1::{
    HasMissionsRequest, HasMissionsResponse, ListMyMissionsRequest, ListMyMissionsResponse,
    SetHistoryLoadingRequest, SetHistoryLoadingResponse, UpsertMissionRequest,
    UpsertMissionResponse,
};

const HEALTH: &str = "/grpc.health.v1.Health/Check";
const WATCH: &str = "/grpc.health.v1.Health/Watch";

/// A port (health only) with `settings`, every call passing a [`Policy`] first.
async fn serve(settings: ServerSettings) -> (u16, ShutdownTrigger) {
    let gate = Policy::new(Arc::new(TestKeys::new().verifier(None)));
    serve_port(&settings, |routes| routes, gate).await
}

/// An HTTP/2 connection to `port` made by hand, so a test can leave a call's request unfinished
/// as an attacker would; returned once the port's settings have arrived.
async fn raw_connection(port: u16) -> h2::client::SendRequest<Bytes> {
    raw_connection_with(port, &h2::client::Builder::new()).await
}

/// As [`raw_connection`], with `builder`'s settings (the caller's window, say).
async fn raw_connection_with(
    port: u16,
    builder: &h2::client::Builder,
) -> h2::client::SendRequest<Bytes> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let (client, connection) = builder.handshake(tcp).await.unwrap();
    tokio::spawn(connection);
    let client = client.ready().await.unwrap();
    // The server's SETTINGS come after the handshake; until then the limit reads as none.
    for _ in 0..500 {
        if client.current_max_send_streams() != usize::MAX {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    client
}

/// A message of `declared` bytes whose field 1 is a string of s's: to health, a request for
/// the unknown service "ss…s", answered NOT_FOUND once read whole; to `SetHistoryLoading`, a
/// member id; to a method whose request has no fields, one it skips.
fn message(declared: u32) -> Vec<u8> {
    let declared = declared as usize;
    let string_len = (1..=5)
        .map(|prefix| declared - 1 - prefix)
        .find(|&len| prost::encoding::encoded_len_varint(len as u64) == declared - 1 - len)
        .expect("a length that fits");
    let message = prost::Message::encode_to_vec(&tonic_health::pb::HealthCheckRequest {
        service: "s".repeat(string_len),
    });
    assert_eq!(message.len(), declared);
    message
}

/// Starts a call of `path` (with `token` as its bearer) whose [`message`] says `declared` bytes
/// and sends `sent` of them; the request is never finished unless the caller sends the rest.
fn start_call(
    client: &mut h2::client::SendRequest<Bytes>,
    port: u16,
    path: &str,
    token: Option<&str>,
    declared: u32,
    sent: usize,
) -> (h2::client::ResponseFuture, h2::SendStream<Bytes>) {
    let mut request = http::Request::post(format!("http://127.0.0.1:{port}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    let (response, mut body) = client
        .send_request(request.body(()).unwrap(), false)
        .unwrap();
    let mut frame = vec![0u8; 5];
    frame[1..5].copy_from_slice(&declared.to_be_bytes());
    frame.extend_from_slice(&message(declared)[..sent]);
    body.send_data(Bytes::from(frame), false).unwrap();
    (response, body)
}

/// Starts a call of `path` with `token` as its bearer that sends its headers and nothing
/// else: it holds the port's stream and call until its caller finishes or gives it up.
fn stalled_call(
    client: &mut h2::client::SendRequest<Bytes>,
    port: u16,
    path: &str,
    token: &str,
) -> (h2::client::ResponseFuture, h2::SendStream<Bytes>) {
    let request = http::Request::post(format!("http://127.0.0.1:{port}{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("authorization", format!("Bearer {token}"));
    client
        .send_request(request.body(()).unwrap(), false)
        .unwrap()
}

/// The status of the first of up to 100 calls `start` makes that is answered within 200 ms,
/// each given up when it is not: once a caller's share is held, the next call is refused at
/// once, but the calls holding it may not all have been read up to their wait yet.
async fn first_answer(
    mut start: impl FnMut() -> (h2::client::ResponseFuture, h2::SendStream<Bytes>),
) -> Option<String> {
    for _ in 0..100 {
        let (response, _body) = start();
        if let Ok(status) =
            tokio::time::timeout(Duration::from_millis(200), grpc_status(response)).await
        {
            return Some(status);
        }
    }
    None
}

/// A health check with no token, as [`start_call`].
fn unfinished_call(
    client: &mut h2::client::SendRequest<Bytes>,
    port: u16,
    declared: u32,
    sent: usize,
) -> (h2::client::ResponseFuture, h2::SendStream<Bytes>) {
    start_call(client, port, HEALTH, None, declared, sent)
}

/// Sends the rest of a call [`start_call`] began with 3 of 10 bytes. A call the port refused
/// meanwhile has its stream closed already, which its status then tells.
fn finish(mut body: h2::SendStream<Bytes>) {
    let _ = body.send_data(Bytes::from(message(10)[3..].to_vec()), true);
}

/// The gRPC status of an answer: its `grpc-status` header (a trailers-only answer) or trailer.
async fn grpc_status(response: h2::client::ResponseFuture) -> String {
    let response = tokio::time::timeout(Duration::from_secs(10), response)
        .await
        .expect("answered")
        .unwrap();
    if let Some(status) = response.headers().get("grpc-status") {
        return status.to_str().unwrap().to_owned();
    }
    let mut body = response.into_body();
    while body.data().await.is_some() {}
    let trailers = body.trailers().await.unwrap().expect("trailers");
    trailers["grpc-status"].to_str().unwrap().to_owned()
}

async fn health_check(port: u16, service: String) -> Result<i32, tonic::Status> {
    let client = grpc::ClientSettings::for_url(format!("http://127.0.0.1:{port}"));
    health_status(&client, &service).await
}

#[tokio::test]
async fn a_connection_is_told_how_many_calls_it_may_have_open_and_others_are_served_while_it_holds_them()
 {
    let (port, _stop) = serve(ServerSettings {
        max_concurrent_streams: 4,
        ..ServerSettings::default()
    })
    .await;
    let mut client = raw_connection(port).await;
    // Told to the caller in the connection's SETTINGS; h2 refuses a stream past it
    // (REFUSED_STREAM) should a caller not listen.
    assert_eq!(client.current_max_send_streams(), 4, "the port's limit");
    let _held: Vec<_> = (0..4)
        .map(|_| unfinished_call(&mut client, port, 10, 3))
        .collect();
    assert_eq!(health_check(port, String::new()).await.unwrap(), 1);
}

#[tokio::test]
async fn a_call_anyone_may_make_sends_at_most_its_limit_and_is_refused_at_once_past_it() {
    let (port, _stop) = serve(ServerSettings::default()).await;
    // Health answers NOT_FOUND for a service it does not know: the call ran.
    let limit = Access::Open.allowance().bytes;
    let within = health_check(port, "s".repeat(limit - 100)).await;
    assert_eq!(within.unwrap_err().code(), tonic::Code::NotFound);
    let past = health_check(port, "s".repeat(limit + 1)).await;
    assert_eq!(past.unwrap_err().code(), tonic::Code::ResourceExhausted);

    // An attacker's call that says 4 MB and sends 64 KiB of it is refused, not held.
    let mut client = raw_connection(port).await;
    let (response, _body) = unfinished_call(&mut client, port, 4_000_000, 64 * 1024);
    assert_eq!(grpc_status(response).await, "8", "RESOURCE_EXHAUSTED");
}

#[tokio::test]
async fn a_call_whose_request_never_ends_is_answered_at_the_call_timeout() {
    let (port, _stop) = serve(ServerSettings {
        call_timeout_ms: 300,
        ..ServerSettings::default()
    })
    .await;
    let mut client = raw_connection(port).await;
    let (response, _body) = unfinished_call(&mut client, port, 10, 3);
    assert_eq!(grpc_status(response).await, "1", "CANCELLED");
    assert_eq!(health_check(port, String::new()).await.unwrap(), 1);

    // Counted as the call's status, as every answered call is: a call no other test makes.
    let metrics = miclub_platform::telemetry::metrics_handle();
    let (response, _body) = start_call(&mut client, port, WATCH, None, 10, 3);
    assert_eq!(grpc_status(response).await, "1", "CANCELLED");
    let series = format!(r#"grpc_server_calls_total{{method="{WATCH}",code="Cancelled"}} 1"#);
    let rendered = metrics.render();
    assert!(
        rendered.lines().any(|line| line == series),
        "{series} not in {rendered}"
    );
}

#[tokio::test]
async fn an_address_may_keep_only_its_share_of_calls_anyone_may_make_waiting_and_its_whole_calls_are_still_served()
 {
    let (port, _stop) = serve(ServerSettings::default()).await;
    let share = Access::Open.allowance().waiting;
    let mut client = raw_connection(port).await;
    let held: Vec<_> = (0..share)
        .map(|_| unfinished_call(&mut client, port, 10, 3))
        .collect();
    // From another connection of the same address, one more call that keeps the port waiting
    // is refused at once …
    let mut other = raw_connection(port).await;
    let refused = first_answer(|| unfinished_call(&mut other, port, 10, 3)).await;
    assert_eq!(refused.as_deref(), Some("8"), "RESOURCE_EXHAUSTED");
    // … while a call whose request comes whole, as every caller of ours sends one, is served.
    let mut served = None;
    for _ in 0..100 {
        match health_check(port, String::new()).await {
            Ok(status) => {
                served = Some(status);
                break;
            }
            // Its request may still have been on its way when the port first read it.
            Err(status) => assert_eq!(status.code(), tonic::Code::ResourceExhausted),
        }
    }
    assert_eq!(served, Some(1), "SERVING while the share is held");

    // Once the caller gives its calls up, the address may keep calls waiting again: one that
    // waits, then sends the rest of its request, runs (NOT_FOUND, for the service it names).
    drop(held);
    let mut waited = false;
    for _ in 0..250 {
        let (response, body) = unfinished_call(&mut other, port, 10, 3);
        tokio::time::sleep(Duration::from_millis(20)).await;
        finish(body);
        if grpc_status(response).await == "5" {
            waited = true;
            break;
        }
    }
    assert!(
        waited,
        "a waiting call was still refused once the share was given up"
    );
}

const MY_MISSIONS: &str = "/miclub.missions.v1.MissionsService/ListMyMissions";
const HISTORY: &str = "/miclub.missions.v1.MissionsService/SetHistoryLoading";

/// A stand-in for missions that answers every call it is given: under test are the port and
/// the policy in front of it, which read each request before the service sees it.
#[derive(Debug, Clone, Copy)]
struct Answers;

#[tonic::async_trait]
impl MissionsService for Answers {
    async fn list_my_missions(
        &self,
        _: tonic::Request<ListMyMissionsRequest>,
    ) -> Result<tonic::Response<ListMyMissionsResponse>, tonic::Status> {
        Ok(tonic::Response::new(ListMyMissionsResponse::default()))
    }

    async fn has_missions(
        &self,
        _: tonic::Request<HasMissionsRequest>,
    ) -> Result<tonic::Response<HasMissionsResponse>, tonic::Status> {
        Ok(tonic::Response::new(HasMissionsResponse::default()))
    }

    async fn upsert_mission(
        &self,
        _: tonic::Request<UpsertMissionRequest>,
    ) -> Result<tonic::Response<UpsertMissionResponse>, tonic::Status> {
        Ok(tonic::Response::new(UpsertMissionResponse::default()))
    }

    async fn set_history_loading(
        &self,
        _: tonic::Request<SetHistoryLoadingRequest>,
    ) -> Result<tonic::Response<SetHistoryLoadingResponse>, tonic::Status> {
        Ok(tonic::Response::new(SetHistoryLoadingResponse::default()))
    }
}

/// A port serving [`Answers`] behind a policy that trusts `keys`.
async fn serve_missions(keys: &TestKeys) -> (u16, ShutdownTrigger) {
    let gate = Policy::new(Arc::new(keys.verifier(None)));
    serve_port(
        &ServerSettings::default(),
        |routes| routes.add_service(MissionsServiceServer::new(Answers)),
        gate,
    )
    .await
}

/// A missions port and the tokens the member-share tests call it with: two sessions of one
/// member, and another member.
struct MemberPort {
    port: u16,
    _stop: ShutdownTrigger,
    member: String,
    second_session: String,
    other_member: String,
}

impl MemberPort {
    async fn serve() -> Self {
        let keys = TestKeys::new();
        let (port, _stop) = serve_missions(&keys).await;
        Self {
            port,
            _stop,
            member: keys.member_token("member-a", "sid-1", 600),
            second_session: keys.member_token("member-a", "sid-2", 600),
            other_member: keys.member_token("member-b", "sid-3", 600),
        }
    }

    /// Connections made with `builder`, as many as `calls` open at once need, plus `spare`.
    async fn connections(
        &self,
        calls: usize,
        spare: usize,
        builder: &h2::client::Builder,
    ) -> Vec<h2::client::SendRequest<Bytes>> {
        let streams = ServerSettings::default().max_concurrent_streams as usize;
        let mut clients = Vec::new();
        for _ in 0..calls.div_ceil(streams) + spare {
            clients.push(raw_connection_with(self.port, builder).await);
        }
        clients
    }
}

/// The status of a whole call of `path`: a [`message`] of `len` bytes sent at once.
async fn whole_call(port: u16, path: &str, token: &str, len: u32) -> String {
    let mut client = raw_connection(port).await;
    let (response, mut body) = start_call(&mut client, port, path, Some(token), len, 0);
    body.send_data(Bytes::from(message(len)), true).unwrap();
    grpc_status(response).await
}

#[tokio::test]
async fn a_call_made_with_a_token_sends_at_most_its_kinds_limit() {
    let keys = TestKeys::new();
    let (port, _stop) = serve_missions(&keys).await;
    let member = keys.member_token("member-a", "sid-a", 600);
    let till = keys.scoped_token("till-1", &[&HISTORY[1..]], 600);
    let member_limit = Access::Member.allowance().bytes as u32;

    assert_eq!(
        whole_call(port, MY_MISSIONS, &member, member_limit - 5).await,
        "0"
    );
    assert_eq!(
        whole_call(port, MY_MISSIONS, &member, member_limit - 4).await,
        "8"
    );
    // A member's call that says 4 MB is refused at its head, before tonic reserves the 4 MB,
    // however little it sends.
    let mut client = raw_connection(port).await;
    let (response, _body) =
        start_call(&mut client, port, MY_MISSIONS, Some(&member), 4_000_000, 10);
    assert_eq!(grpc_status(response).await, "8", "RESOURCE_EXHAUSTED");
    // A client's call may send what a mission's member list needs.
    assert_eq!(whole_call(port, HISTORY, &till, 1024 * 1024).await, "0");
}

#[tokio::test]
async fn a_member_may_hold_only_its_share_of_requests_arriving_whichever_sessions_and_connections_it_uses()
 {
    let MemberPort {
        port,
        _stop,
        member,
        second_session,
        other_member,
    } = MemberPort::serve().await;
    let member = [member, second_session];
    let allowance = Access::Member.allowance();
    let (declared, sent) = (60 * 1024, 40 * 1024);
    // What a call holds is the length it declared (tonic reserves it), not what it sent.
    let within_share = allowance.arriving / (5 + declared as usize);
    let mut clients = [raw_connection(port).await, raw_connection(port).await];
    // Calls that send part of their request and wait: each holds what it sent, until the
    // member's share is taken and one more is refused at once.
    let mut held = Vec::new();
    let mut refused = None;
    for n in 0..within_share + 3 {
        let (response, body) = start_call(
            &mut clients[n % 2],
            port,
            MY_MISSIONS,
            Some(&member[n % 2]),
            declared,
            sent,
        );
        let mut response = Box::pin(grpc_status(response));
        match tokio::time::timeout(Duration::from_millis(300), &mut response).await {
            Ok(status) => {
                refused = Some(status);
                break;
            }
            Err(_) => held.push((response, body)),
        }
    }
    assert_eq!(refused.as_deref(), Some("8"), "RESOURCE_EXHAUSTED");
    assert!(
        (within_share..=within_share + 1).contains(&held.len()),
        "{} calls held before the refusal; the share holds {within_share}",
        held.len()
    );

    // Another member on the same connections and address sends as much and is served.
    let (response, mut body) = start_call(
        &mut clients[0],
        port,
        MY_MISSIONS,
        Some(&other_member),
        declared,
        sent,
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    // A refused call's stream is closed already; its status tells.
    let _ = body.send_data(Bytes::from(message(declared)[sent..].to_vec()), true);
    assert_eq!(
        grpc_status(response).await,
        "0",
        "another member's call ran"
    );
}

#[tokio::test]
async fn a_member_may_keep_only_its_share_of_calls_waiting_for_a_request_it_never_sends() {
    let calls = MemberPort::serve().await;
    let (port, member) = (calls.port, &calls.member);
    let share = Access::Member.allowance().waiting;
    let streams = ServerSettings::default().max_concurrent_streams as usize;
    // The share is more than one connection may have open: the member's calls over several.
    let mut clients = calls
        .connections(share, 0, &h2::client::Builder::new())
        .await;
    let held: Vec<_> = (0..share)
        .map(|n| stalled_call(&mut clients[n / streams], port, MY_MISSIONS, member))
        .collect();
    // One more, from another connection and another session of the same member, is refused.
    let mut other = raw_connection(port).await;
    let refused =
        first_answer(|| stalled_call(&mut other, port, MY_MISSIONS, &calls.second_session)).await;
    assert_eq!(refused.as_deref(), Some("8"), "RESOURCE_EXHAUSTED");
    // Another member on the same connection is served, its call waited on for its request.
    let (response, mut body) = stalled_call(&mut other, port, MY_MISSIONS, &calls.other_member);
    tokio::time::sleep(Duration::from_millis(50)).await;
    body.send_data(Bytes::from_static(&[0; 5]), true).unwrap();
    assert_eq!(
        grpc_status(response).await,
        "0",
        "another member's call ran"
    );
    drop(held);
}

/// Makes a whole call of `path` (its request has no fields) and waits up to 200 ms for what
/// becomes of its answer: `Some(true)` when it is refused (its stream reset once its headers
/// came), `Some(false)` when it comes, `None` when it stays with the port.
async fn answer_refused(
    client: &mut h2::client::SendRequest<Bytes>,
    port: u16,
    path: &str,
    token: &str,
) -> (Option<bool>, h2::client::ResponseFuture) {
    let (response, mut body) = stalled_call(client, port, path, token);
    body.send_data(Bytes::from_static(&[0; 5]), true).unwrap();
    let mut response = response;
    let became = tokio::time::timeout(Duration::from_millis(200), async {
        // The reset may come before the headers are read.
        let mut answer = match (&mut response).await {
            Ok(answer) => answer.into_body(),
            Err(err) => return err.is_reset(),
        };
        match answer.data().await {
            Some(Err(err)) => err.is_reset(),
            _ => false,
        }
    })
    .await
    .ok();
    (became, response)
}

#[tokio::test]
async fn a_member_may_leave_only_its_share_of_answers_unread_and_another_member_is_served() {
    let calls = MemberPort::serve().await;
    let (port, member) = (calls.port, &calls.member);
    let share = Access::Member.allowance().unsent;
    let streams = ServerSettings::default().max_concurrent_streams as usize;
    // A caller that opens no window for its answers: each call is answered (headers need no
    // window) and its message stays with the port.
    let mut unread = h2::client::Builder::new();
    unread.initial_window_size(0);
    let mut clients = calls.connections(share, 1, &unread).await;
    let mut held = Vec::new();
    for n in 0..share - 1 {
        let (response, mut body) =
            stalled_call(&mut clients[n / streams], port, MY_MISSIONS, member);
        body.send_data(Bytes::from_static(&[0; 5]), true).unwrap();
        held.push(response);
    }
    // The last answer of the share, from another session, stays with the port …
    let second_session = &calls.second_session;
    let last = clients.last_mut().unwrap();
    let (became, response) = answer_refused(last, port, MY_MISSIONS, second_session).await;
    assert_eq!(
        became, None,
        "an answer within the share stays with the port"
    );
    held.push(response);
    // … and one more is refused (its stream reset) rather than held, once the answers before
    // it have all been made.
    let mut refused = false;
    for _ in 0..50 {
        let (became, response) = answer_refused(last, port, MY_MISSIONS, second_session).await;
        held.push(response);
        if became.is_some() {
            assert_eq!(became, Some(true), "the answer past the share is reset");
            refused = true;
            break;
        }
    }
    assert!(refused, "an answer past the member's share was held");
    // Another member, on a connection that reads its answers, is served.
    let mut reading = raw_connection(port).await;
    let (became, _response) =
        answer_refused(&mut reading, port, MY_MISSIONS, &calls.other_member).await;
    assert_eq!(became, Some(false), "another member's answer came");
    drop(held);
}

#[tokio::test]
async fn a_burst_of_whole_calls_from_one_client_or_one_member_is_all_served() {
    let keys = TestKeys::new();
    let (port, _stop) = serve_missions(&keys).await;
    let channel = grpc::ClientSettings::for_url(format!("http://127.0.0.1:{port}"))
        .channel()
        .unwrap();
    let till = keys.scoped_token("till-1", &[&HISTORY[1..]], 600);
    let member = keys.member_token("member-a", "sid-1", 600);
    let mut calls = tokio::task::JoinSet::new();
    for n in 0..200 {
        let mut client = MissionsServiceClient::new(channel.clone());
        let (till, member) = (till.clone(), member.clone());
        calls.spawn(async move {
            if n % 2 == 0 {
                let request = SetHistoryLoadingRequest {
                    member_id: "s".repeat(2_000),
                    loading: true,
                };
                client
                    .set_history_loading(with_bearer(request, &till))
                    .await
                    .map(drop)
            } else {
                client
                    .list_my_missions(with_bearer(ListMyMissionsRequest {}, &member))
                    .await
                    .map(drop)
            }
        });
    }
    while let Some(answer) = calls.join_next().await {
        answer.unwrap().expect("every call of the burst served");
    }
}
