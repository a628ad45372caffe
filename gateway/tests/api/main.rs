//! The gateway's REST contract against stand-in gRPC services that answer whatever a test asks
//! for, so every route and every error mapping can be driven; the real services are exercised
//! end to end by the standalone tests. One file per area; `support` holds the stand-ins and the
//! harness they share.

mod account_routes;
mod activity_marks;
mod card_routes;
mod client_address;
mod compression;
mod connection_limits;
mod content_routes;
mod contract;
mod decoders;
mod edge_limits;
mod fault_drills;
mod hardening;
mod joining_routes;
mod login_routes;
mod logout_routes;
mod ops_metrics;
mod production_start;
mod recovery_routes;
mod rejections;
mod rut_inputs;
mod security_routes;
mod session_routes;
mod support;
