//! Liveness of the gateway and its published contract.

use std::sync::Arc;

use axum::{Extension, Json};
use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    pub status: &'static str,
}

#[utoipa::path(get, path = "/api/health", tag = "meta", responses((status = 200, body = Health)))]
pub async fn health() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// The document the router was built from (added as an extension by [`super::api_router`]).
#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", responses((status = 200, description = "This document")))]
pub async fn openapi(
    Extension(document): Extension<Arc<utoipa::openapi::OpenApi>>,
) -> Json<utoipa::openapi::OpenApi> {
    Json(document.as_ref().clone())
}
