//! Shared library of the Mi Club services.
//!
//! Everything two or more services need lives here, so each service is only its domain:
//! layered configuration, telemetry and trace propagation, the error-code catalogue, storage
//! (PostgreSQL or SQLite through one pool type), the ephemeral store (Redis or memory),
//! access-token verification and who may call which RPC, notifications, gRPC serving with
//! health and reflection (over TLS between processes), HTTP listeners with connection limits,
//! graceful shutdown, the start of every service binary (its modes, the migration step), member
//! identity documents (RUT), the values that name a member (id, email), the bound on mission
//! rewards, the Chilean calendar, and, behind `test-support`, test helpers.

pub mod access;
pub mod calendar;
pub mod config;
pub mod demo;
pub mod ephemeral;
pub mod error;
pub mod events;
pub mod grpc;
pub mod identity;
pub mod listener;
pub mod member;
pub mod notify;
pub mod rewards;
pub mod service;
pub mod shutdown;
pub mod storage;
pub mod telemetry;
pub mod tls;
pub mod tokens;

#[cfg(feature = "test-support")]
pub mod testing;

/// The memory allocator every binary installs (`#[global_allocator]` in each `main.rs`):
/// mimalloc. Requests allocate many small, short-lived buffers on several threads at once, and
/// glibc's allocator spent a sixth of the balance path in malloc and free, partly waiting on its
/// arena locks; mimalloc raised the path's throughput by about a fifth (`bench/gateway.sh`).
pub use mimalloc::MiMalloc as Allocator;
