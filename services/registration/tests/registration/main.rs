//! Registration tested from the outside: the real `Application` on port 0, called over gRPC,
//! with in-memory fakes of accounts, auth and content that keep members and credentials in maps
//! and can be told to fail once; on PostgreSQL + Redis and on SQLite + memory
//! (`backend_tests!`). Expiry is tested through the domain with a clock the test moves, and the
//! remote identity verifier against a tiny in-test gRPC server. The PostgreSQL and SQLite
//! migrations build the same schema (`schema`).

mod cancellation;
mod completion;
mod health;
mod real_services;
mod schema;
mod steps;
mod support;
mod verifier;
