//! The registration domain: validated identity documents, the stored flow, the ports to the
//! services registration depends on, and the three steps themselves.

pub mod flow;
pub mod identity;
pub mod pace;
pub mod ports;
pub mod registrations;

pub use flow::{Flow, FlowId, FlowKey, PersonalData, Status, Step};
pub use identity::{CardSerial, Country, ForeignKind, Identity, IdentityInput};
pub use pace::Pace;
pub use ports::{Credentials, Enrolment, IdentityVerifier, Members, NewMember, TermsSource};
pub use registrations::{Completed, Policy, Ports, Registrations, Started};
