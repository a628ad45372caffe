//! A whole-body deadline for requests that carry one. The header timeout ([`super`]) ends a
//! connection that stalls before its request head is whole; without this, a client could send
//! the head at once and then trickle the body a byte at a time, holding the connection for as
//! long as the body limit lets it. The deadline runs from the moment the head arrived, over
//! the whole body (not between pieces, which a trickle would keep renewing); a body still
//! incomplete then ends in [`BodyTimedOut`], which the gateway's JSON extractor answers with
//! 408 `ERR_REQUEST_TIMEOUT`, and hyper closes the connection, since its body was never read
//! to the end.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};
use std::future::Future;

use tokio::time::Sleep;

/// `body`, ending in [`BodyTimedOut`] if it is not whole within `limit` of now. An empty body
/// is returned as it is, so requests without one (most of them) pay for no timer.
pub fn with_deadline<B>(body: B, limit: Duration) -> Body
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    if body.is_end_stream() {
        return Body::new(body);
    }
    Body::new(Deadlined {
        inner: Body::new(body),
        deadline: Box::pin(tokio::time::sleep(limit)),
        limit,
    })
}

/// The error a body ends in when its deadline passes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTimedOut(pub Duration);

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request body was not whole within {:?}", self.0)
    }
}

impl std::error::Error for BodyTimedOut {}

struct Deadlined {
    inner: Body,
    deadline: Pin<Box<Sleep>>,
    limit: Duration,
}

impl http_body::Body for Deadlined {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        match this.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(BodyTimedOut(this.limit).into()))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use crate::error::caused_by;
    use http_body_util::BodyExt;
    use tokio_stream::StreamExt;

    use super::*;

    /// A body that sends one byte, then nothing more: a trickle stalled for good.
    fn stalled() -> Body {
        let first = tokio_stream::once(Ok::<_, std::io::Error>(Bytes::from_static(b"{")));
        Body::from_stream(first.chain(tokio_stream::pending()))
    }

    #[tokio::test]
    async fn a_body_not_whole_by_its_deadline_ends_in_an_error_that_says_so() {
        let body = with_deadline(stalled(), Duration::from_millis(100));
        let error = body.collect().await.expect_err("the deadline ends it");
        assert!(
            caused_by::<BodyTimedOut>(&*error.into_inner()).is_some(),
            "named"
        );
    }

    #[tokio::test]
    async fn a_body_whole_in_time_is_read_unchanged() {
        let body = with_deadline(Body::from("{\"a\":1}"), Duration::from_secs(5));
        let bytes = body.collect().await.unwrap().to_bytes();
        assert_eq!(&bytes[..], b"{\"a\":1}");
    }

    #[test]
    fn another_error_is_not_taken_for_a_deadline() {
        let other = std::io::Error::other("reset");
        assert!(caused_by::<BodyTimedOut>(&other).is_none());
    }
}
