//! Liveness of the gateway and its published contract.

use axum::Json;
use serde::Serialize;
use utoipa::{OpenApi, ToSchema};

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    pub status: &'static str,
}

#[utoipa::path(get, path = "/api/health", tag = "meta", responses((status = 200, body = Health)))]
pub async fn health() -> Json<Health> {
    Json(Health { status: "ok" })
}

#[utoipa::path(get, path = "/api/openapi.json", tag = "meta", responses((status = 200, description = "This document")))]
pub async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(crate::openapi::ApiDoc::openapi())
}
