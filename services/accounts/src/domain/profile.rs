//! The member's own profile: the genders list, the update of the editable fields with the
//! confirmation of a new email, and the decision on the terms.
//!
//! Changing the email is a sensitive change (issue #16): the update must carry the member's
//! current password, which auth checks ([`LoginEmails::verify_password`], counted by auth's
//! password throttle) before anything is written or mailed. Updates that keep the email need
//! no password.
//!
//! A new email is confirmed in two steps. The update stores it unconfirmed and mails a link to
//! it; auth meanwhile keeps sending one-time codes to its own copy, the last confirmed address,
//! so a typo cannot lock the member out. An address that belongs to another active member is
//! stored the same way but gets no link: it gets a notice that it is already in use, and the
//! member's answer is the same as for a free address, so the form cannot tell who is a member. Opening the link hands the address to auth first
//! ([`LoginEmails`]) and only then marks it confirmed here, so a failure of auth leaves
//! everything as it was and the same link works again.
//!
//! A link carries a [`ConfirmationToken`]: 32 random bytes in base64url, of which only the
//! SHA-256 is stored. Each new link of a member supersedes the older ones.
//!
//! Confirming first claims the address for the member (`email_claims`, whose primary key
//! serialises two members confirming the same address: the second is refused). Once a new
//! address is confirmed, the previous confirmed address gets the "Tu correo de Mi Club cambió"
//! notice with a restore link (same kind of token, valid [`RESTORE_TTL`], single use), written
//! with the confirmation and mailed from that durable outbox by `change_notice.rs`. Opening
//! it ([`Profile::restore_email`]) hands the previous address back to auth, ends every session
//! of the member at auth, and only then writes it here, so a failure of auth leaves everything
//! as it was and the same link works again. Notices never carry a code or a password.
//!
//! The same links verify the email of a member who just registered (`ActivateMember`,
//! `ResendVerificationEmail`, see `registration.rs`), worded as a welcome: auth's copy of the
//! address is already that email, unverified, and the hand-over on confirmation marks it
//! verified. A member who unsubscribed has no profile any more: these calls do not find them.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use miclub_platform::ephemeral::SharedStore;
use miclub_platform::notify::{Outgoing, SharedNotifier};
use miclub_platform::storage::now_millis;
use tokio::sync::Notify;

use super::address_mails::AddressMails;
use super::email_links::{
    ConfirmationSettings, ConfirmationToken, EmailConfirmation, LinkPurpose, NewConfirmation,
    NewRestore,
};
use super::{
    BirthDate, Email, GENDERS, Gender, GenderId, Member, MemberId, MemberRecord, PersonName,
    PhoneNumber, TermsAgreement, TermsDecision,
};
use crate::error::{AccountsError, Result};
use crate::store::Store;

/// Confirmation links a member may ask for per [`RESEND_WINDOW`].
pub const RESENDS_PER_WINDOW: i64 = 5;
pub const RESEND_WINDOW: Duration = Duration::from_secs(60 * 60);

/// Subject of the confirmation mail.
pub const CONFIRMATION_SUBJECT: &str = "Confirma tu correo electrónico de Mi Club";
/// Subject of the notice to the previous address once a new one is confirmed.
pub const EMAIL_CHANGED_SUBJECT: &str = "Tu correo de Mi Club cambió";
/// Subject of the notice to an address typed by a member while another member has it.
pub const EMAIL_IN_USE_SUBJECT: &str = "Tu correo ya está registrado en Mi Club";
/// How long the link of the "Tu correo de Mi Club cambió" notice restores the previous address.
pub const RESTORE_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// Accounts' port to auth's side of a member: hands a confirmed address to auth, where
/// one-time codes are sent from, checks the current password before a sensitive change, ends
/// the member's sessions after a restored email, and disables the credentials of a member who
/// unsubscribed. (Named for its first use; it is now accounts' whole port to auth.)
/// Implemented over gRPC by [`GrpcLoginEmails`](crate::GrpcLoginEmails); tests put a fake in
/// its place.
#[async_trait]
pub trait LoginEmails: Send + Sync + fmt::Debug {
    /// Makes `email` the address auth sends `member_id`'s codes to (and marks it verified).
    /// Idempotent.
    async fn set(&self, member_id: &MemberId, email: &Email) -> Result<(), AccountsError>;

    /// Disables `member_id`'s credentials and revokes every session (auth's
    /// `DisableCredentials`). Idempotent.
    /// `unsubscribed_at` (Unix ms) lets auth ignore a late call for a member who rejoined.
    async fn disable_credentials(
        &self,
        member_id: &MemberId,
        unsubscribed_at: i64,
    ) -> Result<(), AccountsError>;

    /// Step-up: checks `member_id`'s current `password` (auth's `VerifyPassword`, throttled per
    /// member and `client_ip`). Auth's refusals (`ERR_WRONG_PASSWORD`, `ERR_TOO_MANY_ATTEMPTS`
    /// with its wait) come back as [`AccountsError::StepUpRefused`], unchanged. The default
    /// refuses: a port that cannot check a password must not let a sensitive change through.
    async fn verify_password(
        &self,
        member_id: &MemberId,
        _password: &str,
        _client_ip: &str,
    ) -> Result<(), AccountsError> {
        Err(AccountsError::Unavailable(format!(
            "no password check wired for member {member_id}"
        )))
    }

    /// Ends every session of `member_id` (auth's `EndSessions`) and answers how many. Idempotent.
    async fn end_sessions(&self, member_id: &MemberId) -> Result<u64, AccountsError> {
        Err(AccountsError::Unavailable(format!(
            "no session ending wired for member {member_id}"
        )))
    }
}

/// Checks the step-up password of a sensitive change: an empty one is refused on its field
/// with `message` before auth is asked; any other goes to auth.
pub(super) async fn verify_current_password(
    auth: &dyn LoginEmails,
    member_id: &MemberId,
    step_up: &StepUp,
    message: &'static str,
) -> Result<()> {
    if step_up.password.is_empty() {
        tracing::info!(member_id = %member_id, "sensitive change refused: no current password");
        return Err(AccountsError::invalid_field("current_password", message));
    }
    auth.verify_password(member_id, &step_up.password, &step_up.client_ip)
        .await
        .inspect_err(|err| {
            tracing::info!(member_id = %member_id, error = %err, "sensitive change refused: password not verified");
        })
}

/// The current password typed for a sensitive change, and where the member's client is.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct StepUp {
    pub password: String,
    /// Address of the member's client as the gateway saw it, for auth's throttle.
    pub client_ip: String,
}

impl fmt::Debug for StepUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StepUp")
            .field("password", &"***")
            .field("client_ip", &self.client_ip)
            .finish()
    }
}

/// Spanish texts of the step-up.
pub mod step_up_messages {
    pub const EMAIL_CHANGE: &str = "Ingresa tu contraseña actual para cambiar tu correo.";
    pub const UNSUBSCRIBE: &str = "Ingresa tu contraseña actual.";
}

/// The editable fields of a profile, each already valid; `None` clears an optional one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileChanges {
    pub email: Email,
    pub name: PersonName,
    pub last_name: PersonName,
    pub mother_surname: Option<PersonName>,
    pub phone_number: Option<PhoneNumber>,
    pub birth_date: Option<BirthDate>,
    pub gender_id: Option<GenderId>,
}

/// The outcome of a profile update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdatedProfile {
    pub record: MemberRecord,
    /// The email changed and the confirmation link was handed to the mail relay.
    pub confirmation_sent: bool,
}

/// Version of the terms text a member decided on, as content publishes it: 1 to 40
/// characters, no control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermsVersion(String);

impl TermsVersion {
    pub const MAX_CHARS: usize = 40;

    pub fn parse(raw: &str) -> Result<Self> {
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return Err(AccountsError::invalid("terms_version", "empty"));
        }
        if trimmed.chars().count() > Self::MAX_CHARS || trimmed.chars().any(char::is_control) {
            return Err(AccountsError::invalid(
                "terms_version",
                "longer than 40 characters or with control characters",
            ));
        }
        Ok(Self(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The profile use cases, what `grpc/profile.rs` calls once it knows who the caller is.
#[derive(Debug, Clone)]
pub struct Profile {
    store: Store,
    /// Counters of the resend limit.
    limits: SharedStore,
    /// What each address may be sent by whoever types it (`address_mails.rs`).
    address_mails: AddressMails,
    notifier: SharedNotifier,
    login_emails: Arc<dyn LoginEmails>,
    settings: ConfirmationSettings,
    /// The change notice relay's bell (`ChangeNotices::bell`), rung once a confirmation has
    /// written a notice.
    notices: Arc<Notify>,
}

impl Profile {
    pub fn new(
        store: Store,
        limits: SharedStore,
        notifier: SharedNotifier,
        login_emails: Arc<dyn LoginEmails>,
        settings: ConfirmationSettings,
        notices: Arc<Notify>,
    ) -> Self {
        Self {
            store,
            address_mails: AddressMails::new(limits.clone()),
            limits,
            notifier,
            login_emails,
            settings,
            notices,
        }
    }

    /// The options a profile may name as its gender.
    pub fn genders(&self) -> &'static [Gender] {
        GENDERS
    }

    /// Replaces the editable fields. A different email needs `step_up` (the current password,
    /// checked by auth before anything is written or mailed); it is stored unconfirmed and
    /// gets a confirmation link, or, when it belongs to another member, a notice that it is in
    /// use and no link (the answer is the same). When mailing fails the change still stands
    /// (the member can ask for another link) and `confirmation_sent` is false.
    pub async fn update(
        &self,
        member_id: &MemberId,
        changes: ProfileChanges,
        step_up: &StepUp,
    ) -> Result<UpdatedProfile> {
        let mut verified = false;
        let mut outcome = None;
        for _ in 0..3 {
            let current = self.member(member_id).await?;
            let email_changes = current.email != changes.email;
            if email_changes && !verified {
                verify_current_password(
                    self.login_emails.as_ref(),
                    member_id,
                    step_up,
                    step_up_messages::EMAIL_CHANGE,
                )
                .await?;
                verified = true;
                // A new email mails whatever address is typed, so changes of address count
                // against the same hourly limit as resends: the form cannot flood a mailbox.
                self.count_link(member_id).await?;
            }
            let now = now_millis();
            let in_use = email_changes
                && self
                    .store
                    .email_belongs_to_another(member_id, &changes.email, now)
                    .await?;
            let token = ConfirmationToken::generate();
            let link = (!in_use).then(|| self.new_confirmation(&token, now));
            // Written only if the email is still the one just read (and the password check
            // decided on); otherwise read again.
            if let Some(changed) = self
                .store
                .update_profile(member_id, &current.email, &changes, link.as_ref(), now)
                .await?
            {
                outcome = Some((changed, in_use, token));
                break;
            }
        }
        let Some((email_changed, in_use, token)) = outcome else {
            return Err(AccountsError::Unavailable(
                "member record kept changing".into(),
            ));
        };
        tracing::info!(member_id = %member_id, email_changed, "profile updated");
        let confirmation_sent = if !email_changed {
            false
        } else if !self.address_mails.take(&changes.email).await {
            // Told like a relay failure, for an address in use or not alike.
            tracing::info!(
                member_id = %member_id,
                "confirmation mail not sent: the address was sent its mails for the day"
            );
            false
        } else {
            let mailed = if in_use {
                tracing::info!(
                    member_id = %member_id,
                    "new email belongs to another member: in-use notice instead of a link"
                );
                self.send_in_use_notice(&changes.email).await
            } else {
                self.send_link(
                    &changes.name,
                    &changes.email,
                    &token,
                    LinkPurpose::EmailChange,
                )
                .await
            };
            match mailed {
                Ok(()) => true,
                Err(err) => {
                    self.address_mails.give_back(&changes.email).await;
                    tracing::error!(
                        member_id = %member_id,
                        error = %format!("{err:#}"),
                        "confirmation mail not sent; the member can ask for another"
                    );
                    false
                }
            }
        };
        let record = self
            .store
            .find_member(member_id)
            .await?
            .ok_or(AccountsError::MemberNotFound)?;
        Ok(UpdatedProfile {
            record,
            confirmation_sent,
        })
    }

    /// Mails a new link for the member's unconfirmed email, superseding the older ones; at
    /// most [`RESENDS_PER_WINDOW`] per [`RESEND_WINDOW`], and within the address's own budget.
    pub async fn resend_confirmation(&self, member_id: &MemberId) -> Result<()> {
        let member = self.member(member_id).await?;
        if member.email_confirmed {
            return Err(AccountsError::EmailAlreadyConfirmed);
        }
        self.count_link(member_id).await?;
        self.mail_link(member, LinkPurpose::EmailChange).await?;
        tracing::info!(member_id = %member_id, "confirmation link sent again");
        Ok(())
    }

    /// Issues a link for `member`'s unconfirmed address, superseding the older ones, and mails
    /// it. [`AccountsError::EmailAlreadyConfirmed`] when the address is (or gets) confirmed;
    /// [`AccountsError::Unavailable`] when the mail relay refuses it;
    /// [`AccountsError::TooManyAttempts`], with no link issued (the last one mailed stays
    /// valid), when the address was sent its mails for the day (`address_mails.rs`). Counts
    /// nothing per member: callers apply the hourly limit where it belongs.
    pub(super) async fn mail_link(&self, mut member: Member, purpose: LinkPurpose) -> Result<()> {
        let member_id = member.id.clone();
        let member_id = &member_id;
        if member.email_confirmed {
            return Err(AccountsError::EmailAlreadyConfirmed);
        }
        if !self.address_mails.take(&member.email).await {
            return Err(AccountsError::TooManyAttempts);
        }
        let now = now_millis();
        let token = ConfirmationToken::generate();
        let link = self.new_confirmation(&token, now);
        // The link is only issued for the address and state just read; a concurrent update or
        // confirmation makes it read again.
        for _ in 0..3 {
            if member.email_confirmed {
                return Err(AccountsError::EmailAlreadyConfirmed);
            }
            if self
                .store
                .email_belongs_to_another(member_id, &member.email, now)
                .await?
            {
                tracing::info!(
                    member_id = %member_id,
                    "email belongs to another member: in-use notice instead of a link"
                );
                let sent = self.send_in_use_notice(&member.email).await;
                return self.settle(&member.email, sent).await;
            }
            if self
                .store
                .issue_email_confirmation(member_id, &member.email, &link, now)
                .await?
            {
                let sent = self
                    .send_link(&member.name, &member.email, &token, purpose)
                    .await;
                return self.settle(&member.email, sent).await;
            }
            member = self.member(member_id).await?;
        }
        Err(AccountsError::Unavailable(
            "member record kept changing".into(),
        ))
    }

    /// Confirms the address of the link `raw_token` belongs to and answers it. The address is
    /// claimed for the member first (refused, [`AccountsError::EmailAlreadyRegistered`], when
    /// another member has it), then handed to auth, then confirmed here; when auth fails
    /// nothing changes here and the link stays valid. The previous confirmed address, if any,
    /// then gets the change notice with its restore link.
    pub async fn confirm_email(&self, raw_token: &str) -> Result<EmailConfirmation> {
        let token =
            ConfirmationToken::parse(raw_token).ok_or(AccountsError::ConfirmationInvalid)?;
        let digest = token.digest();
        let now = now_millis();
        let stored = self
            .store
            .email_confirmation(&digest)
            .await?
            .ok_or(AccountsError::ConfirmationInvalid)?;
        if stored.already_confirmed() {
            tracing::info!(member_id = %stored.member_id, "confirmation link opened again");
            return Ok(EmailConfirmation::AlreadyConfirmed);
        }
        if !stored.is_usable(now) {
            return Err(AccountsError::ConfirmationInvalid);
        }
        if !self
            .store
            .claim_email(&stored.member_id, &stored.email, now)
            .await?
        {
            tracing::warn!(
                member_id = %stored.member_id,
                "email confirmation refused: the address belongs to another member"
            );
            return Err(AccountsError::EmailAlreadyRegistered);
        }
        self.login_emails
            .set(&stored.member_id, &stored.email)
            .await?;
        let restore = stored
            .previous_email
            .as_ref()
            .filter(|previous| **previous != stored.email)
            .map(|previous| NewRestore {
                // Of a token never mailed: the notice relay mints the link's as it sends.
                digest: ConfirmationToken::generate().digest(),
                previous_email: previous.clone(),
                expires_at: now + RESTORE_TTL.as_millis() as i64,
            });
        let confirmed = self
            .store
            .complete_email_confirmation(&digest, &stored, restore.as_ref(), now)
            .await?;
        if !confirmed {
            // Used, superseded or the address changed between the check and now. A link opened
            // twice at once (a double click) finds the other open's confirmation here.
            let again = self.store.email_confirmation(&digest).await?;
            if again.is_some_and(|again| again.already_confirmed()) {
                return Ok(EmailConfirmation::AlreadyConfirmed);
            }
            return Err(AccountsError::ConfirmationInvalid);
        }
        tracing::info!(
            member_id = %stored.member_id,
            previous_told = restore.is_some(),
            "email confirmed"
        );
        if restore.is_some() {
            self.notices.notify_one();
        }
        Ok(EmailConfirmation::Confirmed(stored.email))
    }

    /// Makes the previous address of the notice link `raw_token` the member's confirmed email
    /// again: here and at auth, every session of the member ended at auth. Auth goes first, so
    /// when it fails nothing changes here and the same link works again. Answers the address.
    pub async fn restore_email(&self, raw_token: &str) -> Result<Email> {
        let token =
            ConfirmationToken::parse(raw_token).ok_or(AccountsError::ConfirmationInvalid)?;
        let digest = token.digest();
        let now = now_millis();
        let Some(stored) = self
            .store
            .email_restore(&digest)
            .await?
            .filter(|stored| stored.is_usable(now))
        else {
            tracing::info!("email restore refused: link unknown, used or expired");
            return Err(AccountsError::ConfirmationInvalid);
        };
        let member_id = &stored.member_id;
        if !self
            .store
            .claim_email(member_id, &stored.previous_email, now)
            .await?
        {
            tracing::warn!(
                member_id = %member_id,
                "email restore refused: the previous address belongs to another member now"
            );
            return Err(AccountsError::ConfirmationInvalid);
        }
        self.login_emails
            .set(member_id, &stored.previous_email)
            .await?;
        let revoked = self.login_emails.end_sessions(member_id).await?;
        if !self
            .store
            .complete_email_restore(&digest, member_id, &stored.previous_email, now)
            .await?
        {
            // Used by a concurrent request between the check and now.
            tracing::info!(member_id = %member_id, "email restore refused: link used meanwhile");
            return Err(AccountsError::ConfirmationInvalid);
        }
        tracing::warn!(
            member_id = %member_id,
            revoked_sessions = revoked,
            "previous email restored from the change notice, every session ended"
        );
        Ok(stored.previous_email)
    }

    /// Records the member's decision on the terms of `version`, now.
    pub async fn record_terms_decision(
        &self,
        member_id: &MemberId,
        decision: TermsDecision,
        version: TermsVersion,
    ) -> Result<TermsAgreement> {
        let agreement = TermsAgreement {
            decision,
            version: Some(version.0),
            decided_at: now_millis(),
        };
        self.store
            .record_terms_decision(member_id, &agreement)
            .await?;
        tracing::info!(
            member_id = %member_id,
            decision = decision.as_str(),
            version = agreement.version.as_deref().unwrap_or_default(),
            "terms decision recorded"
        );
        Ok(agreement)
    }

    /// What the relay's answer to a mail of `email`'s budget means for the caller: a refusal
    /// gives the mail back and answers [`AccountsError::Unavailable`].
    async fn settle(&self, email: &Email, sent: anyhow::Result<()>) -> Result<()> {
        if let Err(err) = sent {
            self.address_mails.give_back(email).await;
            return Err(AccountsError::Unavailable(format!("mail relay: {err:#}")));
        }
        Ok(())
    }

    /// Takes one of the mails `email` may be sent per day by whoever types it
    /// (`address_mails.rs`): false once they are spent.
    pub(super) async fn take_address_mail(&self, email: &Email) -> bool {
        self.address_mails.take(email).await
    }

    /// Gives back what [`Self::take_address_mail`] took, for a mail the relay did not take.
    pub(super) async fn give_back_address_mail(&self, email: &Email) {
        self.address_mails.give_back(email).await;
    }

    /// Counts one confirmation link towards the member's hourly limit; refuses past it. Fails
    /// closed: without the counter nothing would stop a mail flood.
    pub(super) async fn count_link(&self, member_id: &MemberId) -> Result<()> {
        let sent = self
            .limits
            .incr(&resend_key(member_id), RESEND_WINDOW)
            .await
            .map_err(|err| AccountsError::Unavailable(format!("ephemeral store: {err}")))?;
        if sent > RESENDS_PER_WINDOW {
            return Err(AccountsError::TooManyAttempts);
        }
        Ok(())
    }

    /// The pending or active member (an unsubscribed one is not found).
    pub(super) async fn member(&self, member_id: &MemberId) -> Result<Member> {
        self.store
            .find_member(member_id)
            .await?
            .map(|record| record.member)
            .ok_or(AccountsError::MemberNotFound)
    }

    fn new_confirmation(&self, token: &ConfirmationToken, now: i64) -> NewConfirmation {
        NewConfirmation {
            digest: token.digest(),
            expires_at: now + self.settings.ttl_millis(),
        }
    }

    /// The notice to an address a member typed while another member has it: no link, and
    /// nothing about who typed it.
    async fn send_in_use_notice(&self, email: &Email) -> anyhow::Result<()> {
        let body = "Hola:\n\n\
             Alguien intentó usar esta dirección de correo electrónico en una cuenta de Mi \
             Club, pero ya está registrada en Mi Club. No hicimos ningún cambio.\n\n\
             Si fuiste tú, inicia sesión con la cuenta que ya usa este correo o recupera su \
             contraseña desde «¿Olvidaste tu contraseña?». Si no fuiste tú, ignora este \
             mensaje: tu cuenta no cambió.\n"
            .to_owned();
        self.notifier
            .send(Outgoing {
                to: email.as_str().to_owned(),
                subject: EMAIL_IN_USE_SUBJECT.to_owned(),
                body,
                code: None,
            })
            .await
    }

    async fn send_link(
        &self,
        name: &PersonName,
        email: &Email,
        token: &ConfirmationToken,
        purpose: LinkPurpose,
    ) -> anyhow::Result<()> {
        let hours = match self.settings.ttl_hours {
            1 => "1 hora".to_owned(),
            n => format!("{n} horas"),
        };
        let link = self.settings.link(token);
        let name = name.as_str();
        let body = match purpose {
            LinkPurpose::EmailChange => format!(
                "Hola {name}:\n\n\
                 Para confirmar que este es tu correo electrónico de Mi Club, abre este enlace:\n\n\
                 {link}\n\n\
                 El enlace vence en {hours}. Mientras no lo confirmes, tus códigos de acceso \
                 seguirán llegando al último correo que confirmaste.\n\n\
                 Si no pediste este cambio, ignora este mensaje.\n"
            ),
            LinkPurpose::Registration => format!(
                "Hola {name}:\n\n\
                 Gracias por registrarte en Mi Club. Para verificar tu correo electrónico y \
                 poder iniciar sesión, abre este enlace:\n\n\
                 {link}\n\n\
                 El enlace vence en {hours}. Si vence, pide uno nuevo con «Reenviar correo de \
                 verificación» al iniciar sesión.\n\n\
                 Si no te registraste en Mi Club, ignora este mensaje.\n"
            ),
        };
        self.notifier
            .send(Outgoing {
                to: email.as_str().to_owned(),
                subject: CONFIRMATION_SUBJECT.to_owned(),
                body,
                code: None,
            })
            .await
    }
}

fn resend_key(member_id: &MemberId) -> String {
    format!("accounts:email-confirmation:resend:{member_id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terms_version_has_1_to_40_characters() {
        assert_eq!(
            TermsVersion::parse(" 2026-01 ").unwrap().as_str(),
            "2026-01"
        );
        assert!(TermsVersion::parse(&"v".repeat(40)).is_ok());
        for bad in ["", "   ", "a\nb"] {
            assert!(TermsVersion::parse(bad).is_err(), "{bad:?}");
        }
        assert!(TermsVersion::parse(&"v".repeat(41)).is_err());
    }
}
