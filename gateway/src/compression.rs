//! Compression of the gateway's answers (gzip or brotli, as the browser's `Accept-Encoding`
//! asks): JSON and any other text of 1 KiB or more. Left as they are: smaller answers (the
//! header and the compressor cost more than they save), images other than SVG (already
//! compressed), event streams and gRPC, answers that already carry a `Content-Encoding` (the web
//! app's precompressed `.br`/`.gz` files) and ranges.
//!
//! BREACH: a compressed answer leaks, through its length, how well an attacker's input matched a
//! secret in the same body. The CSRF defence holds no secret (a custom header, not a token), so
//! only the answers that hand out session material matter: those set cookies (the code step,
//! the refresh, the logout, a recovery or a registration step), and the code step and the
//! refresh also return the access token in the body. Any answer with a `Set-Cookie` is therefore
//! sent uncompressed, whatever its size; the rest carry no credential.

use axum::http::{Extensions, HeaderMap, StatusCode, Version, header};
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};

/// The smallest answer worth compressing, in bytes.
pub const MIN_SIZE: u64 = 1024;

/// The layer, with the rules above.
pub fn layer() -> CompressionLayer<impl Predicate> {
    CompressionLayer::new()
        .gzip(true)
        .br(true)
        .compress_when(rules())
}

/// What may be compressed (the `Accept-Encoding` of the request decides whether it is).
pub fn rules() -> impl Predicate {
    SizeAbove::new(MIN_SIZE)
        .and(NotForContentType::GRPC)
        .and(NotForContentType::IMAGES)
        .and(NotForContentType::SSE)
        .and(no_session_material)
}

/// Answers that set a cookie carry session material (and, for some, the token in the body).
fn no_session_material(
    _status: StatusCode,
    _version: Version,
    headers: &HeaderMap,
    _extensions: &Extensions,
) -> bool {
    !headers.contains_key(header::SET_COOKIE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use axum::http::Response;

    fn answer(size: usize, content_type: &str, cookie: bool) -> Response<Body> {
        let mut builder = Response::builder().header(header::CONTENT_TYPE, content_type);
        if cookie {
            builder = builder.header(header::SET_COOKIE, "mc_session=x; HttpOnly");
        }
        builder.body(Body::from(vec![b'a'; size])).unwrap()
    }

    #[test]
    fn json_of_a_kilobyte_or_more_is_compressed_and_smaller_is_not() {
        assert!(rules().should_compress(&answer(1024, "application/json", false)));
        assert!(!rules().should_compress(&answer(1023, "application/json", false)));
    }

    #[test]
    fn an_answer_that_sets_a_cookie_is_never_compressed() {
        assert!(!rules().should_compress(&answer(50_000, "application/json", true)));
    }

    #[test]
    fn raster_images_are_left_alone_but_svg_is_compressed() {
        assert!(!rules().should_compress(&answer(50_000, "image/webp", false)));
        assert!(rules().should_compress(&answer(50_000, "image/svg+xml", false)));
        assert!(!rules().should_compress(&answer(50_000, "text/event-stream", false)));
    }
}
