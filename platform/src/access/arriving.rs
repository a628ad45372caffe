//! What one caller can make a port hold while its requests arrive.
//!
//! A request the port is still reading sits in tonic's buffer until its last byte comes, for
//! up to the port's call timeout. A caller that never finishes its requests would hold those
//! buffers, as many as it may open calls: 200 per connection, over every connection its address
//! may keep. So each call's request is read through [`Arriving`]:
//! - it may send at most its kind's bytes ([`Allowance::bytes`]), past which the call is
//!   answered `RESOURCE_EXHAUSTED` at once, as tonic refuses a message past its own limit;
//! - once the port has to wait for the rest of it, it holds one of its caller's waiting calls
//!   ([`Allowance::waiting`]) until it has been read or given up. A caller whose requests all
//!   arrive with their call (every caller of ours: one write) holds none, so a stranger who
//!   keeps calls waiting from an address shared with others (a mesh's sidecar) denies them
//!   nothing but the slow calls they would have made.
//!
//! The caller is the address for a call without a token (anyone who reaches the port), the
//! member for a member's token and the client for a service token, so a member's or a client's
//! share does not grow with the addresses or tokens it uses.

use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

use super::Access;
use crate::listener::{Counted, Counts};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// What one caller may make a port hold with calls of one kind ([`Access::allowance`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowance {
    /// The most one call's request may send, its gRPC framing (5 bytes a message) included.
    pub bytes: usize,
    /// The calls of one caller whose request the port may be waiting for at once.
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
    ///   every member request is fields of a few hundred characters at most; a member's page
    ///   makes a few calls at once;
    /// - scoped: tonic's 4 MiB, which a mission's member list or the terms may need, and as
    ///   many waiting calls as the postings bench's 64 tills.
    pub const fn allowance(self) -> Allowance {
        match self {
            Access::Open => Allowance {
                bytes: 16 * 1024,
                waiting: 32,
            },
            Access::Member => Allowance {
                bytes: 64 * 1024,
                waiting: 32,
            },
            Access::Scoped => Allowance {
                bytes: TONIC_MESSAGE_BYTES + 5,
                waiting: 64,
            },
        }
    }
}

/// Whose share a call's waiting counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Caller {
    Address(IpAddr),
    Member(String),
    Client(String),
}

/// Calls waiting for their request, by caller, on one port.
pub(crate) type Waiting = Counts<Caller>;

/// A call's request body read within its caller's [`Allowance`] (see the module header).
pub(crate) struct Arriving {
    body: http_body_util::Limited<axum::body::Body>,
    access: Access,
    /// `None` when the call's address is unknown (a connection tonic did not accept).
    caller: Option<Caller>,
    waiting: Waiting,
    held: Option<Counted<Caller>>,
    /// The call's path, for the refusals' log lines (a shared clone of the request's).
    uri: http::Uri,
}

impl Arriving {
    pub(crate) fn new(
        body: axum::body::Body,
        access: Access,
        caller: Option<Caller>,
        waiting: Waiting,
        uri: http::Uri,
    ) -> Self {
        Self {
            body: http_body_util::Limited::new(body, access.allowance().bytes),
            access,
            caller,
            waiting,
            held: None,
            uri,
        }
    }

    /// Holds one of the caller's waiting calls, unless it holds one already or has them all.
    fn wait(&mut self) -> Result<(), tonic::Status> {
        let (Some(caller), None) = (&self.caller, &self.held) else {
            return Ok(());
        };
        let cap = self.access.allowance().waiting;
        match self.waiting.admit(caller.clone(), cap) {
            Some(held) => {
                self.held = Some(held);
                Ok(())
            }
            None => {
                // Counted as the call's status; one line per refusal only at `debug`, so a
                // flood is not a flood of log lines.
                tracing::debug!(
                    method = self.uri.path(),
                    ?caller,
                    waiting = cap,
                    "grpc call refused: its caller has too many calls still sending"
                );
                Err(tonic::Status::resource_exhausted(format!(
                    "at most {cap} calls of one caller may be still sending their request at once"
                )))
            }
        }
    }

    /// The error that ends the request: past its bytes, the call's refusal.
    fn failed(&self, err: BoxError) -> BoxError {
        if !err.is::<http_body_util::LengthLimitError>() {
            return err;
        }
        let limit = self.access.allowance().bytes;
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
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Pending => match this.wait() {
                Ok(()) => Poll::Pending,
                Err(status) => Poll::Ready(Some(Err(Box::new(status)))),
            },
            Poll::Ready(None) => {
                this.held = None;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(err))) => Poll::Ready(Some(Err(this.failed(err)))),
            frame => frame,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
