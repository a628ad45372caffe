//! Missions tested from the outside: the real `Application` on port 0, called over gRPC with
//! tokens of the tests' own keys, reading purchase events from an in-memory bus, recording
//! rewards on a fake accounts that keeps each call; the same database is also driven through
//! the domain for the concurrent and redelivery cases. On PostgreSQL + Redis and on SQLite +
//! memory (`backend_tests!`). The PostgreSQL and SQLite migrations build the same schema
//! (`schema`).

mod access;
mod health;
mod progress;
mod redelivery;
mod rewards;
mod schema;
mod seed;
mod support;
