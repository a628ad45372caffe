//! The accounts domain: members, their club account (with the member card's number) and the
//! ledger behind its balance; the profile, registration (pending → active members) and
//! unsubscribing, with the budget of mail an address can be sent by whoever types it; the relay
//! of purchase events from the outbox to the event bus.
//!
//! Every type here validates on construction, so a value that exists is a valid one; `grpc.rs`
//! builds them from proto messages and `store.rs` from rows. Prost types never come in here.

mod accounts;
mod address_mails;
mod card;
mod change_notice;
mod email_links;
mod ledger;
mod member;
mod outbox;
mod profile;
mod purchase;
mod registration;
mod unsubscribe;

pub use accounts::{Accounts, MemberCard};
pub use address_mails::MAILS_PER_ADDRESS;
pub use card::CardNumber;
pub use change_notice::{ChangeNotices, DueNotice, NoticeRound};
pub use email_links::{
    ConfirmationSettings, ConfirmationToken, EmailConfirmation, NewConfirmation, NewRestore,
    StoredConfirmation, StoredRestore,
};
pub use ledger::{
    Balance, Ledger, ManualMovement, Month, Movement, MovementDetail, MovementId, MovementKind,
    MovementStatus, MovementsPage, NewPurchase, OutboxEvent, PageRequest, PurchaseExplanation,
    Reason, RecordedMovement, StoredMovementDetail, StoredPurchase, parse_instant, requested_month,
};
pub use member::{
    BirthDate, Document, DocumentType, Email, GENDERS, Gender, GenderId, Member, MemberId,
    MemberRecord, MemberState, MemberStatus, PersonName, PhoneNumber, TermsAgreement,
    TermsDecision, UnsubscribedMember,
};
pub use outbox::{OutboxRelay, RelayRound};
pub use profile::{
    CONFIRMATION_SUBJECT, EMAIL_CHANGED_SUBJECT, EMAIL_IN_USE_SUBJECT, LoginEmails, Profile,
    ProfileChanges, RESEND_WINDOW, RESENDS_PER_WINDOW, RESTORE_TTL, StepUp, TermsVersion,
    UpdatedProfile, step_up_messages,
};
pub use purchase::{
    IdempotencyKey, MemberDocument, MemberKey, OrderLine, PostedPurchase, ProductCategoryId,
    PurchaseOrder, StoreId, StoreName, payment_method_from_str, payment_method_str,
};
pub use registration::{
    Activation, Enrolment, InUseNotices, NOTICE_SUBJECT, NewMemberProfile, Registration,
    RegistrationForm, left_email_digest,
};
pub use unsubscribe::{
    IdentityClaim, UNSUBSCRIBE_NOTICE_SUBJECT, UNSUBSCRIBE_REASONS, UnsubscribeChoice,
    UnsubscribeReason, Unsubscriptions,
};

use crate::error::AccountsError;

/// Checks the shape shared by every opaque id (member ids, movement ids): 1 to 64 ASCII
/// letters, digits, `-`, `_`, `:` or `.`.
fn check_id(field: &'static str, raw: &str) -> Result<(), AccountsError> {
    let valid = !raw.is_empty()
        && raw.len() <= 64
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'));
    if valid {
        Ok(())
    } else {
        Err(AccountsError::invalid(field, "not a valid id"))
    }
}
