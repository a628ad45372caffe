//! Accounts tested from the outside: the real `Application` on port 0, called over gRPC, on
//! PostgreSQL + Redis and on SQLite + memory (`backend_tests!`), plus the store's ledger rules,
//! missions' rewards, registration and unsubscribing, the relay of purchase events to the event
//! bus, and a PostgreSQL restart under a load of postings ([`fault_drills`]); and the PostgreSQL
//! and SQLite migrations building the same schema ([`schema`]).

mod access;
mod account_security;
mod balance;
mod card;
mod email;
mod fault_drills;
mod health;
mod joining;
mod leaving;
mod ledger;
mod member;
mod movement_detail;
mod movements;
mod outbox;
mod posting;
mod profile;
mod registration_and_unsubscribe;
mod registration_email;
mod rewards;
mod schema;
mod seed;
mod support;
mod terms;
