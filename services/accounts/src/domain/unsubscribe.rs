//! Leaving the club: the list of reasons, the identity check of both steps, the erasure of
//! the member's personal data, and auth's `DisableCredentials` with its background retry.
//!
//! Both steps need the member's current password (step-up, issue #16: the document and email
//! are shown by the profile to whoever holds the session): an empty one is refused on its field
//! before anything else, and for a member still in the club auth checks it after the identity
//! check (a caller who already left has no credentials to check). Both steps also ask the
//! member to type their document and email; they must be the caller's own
//! (document in canonical form, email trimmed and case-insensitive), else
//! `ERR_IDENTITY_MISMATCH` (logged without the typed data). A `user` that is not even a document
//! is a mismatch too. Once a member has left their email is erased, so for an unsubscribed
//! caller [`Unsubscriptions::validate`] compares the document alone and answers the date they
//! left; [`Unsubscriptions::unsubscribe`] answers `ERR_ALREADY_UNSUBSCRIBED`.
//!
//! Unsubscribing erases names, phone, birth date, gender and email and deletes the pending
//! confirmation links in one transaction; the club account, the balance and the ledger stay
//! (a member who registers again with the same document and the address they left with gets
//! them back: the erasure keeps that address's SHA-256, `left_email_digest`). Then auth disables
//! the credentials and revokes every session ([`LoginEmails::disable_credentials`]); when auth
//! fails the member has still left (their data is already gone), and
//! the address the member had gets a "Te diste de baja de Mi Club" notice (written to the mail
//! outbox in the erasure's transaction, to the address read before it, so that a process that
//! dies or a mail relay that is down loses neither; `miclub_platform::notify::outbox`), and
//! [`Unsubscriptions::retry_periodically`] calls auth again for every unsubscribed member whose
//! `credentials_disabled_at` is still empty, until it answers.
//!
//! Neither step lets a member leave while the restore link of an email change is still usable
//! (`ERR_EMAIL_CHANGED_RECENTLY`, dated): leaving would erase the owner's way back.

use std::sync::Arc;
use std::time::Duration;

use miclub_platform::identity::LoginId;
use miclub_platform::notify::{MailOutbox, Notice};
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;

use super::email_links::chile_date_time;
use super::profile::{StepUp, step_up_messages, verify_current_password};
use super::{Document, Email, LoginEmails, MemberId, MemberState};
use crate::error::{AccountsError, Result};
use crate::store::Store;

/// One reason a member may give for leaving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnsubscribeReason {
    pub id: i32,
    /// Spanish text the member reads.
    pub label: &'static str,
    /// The member must write the reason ("Otro motivo").
    pub requires_text: bool,
}

/// The reasons, in display order.
pub const UNSUBSCRIBE_REASONS: &[UnsubscribeReason] = &[
    UnsubscribeReason {
        id: 1,
        label: "No uso los beneficios del club",
        requires_text: false,
    },
    UnsubscribeReason {
        id: 2,
        label: "Recibo demasiados correos o mensajes",
        requires_text: false,
    },
    UnsubscribeReason {
        id: 3,
        label: "Ya no compro en el supermercado",
        requires_text: false,
    },
    UnsubscribeReason {
        id: 4,
        label: "Me preocupa el uso de mis datos personales",
        requires_text: false,
    },
    UnsubscribeReason {
        id: 5,
        label: "Los beneficios no me convencen",
        requires_text: false,
    },
    UnsubscribeReason {
        id: 99,
        label: "Otro motivo",
        requires_text: true,
    },
];

/// The Spanish texts of the reason step.
pub mod messages {
    pub const REASON_ID: &str = "Selecciona un motivo de la lista.";
    pub const REASON_TEXT: &str = "Cuéntanos el motivo en hasta 500 caracteres.";
}

/// A reason of the list, with the member's text when the reason requires one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsubscribeChoice {
    reason: UnsubscribeReason,
    text: Option<String>,
}

impl UnsubscribeChoice {
    pub const MAX_TEXT_CHARS: usize = 500;

    /// `text` is required (trimmed, 1 to 500 characters, no control characters but line
    /// breaks) for a reason that requires it, and ignored otherwise.
    pub fn new(reason_id: i64, text: &str) -> Result<Self> {
        let reason = UNSUBSCRIBE_REASONS
            .iter()
            .find(|reason| i64::from(reason.id) == reason_id)
            .copied()
            .ok_or_else(|| AccountsError::invalid_field("reason_id", messages::REASON_ID))?;
        if !reason.requires_text {
            return Ok(Self { reason, text: None });
        }
        let text = text.trim();
        let valid = !text.is_empty()
            && text.chars().count() <= Self::MAX_TEXT_CHARS
            && !text
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'));
        if !valid {
            return Err(AccountsError::invalid_field(
                "reason_text",
                messages::REASON_TEXT,
            ));
        }
        Ok(Self {
            reason,
            text: Some(text.to_owned()),
        })
    }

    pub fn reason_id(&self) -> i32 {
        self.reason.id
    }

    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }
}

/// What the member typed to prove it is them: a document and an email, as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentityClaim {
    /// `None` when the text is not a document at all (it then matches nobody).
    login: Option<LoginId>,
    /// Trimmed and lowercased.
    email: String,
}

impl IdentityClaim {
    pub fn new(user: &str, email: &str) -> Self {
        Self {
            login: LoginId::parse(user).ok(),
            email: email.trim().to_lowercase(),
        }
    }

    fn names_document(&self, document: &Document) -> bool {
        self.login.as_ref().is_some_and(|login| {
            login.kind() == document.document_type().as_str()
                && login.canonical() == document.canonical()
        })
    }

    fn names_email(&self, email: &str) -> bool {
        !self.email.is_empty() && self.email == email.trim().to_lowercase()
    }
}

/// Subject of the notice a member gets on leaving.
pub const UNSUBSCRIBE_NOTICE_SUBJECT: &str = "Te diste de baja de Mi Club";

/// The unsubscribe use cases and the background retry of auth's part.
#[derive(Debug, Clone)]
pub struct Unsubscriptions {
    store: Store,
    auth: Arc<dyn LoginEmails>,
    outbox: MailOutbox,
}

/// Members handed to auth per round of the background retry.
const RETRY_BATCH: i64 = 100;

impl Unsubscriptions {
    pub fn new(store: Store, auth: Arc<dyn LoginEmails>, outbox: MailOutbox) -> Self {
        Self {
            store,
            auth,
            outbox,
        }
    }

    pub fn reasons(&self) -> &'static [UnsubscribeReason] {
        UNSUBSCRIBE_REASONS
    }

    /// Step 1: `None` when the caller may go on, `Some(instant)` (Unix milliseconds) when they
    /// already left then. For a caller who left, the document alone is compared: their email
    /// was erased when they left.
    pub async fn validate(
        &self,
        member_id: &MemberId,
        claim: &IdentityClaim,
        step_up: &StepUp,
    ) -> Result<Option<i64>> {
        require_password(member_id, step_up)?;
        match self.caller(member_id).await? {
            MemberState::Unsubscribed(member) if claim.names_document(&member.document) => {
                tracing::info!(member_id = %member_id, "unsubscribe validated: already left");
                Ok(Some(member.unsubscribed_at))
            }
            MemberState::Live(record)
                if claim.names_document(&record.member.document)
                    && claim.names_email(record.member.email.as_str()) =>
            {
                self.verify_password(member_id, step_up).await?;
                self.refuse_while_restorable(member_id, now_millis())
                    .await?;
                tracing::info!(member_id = %member_id, "unsubscribe validated");
                Ok(None)
            }
            _ => Err(mismatch(member_id, "validate")),
        }
    }

    /// Step 2: erases the member's personal data (one transaction), then has auth disable the
    /// credentials; answers the instant the member left.
    pub async fn unsubscribe(
        &self,
        member_id: &MemberId,
        claim: &IdentityClaim,
        choice: &UnsubscribeChoice,
        step_up: &StepUp,
    ) -> Result<i64> {
        require_password(member_id, step_up)?;
        let record = match self.caller(member_id).await? {
            MemberState::Unsubscribed(member) if claim.names_document(&member.document) => {
                tracing::info!(member_id = %member_id, "unsubscribe refused: already left");
                return Err(AccountsError::AlreadyUnsubscribed);
            }
            MemberState::Live(record)
                if claim.names_document(&record.member.document)
                    && claim.names_email(record.member.email.as_str()) =>
            {
                record
            }
            _ => return Err(mismatch(member_id, "unsubscribe")),
        };
        self.verify_password(member_id, step_up).await?;
        let now = now_millis();
        self.refuse_while_restorable(member_id, now).await?;
        // The address is read before the erasure: the notice is the only way left to tell them.
        let notice = notice(&record.member.email, now);
        // The email guards the update, so a change of address since the check is a mismatch;
        // the update also re-checks that no restore link became usable since.
        if !self
            .store
            .unsubscribe_member(member_id, &claim.email, choice, &notice, now)
            .await?
        {
            return match self.caller(member_id).await? {
                MemberState::Unsubscribed(_) => Err(AccountsError::AlreadyUnsubscribed),
                MemberState::Live(_) => {
                    self.refuse_while_restorable(member_id, now).await?;
                    Err(mismatch(member_id, "unsubscribe"))
                }
            };
        }
        tracing::info!(
            member_id = %member_id,
            reason_id = choice.reason_id(),
            "member unsubscribed, personal data erased"
        );
        self.outbox.ring();
        if let Err(err) = self.disable_credentials(member_id, now).await {
            tracing::warn!(
                member_id = %member_id,
                error = %err,
                "credentials not disabled yet; the background task will retry"
            );
        }
        Ok(now)
    }

    /// One round of the retry: asks auth to disable the credentials of every unsubscribed
    /// member still waiting for it; answers how many auth disabled. A failure of one member
    /// does not stop the others.
    pub async fn disable_pending_credentials(&self) -> Result<usize> {
        let waiting = self.store.credentials_to_disable(RETRY_BATCH).await?;
        let mut disabled = 0;
        for (member_id, unsubscribed_at) in &waiting {
            match self.disable_credentials(member_id, *unsubscribed_at).await {
                Ok(()) => disabled += 1,
                Err(err) => {
                    tracing::warn!(member_id = %member_id, error = %err, "credentials still not disabled");
                }
            }
        }
        Ok(disabled)
    }

    /// Runs [`Unsubscriptions::disable_pending_credentials`] every `interval` until `shutdown`.
    pub async fn retry_periodically(self, interval: Duration, shutdown: Shutdown) {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stopped = shutdown.wait();
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                () = &mut stopped => break,
                _ = ticks.tick() => {}
            }
            match self.disable_pending_credentials().await {
                Ok(0) => {}
                Ok(disabled) => tracing::info!(disabled, "pending credentials disabled"),
                Err(err) => tracing::error!(error = %err, "retrying credential disabling failed"),
            }
        }
        tracing::info!("credential disabling retry stopped");
    }

    /// Auth's `DisableCredentials`, then the record that it happened.
    async fn disable_credentials(&self, member_id: &MemberId, unsubscribed_at: i64) -> Result<()> {
        self.auth
            .disable_credentials(member_id, unsubscribed_at)
            .await?;
        self.store
            .mark_credentials_disabled(member_id, now_millis())
            .await?;
        tracing::info!(member_id = %member_id, "credentials disabled at auth");
        Ok(())
    }

    /// The cooling-off after an email change: while the previous address may still restore
    /// itself (unused link, 7 days), leaving is refused, dated by when the last link expires.
    /// Without it, whoever took the account over (password and a session, then an address of
    /// their own) could leave the club and so void the owner's link: the erasure deletes it and
    /// the notice of leaving goes to the taker's address.
    async fn refuse_while_restorable(&self, member_id: &MemberId, now: i64) -> Result<()> {
        match self.store.live_restore_until(member_id, now).await? {
            Some(until) => {
                tracing::info!(
                    member_id = %member_id,
                    until,
                    "unsubscribe refused: an email change may still be restored"
                );
                Err(AccountsError::EmailChangedRecently { until })
            }
            None => Ok(()),
        }
    }

    async fn verify_password(&self, member_id: &MemberId, step_up: &StepUp) -> Result<()> {
        verify_current_password(
            self.auth.as_ref(),
            member_id,
            step_up,
            step_up_messages::UNSUBSCRIBE,
        )
        .await
    }

    async fn caller(&self, member_id: &MemberId) -> Result<MemberState> {
        self.store
            .member_state(member_id)
            .await?
            .ok_or(AccountsError::MemberNotFound)
    }
}

/// "Te diste de baja de Mi Club" to `email`: when (`at`), and what to do if it was not them.
fn notice(email: &Email, at: i64) -> Notice {
    let when = chile_date_time(at);
    Notice {
        to: email.as_str().to_owned(),
        subject: UNSUBSCRIBE_NOTICE_SUBJECT.to_owned(),
        body: format!(
            "Hola:\n\n\
             El {when} (hora de Chile) te diste de baja de Mi Club. Borramos tus datos \
             personales y tu cuenta ya no permite iniciar sesión. Tus pesos acumulados se \
             conservan: si vuelves a registrarte con el mismo documento y este mismo correo, \
             los recuperas.\n\n\
             Si no fuiste tú, alguien usó tu sesión y tu contraseña: regístrate de nuevo en Mi \
             Club con tu documento y este correo para recuperar tu cuenta y tus pesos, usa una \
             contraseña nueva y escríbenos a través de la sección de ayuda del portal. Mi Club \
             nunca te pedirá tu contraseña ni tus códigos por correo.\n"
        ),
    }
}

/// An empty current password is refused on its field before anything is read or asked.
fn require_password(member_id: &MemberId, step_up: &StepUp) -> Result<()> {
    if step_up.password.is_empty() {
        tracing::info!(member_id = %member_id, "unsubscribe refused: no current password");
        return Err(AccountsError::invalid_field(
            "current_password",
            step_up_messages::UNSUBSCRIBE,
        ));
    }
    Ok(())
}

/// The refusal of typed data that is not the caller's; the log says which step, never the data.
fn mismatch(member_id: &MemberId, step: &'static str) -> AccountsError {
    tracing::info!(member_id = %member_id, step, "unsubscribe identity mismatch");
    AccountsError::IdentityMismatch
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::DocumentType;

    #[test]
    fn the_reasons_are_those_of_the_spec_and_only_the_last_asks_for_text() {
        let ids: Vec<i32> = UNSUBSCRIBE_REASONS.iter().map(|r| r.id).collect();
        assert_eq!(ids, [1, 2, 3, 4, 5, 99]);
        let with_text: Vec<i32> = UNSUBSCRIBE_REASONS
            .iter()
            .filter(|r| r.requires_text)
            .map(|r| r.id)
            .collect();
        assert_eq!(with_text, [99]);
    }

    #[test]
    fn a_reason_off_the_list_is_refused_on_its_field() {
        for bad in [0, 6, 98, 100, -1] {
            assert!(matches!(
                UnsubscribeChoice::new(bad, ""),
                Err(AccountsError::InvalidField {
                    field: "reason_id",
                    ..
                })
            ));
        }
    }

    #[test]
    fn other_needs_one_to_five_hundred_characters_and_the_rest_ignore_the_text() {
        assert_eq!(UnsubscribeChoice::new(1, "algo").unwrap().text(), None);
        assert_eq!(
            UnsubscribeChoice::new(99, "  Me mudo  ").unwrap().text(),
            Some("Me mudo")
        );
        assert!(UnsubscribeChoice::new(99, &"ñ".repeat(500)).is_ok());
        for bad in [
            String::new(),
            "   ".into(),
            "ñ".repeat(501),
            "a\u{0}b".into(),
        ] {
            assert!(
                matches!(
                    UnsubscribeChoice::new(99, &bad),
                    Err(AccountsError::InvalidField {
                        field: "reason_text",
                        ..
                    })
                ),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn the_claim_compares_the_canonical_document_and_the_email_without_case() {
        let document = Document::parse(DocumentType::Rut, "12345678-5").unwrap();
        let claim = IdentityClaim::new("12.345.678-5", " Ana@Correo.CL ");
        assert!(claim.names_document(&document));
        assert!(claim.names_email("ana@correo.cl"));
        assert!(!claim.names_email(""));
        assert!(!IdentityClaim::new("11.111.111-1", "").names_document(&document));
        assert!(!IdentityClaim::new("no es rut", "").names_document(&document));
        let foreign = Document::parse(DocumentType::Foreign, "P1234567").unwrap();
        assert!(IdentityClaim::new("p1234567", "").names_document(&foreign));
    }
}
