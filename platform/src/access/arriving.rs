//! What one caller can make a port hold while its requests arrive.
//!
//! A request the port is still reading sits in tonic's buffer until its last byte comes, for
//! up to the port's call timeout. A caller that never finishes its requests would hold those
//! buffers, as many as it may open calls: 200 per connection, over every connection its address
//! may keep. So each call's request is read through [`Arriving`], within its kind's
//! [`Allowance`]:
//! - a call may send at most [`Allowance::bytes`], past which it is answered
//!   `RESOURCE_EXHAUSTED` at once, as tonic refuses a message past its own limit;
//! - the port holds at most [`Allowance::arriving`] bytes for one caller's requests that are
//!   still arriving. What a request holds is what tonic does for it: once a message's head has
//!   come, tonic reserves the whole length it declares, so a call that says 4 MB and sends 5
//!   bytes holds 4 MB. A message in progress counts that length until it is whole or given up,
//!   and one past the share, or past the call's own bytes, ends its call at its head, before
//!   tonic reserves anything. A request that comes whole in one frame, as ours do, counts
//!   nothing, however many a caller sends at once (a till posting a burst of purchases);
//! - one caller may have only [`Allowance::waiting`] calls the port is waiting on for the rest
//!   of their request, so that calls sending nothing at all are bounded too: each holds its
//!   stream, its future and tonic's decode buffer, about 19 KiB (measured on the release
//!   binary), and a caller could otherwise open 200 per connection on each of its address's 256
//!   connections, 1 GiB, for the call timeout. A call that never has to be waited on takes
//!   none, so a stranger keeping calls waiting from an address it shares with others (a mesh's
//!   sidecar) does not deny them their health checks. A call whose whole request is on its way
//!   may be polled before its frame has arrived, and so waited on for a moment: a token
//!   holder's share is larger than one connection's streams, so that a burst of whole calls
//!   over one channel (a till's postings, the gateway's calls for one member) is never refused.
//!
//! What a caller's answers hold while it does not take them is `answering`'s.
//!
//! The caller is the address for a call without a token (anyone who reaches the port), the
//! member for a member's token and the client for a service token, so a member's or a client's
//! share does not grow with the sessions, tokens or connections it uses.

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
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
    /// The most the port holds at once of one caller's requests that are still arriving.
    pub arriving: usize,
    /// The calls of one caller the port may be waiting on at once for the rest of their
    /// request.
    pub waiting: usize,
    /// The answers of one caller the port may hold at once, waiting for room in the caller's
    /// window (`answering`).
    pub unsent: usize,
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
    ///
    /// Calls waited on: open callers make a few at a time; a member's or a client's may be a
    /// burst, polled before its frames have come, as many as a connection's streams (200 by
    /// default) over each channel, so more than one connection's worth: 256 for a member (its
    /// calls come through the gateway's one channel to a service), 4,096 for a client (the
    /// stores' systems over several). Answers unsent, the same: a caller that reads its answers
    /// gives each place back as soon as hyper has written it.
    pub const fn allowance(self) -> Allowance {
        match self {
            Access::Open => Allowance {
                bytes: 16 * 1024,
                arriving: 32 * 16 * 1024,
                waiting: 32,
                unsent: 32,
            },
            Access::Member => Allowance {
                bytes: 64 * 1024,
                arriving: 4 * 64 * 1024,
                waiting: 256,
                unsent: 256,
            },
            Access::Scoped => Allowance {
                bytes: TONIC_MESSAGE_BYTES + 5,
                arriving: 16 * (TONIC_MESSAGE_BYTES + 5),
                waiting: 4096,
                unsent: 4096,
            },
        }
    }
}

/// Whose share a call counts against. A member's or a client's id is shared, not copied, by
/// the call's request, its answer and each count it takes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Caller {
    Address(IpAddr),
    Member(Arc<str>),
    Client(Arc<str>),
}

/// What each caller's calls hold on one port: the calls waiting for the rest of their request,
/// the bytes arriving, the answers waiting for room in its window.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shares {
    waiting: Counts<Caller>,
    arriving: Counts<Caller>,
    unsent: Counts<Caller>,
}

impl Shares {
    /// One more of `caller`'s calls waited on for the rest of their request, unless it has
    /// `cap` already.
    fn hold_waiting(&self, caller: &Caller, cap: usize) -> Option<Counted<Caller>> {
        self.waiting.admit(caller.clone(), cap)
    }

    /// `amount` more bytes of `caller`'s requests still arriving, unless that takes it past
    /// `cap`.
    fn hold_arriving(&self, caller: &Caller, amount: usize, cap: usize) -> Option<Counted<Caller>> {
        self.arriving.take(caller.clone(), amount, cap)
    }

    /// One more of `caller`'s answers the port holds, unless it has `cap` already.
    pub(super) fn hold_unsent(&self, caller: &Caller, cap: usize) -> Option<Counted<Caller>> {
        self.unsent.admit(caller.clone(), cap)
    }
}

/// The refusal of a call that would take `caller` past its share of `what`, its `cap`.
pub(super) fn past_share(
    method: Option<&str>,
    caller: Option<&Caller>,
    what: &'static str,
    cap: usize,
) -> tonic::Status {
    // Counted as the call's status; one line per refusal only at `debug`, so a flood is not a
    // flood of log lines.
    tracing::debug!(
        method,
        ?caller,
        share = what,
        cap,
        "grpc call refused: its caller holds its share of the port"
    );
    tonic::Status::resource_exhausted(format!("one caller may have at most {cap} {what} at once"))
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
    /// What this request holds of its caller's share while more of it is to come.
    held: Option<Counted<Caller>>,
    framing: Framing,
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
            framing: Framing::default(),
            uri,
        }
    }

    /// Takes one of the caller's waited-on calls, unless it holds one already or its caller is
    /// unknown.
    fn wait(&mut self) -> Result<(), tonic::Status> {
        let cap = self.allowance.waiting;
        let (Some(caller), None) = (&self.caller, &self.waited) else {
            return Ok(());
        };
        match self.shares.hold_waiting(caller, cap) {
            Some(waited) => {
                self.waited = Some(waited);
                Ok(())
            }
            None => Err(self.past_share("calls waited on", cap)),
        }
    }

    /// Counts `amount` as what this request holds while the rest of it comes (0 once whole).
    fn hold(&mut self, amount: usize) -> Result<(), tonic::Status> {
        let Some(caller) = &self.caller else {
            return Ok(());
        };
        let cap = self.allowance.arriving;
        let held = match (&mut self.held, amount) {
            (held, 0) => {
                *held = None;
                true
            }
            (Some(held), _) => held.resize(amount, cap),
            (None, _) => match self.shares.hold_arriving(caller, amount, cap) {
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

    /// Reads a frame of the request: its messages' heads, and what it then holds.
    fn read(&mut self, data: &[u8]) -> Result<(), BoxError> {
        if let Err(declared) = self.framing.read(data, self.allowance.bytes) {
            return Err(self.too_large(Some(declared)));
        }
        let holding = if self.body.is_end_stream() {
            0
        } else {
            self.framing.in_progress()
        };
        self.hold(holding)
            .map_err(|status| Box::new(status) as BoxError)
    }

    /// The refusal of a call that would take its caller past its share of `what`.
    fn past_share(&self, what: &'static str, cap: usize) -> tonic::Status {
        past_share(Some(self.uri.path()), self.caller.as_ref(), what, cap)
    }

    /// The error that ends the request: past its bytes, the call's refusal.
    fn failed(&self, err: BoxError) -> BoxError {
        if err.is::<http_body_util::LengthLimitError>() {
            self.too_large(None)
        } else {
            err
        }
    }

    /// The refusal of a call that sends more than its bytes, or whose message head `declared`
    /// more (refused before tonic reserves it).
    fn too_large(&self, declared: Option<usize>) -> BoxError {
        let limit = self.allowance.bytes;
        tracing::warn!(method = self.uri.path(), caller = ?self.caller, declared, limit, "grpc call past its size refused");
        Box::new(tonic::Status::resource_exhausted(format!(
            "a call of this kind may send at most {limit} bytes"
        )))
    }
}

/// Where a request stands in gRPC's framing: each message is a 5-byte head (a compression flag
/// and the message's length) and then that many bytes, and a head may come split over frames.
#[derive(Debug, Default)]
struct Framing {
    head: [u8; 5],
    head_read: usize,
    /// The message in progress, its head included.
    message: usize,
    body_left: usize,
}

impl Framing {
    /// Reads `data`; fails with the length a head declares when the message, its head
    /// included, would be past `limit`.
    fn read(&mut self, mut data: &[u8], limit: usize) -> Result<(), usize> {
        while !data.is_empty() {
            if self.body_left > 0 {
                let n = self.body_left.min(data.len());
                self.body_left -= n;
                data = &data[n..];
                continue;
            }
            let n = (self.head.len() - self.head_read).min(data.len());
            self.head[self.head_read..self.head_read + n].copy_from_slice(&data[..n]);
            self.head_read += n;
            data = &data[n..];
            if self.head_read == self.head.len() {
                self.head_read = 0;
                let [_, length @ ..] = self.head;
                let declared = u32::from_be_bytes(length) as usize;
                if declared.saturating_add(self.head.len()) > limit {
                    return Err(declared);
                }
                self.message = declared + self.head.len();
                self.body_left = declared;
            }
        }
        Ok(())
    }

    /// What the port holds for the message in progress: all of it once its head has come (tonic
    /// reserves the declared length), the part of its head otherwise, nothing between messages.
    fn in_progress(&self) -> usize {
        if self.body_left > 0 {
            self.message
        } else {
            self.head_read
        }
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
                if let Some(data) = frame.data_ref()
                    && let Err(err) = this.read(data)
                {
                    return Poll::Ready(Some(Err(err)));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A message's head: no compression, `len` bytes to follow.
    fn head(len: u32) -> Vec<u8> {
        let mut head = vec![0];
        head.extend_from_slice(&len.to_be_bytes());
        head
    }

    #[test]
    fn a_message_holds_its_declared_length_from_its_head_however_its_frames_are_cut() {
        let mut framing = Framing::default();
        let first = [head(100), vec![7; 10]].concat();
        // The head comes in two pieces: its part is held, then the whole declared message.
        assert_eq!(framing.read(&first[..3], 1_000), Ok(()));
        assert_eq!(framing.in_progress(), 3);
        assert_eq!(framing.read(&first[3..], 1_000), Ok(()));
        assert_eq!(framing.in_progress(), 105);
        assert_eq!(framing.read(&[7; 90], 1_000), Ok(()));
        assert_eq!(framing.in_progress(), 0, "whole");
        // A second message in the same frame as the end of a first (a stream's).
        let next = [head(2), vec![1, 2], head(50)].concat();
        assert_eq!(framing.read(&next, 1_000), Ok(()));
        assert_eq!(framing.in_progress(), 55);
    }

    #[test]
    fn a_head_that_declares_more_than_the_limit_is_refused_whatever_follows_it() {
        assert_eq!(Framing::default().read(&head(996), 1_000), Err(996));
        assert_eq!(Framing::default().read(&head(995), 1_000), Ok(()));
        assert_eq!(
            Framing::default().read(&head(u32::MAX), u32::MAX as usize),
            Err(u32::MAX as usize)
        );
    }
}
