//! Serves the built web app: the build's `.br`/`.gz` copies when the browser accepts them,
//! hashed assets cached for a year, `index.html` never cached, and
//! every other path answered with `index.html` so client-side routes survive a reload. A
//! missing file under `/assets/` is a plain 404, never `index.html` and never cached for a year
//! (a browser that kept it would not see the file once deployed).

use std::path::Path;

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

pub fn router<S: Clone + Send + Sync + 'static>(dir: &Path) -> Router<S> {
    let assets = Router::new()
        .fallback_service(
            ServeDir::new(dir.join("assets"))
                .precompressed_br()
                .precompressed_gzip(),
        )
        .layer(axum::middleware::map_response(cache_found_assets));
    let pages = Router::new()
        .fallback_service(
            ServeDir::new(dir)
                .precompressed_br()
                .precompressed_gzip()
                .fallback(
                    ServeFile::new(dir.join("index.html"))
                        .precompressed_br()
                        .precompressed_gzip(),
                ),
        )
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ));
    Router::new().nest("/assets", assets).merge(pages)
}

/// Hashed assets that exist are immutable; anything else from `/assets` must not be cached.
async fn cache_found_assets(mut response: Response) -> Response {
    let value = if response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED {
        "public, max-age=31536000, immutable"
    } else {
        "no-store"
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    response
}
