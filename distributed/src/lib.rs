//! The production topology on one machine (issue #17): the six binaries the container images
//! run, as six processes in the production profile, on the local PostgreSQL and Redis, each
//! configured from the rendered Kubernetes dev overlay so the manifests and the binaries cannot
//! drift. `scripts/run --distributed` runs it through the `miclub-distributed` binary; the
//! tests in `tests/` start it on free ports.
//!
//! - [`manifests`]: the rendered overlay as data;
//! - [`plan`]: a workload's environment, arguments and files, with only hosts, ports and paths
//!   rewritten;
//! - [`secrets`]: the table that produces each referenced Secret key; [`pki`]: the local CA;
//! - [`postgres`]: one database and role per service; [`redis_keys`]: a test run's keys;
//! - [`mailcatcher`], [`recaptcha`]: the local stand-ins of the SMTP relay and of siteverify;
//! - [`service_proxy`]: the Services, forwarding to the ready processes (rolling restarts);
//! - [`processes`], [`readiness`], [`topology`]: starting, waiting on and stopping them;
//!   [`stop_signals`]: the signals that stop it, and who sent them.

pub mod mailcatcher;
pub mod manifests;
pub mod pki;
pub mod plan;
pub mod postgres;
pub mod processes;
pub mod readiness;
pub mod recaptcha;
pub mod redis_keys;
pub mod secrets;
pub mod service_proxy;
pub mod stop_signals;
pub mod topology;

pub use plan::PlanError;
pub use topology::{Manifests, Options, Running, Topology};
