//! What one caller can make a port hold with answers it does not take.
//!
//! HTTP/2 sends an answer only as far as the caller's window allows, and a caller chooses its
//! window: one that sets it to 0 and never opens it leaves every answer with the port, its
//! stream and its call with it (about 9 KiB each, measured on the release binary). The call
//! timeout does not end them, since the service has answered; only the connection's maximum
//! age and grace do, five minutes later. With no token at all, 250 connections × 200 health
//! checks so left took a release binary from 83 MiB to 558 MiB.
//!
//! So an answer holds one of its caller's [`Allowance::unsent`] from the moment hyper takes a
//! frame of it until hyper asks for the next, which it does once that frame has gone into the
//! caller's window. A caller that reads its answers gives each place back at once; one that
//! does not keeps at most its share, and an answer past it is not sent: its stream is reset,
//! as a caller that leaves its answers with the port has given them up. The caller is the
//! member, the client or, for open calls, the address, so a stranger sharing an address with
//! others (a NAT, a mesh's sidecar) who leaves its share unread has the others' open answers
//! reset too; the count of calls waiting for their request is a separate share, so stalled
//! requests do not do that.
//!
//! [`Allowance::unsent`]: super::Allowance::unsent

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

use super::Access;
use super::arriving::{Caller, Shares, past_share};
use crate::listener::Counted;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Whose answer is being sent, and the share it counts against.
pub(crate) struct Answering {
    caller: Caller,
    cap: usize,
    shares: Shares,
}

impl Answering {
    pub(crate) fn new(caller: Caller, access: Access, shares: Shares) -> Self {
        Self {
            caller,
            cap: access.allowance().unsent,
            shares,
        }
    }

    /// The answer's `body`, followed until the caller has room for it.
    pub(crate) fn send(self, body: axum::body::Body) -> Unsent {
        Unsent {
            body,
            answering: self,
            held: None,
        }
    }
}

/// An answer's body, holding its caller's place while a frame of it waits for the caller's
/// window (see the module header).
pub(crate) struct Unsent {
    body: axum::body::Body,
    answering: Answering,
    held: Option<Counted<Caller>>,
}

impl Body for Unsent {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        // Asked for more: the frame given last has gone into the caller's window.
        this.held = None;
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) if frame.is_data() => {
                let Answering {
                    caller,
                    cap,
                    shares,
                } = &this.answering;
                match shares.hold_unsent(caller, *cap) {
                    Some(held) => {
                        this.held = Some(held);
                        Poll::Ready(Some(Ok(frame)))
                    }
                    None => {
                        let status = past_share(None, Some(caller), "answers unsent", *cap);
                        Poll::Ready(Some(Err(Box::new(status))))
                    }
                }
            }
            other => other.map_err(Into::into),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
