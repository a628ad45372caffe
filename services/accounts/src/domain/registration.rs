//! Registration, as the registration service drives it over internal calls (service token):
//! check the document, check the personal data, register the member as pending, activate it.
//! Plus the anonymous resend of the verification link.
//!
//! A member is **pending** from [`Registration::register`] until [`Registration::activate`],
//! **active** after. Only active members count as registered: an active member's document
//! answers `ERR_RUT_ALREADY_REGISTERED` (with the "Recuperar contraseña" action). A pending member
//! is the leftover of a registration that stopped halfway, and an unsubscribed one a member who
//! left: a new registration of the same document takes either over (data replaced, ledger and
//! balance kept, the same member id), so retries and comebacks never make a second member. A
//! member who left is taken over only by a registration with the address they left with
//! ([`left_email_digest`]; else `ERR_PREVIOUS_EMAIL_REQUIRED`), and so is their returning
//! registration until it is activated: knowing a RUT does not give a former member's pesos,
//! card or purchase history to whoever types it.
//!
//! An email is never refused in a way the registrant sees (ASVS 5.0 V6.3.8: the answer must not
//! tell whether an address is a member's). Checking the personal data leaves it alone; when
//! [`Registration::register`] finds it in use by another active member (compared
//! case-insensitively) nothing is created, the address gets a notice instead of a verification
//! link ([`NOTICE_SUBJECT`], once per member id however often the registration retries, and
//! within the address's daily budget of `address_mails.rs`, as the verification link is), and the
//! caller hears [`Enrolment::EmailInUse`], which registration answers exactly like a success.
//!
//! Personal data follows the profile's rules and Spanish messages (fields named as the profile
//! names them; the gateway renames them to camelCase), with everything required but the mother's
//! surname and the 18-year rule worded for registration.
//!
//! Activation mails the verification link of the profile's email confirmation
//! (`/confirmar-correo?token=…`, [`Profile`]); opening it hands the address to auth
//! (`SetLoginEmail`, which marks the login email verified) and confirms it here, after which the
//! member can log in.

use std::time::Duration;

use sha2::{Digest, Sha256};

use miclub_platform::ephemeral::SharedStore;
use miclub_platform::identity::LoginId;
use miclub_platform::notify::{Outgoing, SharedNotifier};
use miclub_platform::storage::now_millis;

use super::email_links::LinkPurpose;
use super::member::messages;
use super::{
    BirthDate, Document, Email, GenderId, Member, MemberId, MemberState, MemberStatus, PersonName,
    PhoneNumber, Profile, TermsAgreement, TermsDecision, TermsVersion,
};
use crate::error::{AccountsError, Result};
use crate::store::{Registered, Store};

/// The personal data of the registration form as typed, before validation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegistrationForm {
    pub name: String,
    pub last_name: String,
    pub mother_surname: String,
    pub phone_number: String,
    /// ISO `YYYY-MM-DD`.
    pub birth_date: String,
    /// 0 when not chosen.
    pub gender_id: i64,
    pub email: String,
}

/// Valid personal data of a new member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMemberProfile {
    pub name: PersonName,
    pub last_name: PersonName,
    pub mother_surname: Option<PersonName>,
    pub phone_number: PhoneNumber,
    pub birth_date: BirthDate,
    pub gender_id: GenderId,
    pub email: Email,
}

impl NewMemberProfile {
    /// Validates in the order of the form's fields; the first invalid one answers.
    pub fn parse(form: &RegistrationForm) -> Result<Self> {
        let birth_date = BirthDate::parse(&form.birth_date).map_err(|err| match err {
            AccountsError::InvalidField {
                field,
                message: messages::UNDERAGE,
            } => AccountsError::invalid_field(field, messages::UNDERAGE_REGISTRATION),
            other => other,
        });
        Ok(Self {
            name: PersonName::parse("name", &form.name)?,
            last_name: PersonName::parse("last_name", &form.last_name)?,
            mother_surname: PersonName::parse_optional("mother_surname", &form.mother_surname)?,
            phone_number: PhoneNumber::parse(&form.phone_number)?,
            birth_date: birth_date?,
            gender_id: GenderId::new(form.gender_id)?,
            email: Email::parse(&form.email)?,
        })
    }
}

/// Subject of the notice mailed to an address someone tried to register with while it
/// belongs to an active member.
pub const NOTICE_SUBJECT: &str = "Intento de registro en Mi Club con tu correo";

/// How long a notice is remembered per member id, so a retried registration does not mail it
/// again; far longer than any registration flow lives.
const NOTICE_MEMORY: Duration = Duration::from_secs(24 * 60 * 60);

/// What [`Registration::register`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enrolment {
    /// The member is registered as pending under this id (the one asked for, or the earlier
    /// member of the same document that was taken over).
    Member(MemberId),
    /// Another active member uses the email: nothing was created and the address was told.
    EmailInUse(Email),
}

/// How the notice to an address already in use is sent.
#[derive(Debug, Clone)]
pub struct InUseNotices {
    pub notifier: SharedNotifier,
    /// Remembers which member ids were already answered with a notice.
    pub markers: SharedStore,
    /// Origin of the web app, e.g. `https://miclub.cl`, for the password recovery page.
    pub public_url: String,
}

/// The answer of [`Registration::activate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activation {
    pub email: Email,
    /// False when nothing was mailed: the member was already active, or the address was sent
    /// its mails for the day (`address_mails.rs`).
    pub verification_sent: bool,
}

/// The registration use cases.
#[derive(Debug, Clone)]
pub struct Registration {
    store: Store,
    /// Issues and mails the verification links, with the profile's limit.
    profile: Profile,
    notices: InUseNotices,
}

impl Registration {
    pub fn new(store: Store, profile: Profile, notices: InUseNotices) -> Self {
        Self {
            store,
            profile,
            notices,
        }
    }

    /// OK unless an active member holds `document`.
    pub async fn check_identity(&self, document: &Document) -> Result<()> {
        match self
            .store
            .member_state_by_document(&document.canonical())
            .await?
        {
            Some(MemberState::Live(record)) if record.status == MemberStatus::Active => {
                tracing::info!(
                    member_id = %record.member.id,
                    "registration refused: the document is an active member's"
                );
                Err(AccountsError::RutAlreadyRegistered {
                    foreign: document.document_type() == super::DocumentType::Foreign,
                })
            }
            _ => Ok(()),
        }
    }

    /// Registers the member as pending with an empty club account and the terms of `terms`
    /// accepted now, and answers the member's id: `member_id`, or the id of the pending or
    /// unsubscribed member of the same document that was taken over. When another active member
    /// uses the email, nothing is created and the address is told instead (see the module
    /// header); a failing mail relay answers [`AccountsError::Unavailable`] then, as activation
    /// does, and the retry mails again.
    pub async fn register(
        &self,
        member_id: MemberId,
        document: Document,
        profile: NewMemberProfile,
        terms: TermsVersion,
    ) -> Result<Enrolment> {
        if self
            .store
            .active_email_in_use(&profile.email, Some(&member_id))
            .await?
        {
            self.notify_in_use(&member_id, &profile.email).await?;
            return Ok(Enrolment::EmailInUse(profile.email));
        }
        let now = now_millis();
        let member = Member {
            id: member_id,
            document,
            name: profile.name,
            last_name: profile.last_name,
            mother_surname: profile.mother_surname,
            phone_number: Some(profile.phone_number),
            gender_id: Some(profile.gender_id),
            birth_date: Some(profile.birth_date),
            email: profile.email,
            email_confirmed: false,
            terms: Some(TermsAgreement {
                decision: TermsDecision::Accepted,
                version: Some(terms.as_str().to_owned()),
                decided_at: now,
            }),
        };
        let registered = self.store.register_member(&member, now).await?;
        let id = match registered {
            Registered::Created => {
                tracing::info!(member_id = %member.id, "member registered as pending");
                member.id
            }
            Registered::TookOver(earlier) => {
                tracing::info!(
                    member_id = %earlier,
                    requested_member_id = %member.id,
                    "member registered over an earlier pending or unsubscribed member"
                );
                earlier
            }
            Registered::AlreadyActive => {
                tracing::info!(member_id = %member.id, "registration retried after activation");
                member.id
            }
        };
        Ok(Enrolment::Member(id))
    }

    /// Mails the notice to `email` unless `member_id` was already answered with one, or the
    /// address was sent its mails for the day (`address_mails.rs`). When the marker store fails
    /// the notice still goes (a duplicate notice beats an answer that differs from a success);
    /// when the relay fails the marker is removed so the retry mails again.
    async fn notify_in_use(&self, member_id: &MemberId, email: &Email) -> Result<()> {
        let key = format!("accounts:registration:email-in-use:{member_id}");
        let first = match self
            .notices
            .markers
            .set_if_absent(&key, "1", NOTICE_MEMORY)
            .await
        {
            Ok(first) => first,
            Err(err) => {
                tracing::warn!(member_id = %member_id, error = %err, "email-in-use marker not stored; mailing anyway");
                true
            }
        };
        if !first {
            tracing::info!(member_id = %member_id, "registration retried after an email-in-use notice; nothing mailed");
            return Ok(());
        }
        if !self.profile.take_address_mail(email).await {
            tracing::info!(
                member_id = %member_id,
                "email-in-use notice not mailed: the address was sent its mails for the day"
            );
            return Ok(());
        }
        let recovery = format!(
            "{}/recuperar-contrasena",
            self.notices.public_url.trim_end_matches('/')
        );
        let sent = self
            .notices
            .notifier
            .send(Outgoing {
                to: email.as_str().to_owned(),
                subject: NOTICE_SUBJECT.to_owned(),
                body: notice_body(&recovery),
                code: None,
            })
            .await;
        if let Err(err) = sent {
            self.profile.give_back_address_mail(email).await;
            if let Err(err) = self.notices.markers.delete(&key).await {
                tracing::warn!(member_id = %member_id, error = %err, "email-in-use marker not removed");
            }
            return Err(AccountsError::Unavailable(format!("mail relay: {err:#}")));
        }
        tracing::info!(
            member_id = %member_id,
            email = %email.masked(),
            "registration refused: the email is an active member's; notice mailed"
        );
        Ok(())
    }

    /// Pending → active, after mailing the verification link. The link goes out first: when
    /// the mail relay fails nothing changes and a retry starts over. An active member answers
    /// at once with nothing mailed. [`AccountsError::MemberNotFound`] for an unknown or
    /// unsubscribed member.
    pub async fn activate(&self, member_id: &MemberId) -> Result<Activation> {
        let record = match self.store.member_state(member_id).await? {
            Some(MemberState::Live(record)) => record,
            Some(MemberState::Unsubscribed(_)) | None => return Err(AccountsError::MemberNotFound),
        };
        let email = record.member.email.clone();
        if record.status == MemberStatus::Active {
            tracing::info!(member_id = %member_id, "activation retried; nothing mailed");
            return Ok(Activation {
                email,
                verification_sent: false,
            });
        }
        // Two registrations may have waited with the same email; the first to activate wins.
        self.check_email(&email, Some(member_id)).await?;
        let verification_sent = match self
            .profile
            .mail_link(record.member, LinkPurpose::Registration)
            .await
        {
            Ok(()) => {
                tracing::info!(member_id = %member_id, "verification link mailed");
                true
            }
            // Activated all the same, and registration answers as always (the address may be
            // a member's); the registrant asks for the link again once the day is over.
            Err(AccountsError::TooManyAttempts) => {
                tracing::info!(
                    member_id = %member_id,
                    "verification link not mailed: the address was sent its mails for the day"
                );
                false
            }
            Err(err) => return Err(err),
        };
        if self.store.activate_member(member_id, now_millis()).await? {
            tracing::info!(member_id = %member_id, "member activated");
        } else {
            tracing::info!(member_id = %member_id, "member activated by a concurrent call");
        }
        Ok(Activation {
            email,
            verification_sent,
        })
    }

    /// Mails a new verification link when `user` names an active member whose email is not
    /// confirmed yet, within the profile's hourly limit. Everything else (unknown, pending,
    /// unsubscribed, confirmed, limited, mail relay down) is logged and answers the same `Ok`,
    /// so the answer tells nobody whether the user is a member. Only a `user` that cannot be a
    /// document is refused.
    pub async fn resend_verification(&self, user: &str) -> Result<()> {
        let login = LoginId::parse(user).map_err(AccountsError::InvalidUser)?;
        let record = match self
            .store
            .member_state_by_document(&login.canonical())
            .await?
        {
            Some(MemberState::Live(record)) if record.status == MemberStatus::Active => record,
            Some(_) => {
                tracing::info!("verification resend ignored: the member is not active");
                return Ok(());
            }
            None => {
                tracing::info!("verification resend ignored: no such member");
                return Ok(());
            }
        };
        let member_id = record.member.id.clone();
        if record.member.email_confirmed {
            tracing::info!(member_id = %member_id, "verification resend ignored: email already confirmed");
            return Ok(());
        }
        if let Err(err) = self.profile.count_link(&member_id).await {
            tracing::warn!(member_id = %member_id, error = %err, "verification resend not sent: limit or counter");
            return Ok(());
        }
        match self
            .profile
            .mail_link(record.member, LinkPurpose::Registration)
            .await
        {
            Ok(()) => tracing::info!(member_id = %member_id, "verification link mailed again"),
            Err(AccountsError::TooManyAttempts) => tracing::info!(
                member_id = %member_id,
                "verification resend not sent: the address was sent its mails for the day"
            ),
            Err(err) => {
                tracing::error!(member_id = %member_id, error = %err, "verification resend failed");
            }
        }
        Ok(())
    }

    async fn check_email(&self, email: &Email, except: Option<&MemberId>) -> Result<()> {
        if self.store.active_email_in_use(email, except).await? {
            tracing::info!(
                email = %email.masked(),
                "activation refused: the email became an active member's"
            );
            return Err(AccountsError::EmailAlreadyRegistered);
        }
        Ok(())
    }
}

/// The notice's text: no name (what the registrant typed is not repeated to the owner), no code
/// and no link that acts, only the page where the owner can recover the password.
fn notice_body(recovery: &str) -> String {
    format!(
        "Hola:\n\n\
         Alguien intentó registrarse en Mi Club con este correo electrónico, que ya pertenece a \
         una cuenta de Mi Club. No creamos ninguna cuenta nueva.\n\n\
         Si fuiste tú, ya tienes una cuenta: inicia sesión con tu RUT o documento y tu \
         contraseña. Si no la recuerdas, puedes recuperarla en {recovery}\n\n\
         Si no fuiste tú, ignora este mensaje: tu cuenta sigue igual.\n"
    )
}

/// What a member who left is recognised by when they come back: the SHA-256 (lowercase hex) of
/// the address they left with, trimmed and lowercased. Stored when they leave (the address
/// itself is erased) and compared with a returning registration's address, which that
/// registration must then confirm before anyone can log in: so knowing a RUT is not enough to
/// take a former member's pesos and history. A plain hash, like the tokens' digests: it
/// recognises an address typed again; whoever reads the database could still test guesses
/// against it, as they could read the ledger itself.
pub fn left_email_digest(email: &str) -> String {
    format!(
        "{:x}",
        Sha256::digest(email.trim().to_lowercase().as_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form() -> RegistrationForm {
        RegistrationForm {
            name: "Ana".into(),
            last_name: "González".into(),
            mother_surname: String::new(),
            phone_number: "912345678".into(),
            birth_date: "1990-05-17".into(),
            gender_id: 1,
            email: " Ana@Correo.CL ".into(),
        }
    }

    fn refusal(form: RegistrationForm) -> (&'static str, &'static str) {
        match NewMemberProfile::parse(&form) {
            Err(AccountsError::InvalidField { field, message }) => (field, message),
            other => panic!("expected a field refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_complete_form_without_a_mother_surname_is_valid() {
        let profile = NewMemberProfile::parse(&form()).unwrap();
        assert_eq!(profile.email.as_str(), "ana@correo.cl");
        assert_eq!(profile.phone_number.as_str(), "+56912345678");
        assert_eq!(profile.mother_surname, None);
    }

    #[test]
    fn every_field_but_the_mother_surname_is_required() {
        type Blank = fn(&mut RegistrationForm);
        let cases: [(Blank, &str); 6] = [
            (|f| f.name.clear(), "name"),
            (|f| f.last_name.clear(), "last_name"),
            (|f| f.phone_number.clear(), "phone_number"),
            (|f| f.birth_date.clear(), "birth_date"),
            (|f| f.gender_id = 0, "gender_id"),
            (|f| f.email.clear(), "email"),
        ];
        for (blank, field) in cases {
            let mut form = form();
            blank(&mut form);
            assert_eq!(refusal(form).0, field);
        }
    }

    #[test]
    fn a_minor_is_told_registration_needs_eighteen_years() {
        let birth = today_in_chile_minus_years(17);
        let refused = refusal(RegistrationForm {
            birth_date: birth,
            ..form()
        });
        assert_eq!(
            refused,
            ("birth_date", "Debes ser mayor de 18 años para registrarte.")
        );
    }

    #[test]
    fn a_gender_off_the_list_is_refused() {
        assert_eq!(
            refusal(RegistrationForm {
                gender_id: 4,
                ..form()
            }),
            ("gender_id", "Selecciona una opción de la lista.")
        );
    }

    fn today_in_chile_minus_years(years: i32) -> String {
        use chrono::Datelike;
        let today = miclub_platform::calendar::today();
        let date = today.with_year(today.year() - years).unwrap_or_else(|| {
            today
                .with_day(28)
                .unwrap()
                .with_year(today.year() - years)
                .unwrap()
        });
        date.format("%Y-%m-%d").to_string()
    }
}
