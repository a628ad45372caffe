//! What one caller can make a port hold while its requests arrive.
//!
//! A request the port is still reading sits in tonic's buffer until its last byte comes, for
//! up to the port's call timeout. A caller that never finishes its requests would hold those
//! buffers, as many as it may open calls: 200 per connection, over every connection its address
//! may keep. So each call's request is read through [`Arriving`], within its kind's
//! [`Allowance`]:
//! - a call may send at most [`Allowance::bytes`], past which it is answered
//!   `RESOURCE_EXHAUSTED` at once, as tonic refuses a message past its own limit;
//! - the port holds at most [`Allowance::arriving`] bytes of one caller's requests that are
//!   still arriving: a frame read while more of its request is to come counts until the
//!   request is whole or given up, and one past the share ends its call the same way. A request
//!   that comes whole in one frame, as ours do, counts nothing, however many a caller sends at
//!   once (a till posting a burst of purchases);
//! - for open methods, whose legitimate callers make a few calls at a time, one address may also
//!   have only [`Allowance::waiting`] calls the port is waiting on for the rest of their
//!   request, so that calls sending nothing at all are bounded too. A call that never has to be
//!   waited on takes none, so a stranger keeping calls waiting from an address it shares with
//!   others (a mesh's sidecar) does not deny them their health checks.
//!
//! The caller is the address for a call without a token (anyone who reaches the port), the
//! member for a member's token and the client for a service token, so a member's or a client's
//! share does not grow with the sessions, tokens or connections it uses.

use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf as _, Bytes};
use http_body::{Body, Frame, SizeHint};

use super::Access;
use crate::listener::{Counted, Counts};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What one caller may make a port hold with calls of one kind ([`Access::allowance`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowance {
    /// The most one call's request may send, its gRPC framing (5 bytes a message) included.
    pub bytes: usize,
    /// The most the port holds at once of one caller's requests that are still arriving.
    pub arriving: usize,
    /// The calls of one caller the port may be waiting on at once for the rest of their
    /// request; 0 for no count (a token holder's calls come in bursts, bounded by bytes).
    pub waiting: usize,
}

/// tonic's own limit on a message it decodes, which the servers keep.
const TONIC_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

impl Access {
    /// What a caller may make the port hold with calls of this kind:
    /// - open: every open request is a few hundred bytes (a service name, a client id and
    ///   secret), and our callers make a few at a time (a probe's health check, a token grant
    ///   at start, the keys when auth rotates them);
    /// - member: the gateway takes at most `gateway.body_limit_bytes` (16 KiB) from a member and
    ///   every member request is fields of a few hundred characters at most;
    /// - scoped: tonic's 4 MiB, which a mission's member list or the terms may need, and sixteen
    ///   such requests arriving at once.
    pub const fn allowance(self) -> Allowance {
        match self {
            Access::Open => Allowance {
                bytes: 16 * 1024,
                arriving: 32 * 16 * 1024,
                waiting: 32,
            },
            Access::Member => Allowance {
                bytes: 64 * 1024,
                arriving: 4 * 64 * 1024,
                waiting: 0,
            },
            Access::Scoped => Allowance {
                bytes: TONIC_MESSAGE_BYTES + 5,
                arriving: 16 * (TONIC_MESSAGE_BYTES + 5),
                waiting: 0,
            },
        }
    }
}

/// Whose share a call counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Caller {
    Address(IpAddr),
    Member(String),
    Client(String),
}

/// What each caller's calls hold on one port: the calls being waited on, the bytes arriving.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shares {
    waiting: Counts<Caller>,
    arriving: Counts<Caller>,
}

/// A call's request body read within its caller's [`Allowance`] (see the module header).
pub(crate) struct Arriving {
    body: http_body_util::Limited<axum::body::Body>,
    allowance: Allowance,
    /// `None` when the call's address is unknown (a connection tonic did not accept).
    caller: Option<Caller>,
    shares: Shares,
    /// This call's place among its caller's waited-on calls, once it had to be waited on.
    waited: Option<Counted<Caller>>,
    /// The bytes of this request read while more of it was to come.
    held: Option<Counted<Caller>>,
    /// The call's path, for the refusals' log lines (a shared clone of the request's).
    uri: http::Uri,
}

impl Arriving {
    pub(crate) fn new(
        body: axum::body::Body,
        access: Access,
        caller: Option<Caller>,
        shares: Shares,
        uri: http::Uri,
    ) -> Self {
        let allowance = access.allowance();
        Self {
            body: http_body_util::Limited::new(body, allowance.bytes),
            allowance,
            caller,
            shares,
            waited: None,
            held: None,
            uri,
        }
    }

    /// Takes one of the caller's waited-on calls, unless it holds one already or the count
    /// does not apply.
    fn wait(&mut self) -> Result<(), tonic::Status> {
        let cap = self.allowance.waiting;
        let (Some(caller), None, true) = (&self.caller, &self.waited, cap > 0) else {
            return Ok(());
        };
        match self.shares.waiting.admit(caller.clone(), cap) {
            Some(waited) => {
                self.waited = Some(waited);
                Ok(())
            }
            None => Err(self.past_share("calls waited on", cap)),
        }
    }

    /// Counts `len` more bytes of this request as held while the rest of it comes.
    fn hold(&mut self, len: usize) -> Result<(), tonic::Status> {
        let Some(caller) = &self.caller else {
            return Ok(());
        };
        let cap = self.allowance.arriving;
        let held = match &mut self.held {
            Some(held) => held.grow(len, cap),
            None => match self.shares.arriving.take(caller.clone(), len, cap) {
                Some(held) => {
                    self.held = Some(held);
                    true
                }
                None => false,
            },
        };
        if held {
            Ok(())
        } else {
            Err(self.past_share("bytes of requests arriving", cap))
        }
    }

    /// The refusal of a call that would take its caller past its share of `what`.
    fn past_share(&self, what: &'static str, cap: usize) -> tonic::Status {
        // Counted as the call's status; one line per refusal only at `debug`, so a flood is
        // not a flood of log lines.
        tracing::debug!(method = self.uri.path(), caller = ?self.caller, share = what, cap, "grpc call refused: its caller holds its share of the port");
        tonic::Status::resource_exhausted(format!(
            "one caller may have at most {cap} {what} at once"
        ))
    }

    /// The error that ends the request: past its bytes, the call's refusal.
    fn failed(&self, err: BoxError) -> BoxError {
        if !err.is::<http_body_util::LengthLimitError>() {
            return err;
        }
        let limit = self.allowance.bytes;
        tracing::warn!(method = self.uri.path(), caller = ?self.caller, limit, "grpc call past its size refused");
        Box::new(tonic::Status::resource_exhausted(format!(
            "a call of this kind may send at most {limit} bytes"
        )))
    }
}

impl Body for Arriving {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        let refused = |status: tonic::Status| Poll::Ready(Some(Err(Box::new(status) as BoxError)));
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Pending => match this.wait() {
                Ok(()) => Poll::Pending,
                Err(status) => refused(status),
            },
            Poll::Ready(Some(Ok(frame))) => {
                let more_to_come = !this.body.is_end_stream();
                let len = frame.data_ref().map_or(0, |data| data.remaining());
                if more_to_come
                    && len > 0
                    && let Err(status) = this.hold(len)
                {
                    return refused(status);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => {
                this.waited = None;
                this.held = None;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(err))) => Poll::Ready(Some(Err(this.failed(err)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
