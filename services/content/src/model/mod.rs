//! The content model: the entities the service keeps and serves (the terms and conditions and
//! their versions, the catalog of promotions, partner benefits, banners and FAQs, and the
//! runtime flags) with their plain field types.
//!
//! This is the ground floor of the service: [`store`](crate::store) reads and writes these
//! values, [`seed`](crate::seed) ships them, [`domain`](crate::domain) serves them and
//! [`grpc`](crate::grpc) turns them into answers, so this module imports none of those. Every
//! entity validates on construction (its `…Fields` struct is the unvalidated input), so an
//! entity that exists is a valid one. Prost types never come in here.

mod catalog;
mod flags;
mod terms;

pub use catalog::{
    Alliance, AllianceFields, Banner, BannerFields, Faq, FaqAudience, FaqFields, Promotion,
    PromotionFields,
};
pub use flags::{FlagName, Flags};
pub use terms::{Terms, TermsVersion, shipped_terms};
