//! Serves the built web app: the build's `.br`/`.gz` copies when the browser accepts them,
//! hashed assets cached for a year, `index.html` never cached, and
//! every other path answered with `index.html` so client-side routes survive a reload.

use std::path::Path;

use axum::Router;
use axum::http::{HeaderValue, header};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

pub fn router<S: Clone + Send + Sync + 'static>(dir: &Path) -> Router<S> {
    let assets = Router::new()
        .fallback_service(
            ServeDir::new(dir.join("assets"))
                .precompressed_br()
                .precompressed_gzip(),
        )
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=31536000, immutable"),
        ));
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
