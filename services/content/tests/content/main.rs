//! Content tested from the outside: the real `Application` on port 0, called over gRPC, on
//! PostgreSQL + Redis and on SQLite + memory (`backend_tests!`), plus the store's rules about
//! terms versions.

mod health;
mod support;
mod terms;
