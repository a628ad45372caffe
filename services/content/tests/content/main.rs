//! Content tested from the outside: the real `Application` on port 0, called over gRPC, on
//! PostgreSQL + Redis and on SQLite + memory (`backend_tests!`): terms versions, the catalog and
//! its seeding, the runtime flags, the simulator, and the simulator's parity with purchase
//! posting in the real accounts service; and the real `miclub-content` binary draining on
//! SIGTERM under load (`shutdown`); and the PostgreSQL and SQLite migrations building the same
//! schema (`schema`).

mod catalog;
mod flags;
mod health;
mod posting_parity;
mod schema;
mod shutdown;
mod simulator;
mod support;
mod terms;
