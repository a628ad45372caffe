//! Stand-ins for the five services the gateway calls: each answers what its test scripted in
//! [`Script`] and records what it was asked. One file per service under `fakes/`; here the
//! script and the helpers they share.

mod accounts_service;
pub mod auth_service;
mod content_service;
mod missions_service;
mod registration_service;

use crate::support::*;

pub const MEMBER: &str = "member-1";
/// The card number of the stand-in member (12 digits, Luhn check digit last).
pub const CARD_NUMBER: &str = "479201356629";

/// What the stand-in services answer and what they were asked.
#[derive(Debug, Default)]
pub struct Script {
    pub auth_error: Option<ErrorBody>,
    pub accounts_error: Option<ErrorBody>,
    pub logouts: Vec<String>,
    /// What Logout answers; None: the session is revoked.
    pub logout_error: Option<ErrorBody>,
    pub last_login: Option<auth::StartLoginRequest>,
    pub content_error: Option<ErrorBody>,
    pub last_profile_update: Option<accounts::UpdateProfileRequest>,
    pub last_terms_decision: Option<accounts::RecordTermsDecisionRequest>,
    /// OpenClubAccount calls received, in order (failed ones included).
    pub club_account_opens: Vec<accounts::OpenClubAccountRequest>,
    pub last_movements_query: Option<accounts::ListMovementsRequest>,
    /// The movement id the last GetMovementDetail asked for.
    pub last_movement_detail: Option<String>,
    pub last_password_change: Option<auth::ChangePasswordRequest>,
    pub email_resends: usize,
    pub last_reset_start: Option<auth::StartPasswordResetRequest>,
    pub last_reset: Option<auth::CompletePasswordResetRequest>,
    pub registration_error: Option<ErrorBody>,
    /// Flow ids the stand-in registration service was sent, in order.
    pub registration_ids: Vec<String>,
    pub last_registration_start: Option<registration::StartRegistrationRequest>,
    pub last_personal_data: Option<registration::PersonalData>,
    pub last_completion: Option<registration::CompleteRegistrationRequest>,
    /// Flow ids CancelRegistration was sent, in order.
    pub cancelled_registrations: Vec<String>,
    pub last_verification_resend: Option<String>,
    pub last_unsubscribe: Option<accounts::UnsubscribeRequest>,
    pub last_unsubscribe_validation: Option<accounts::ValidateUnsubscribeRequest>,
    /// What ValidateUnsubscribe answers; None answers "not yet".
    pub unsubscribed_at: Option<String>,
    /// What content's GetFlags answers; None answers UNIMPLEMENTED (content not reachable).
    pub flags: Option<content::Flags>,
    pub flag_reads: usize,
    pub missions_error: Option<ErrorBody>,
    pub has_missions: bool,
    pub last_simulation: Option<content::SimulateRequest>,
    /// GetBalance calls received, failed ones included.
    pub balance_calls: usize,
    /// GetMemberCard calls received, failed ones included.
    pub card_calls: usize,
    /// How many of the next GetBalance calls fail with UNAVAILABLE (a fault drill's knob).
    pub balance_unavailable: usize,
    /// UpdateProfile calls received, failed ones included.
    pub profile_updates: usize,
    pub last_verify: Option<auth::VerifyOtpRequest>,
    /// Session ids EndSession was asked to end, in order.
    pub ended_sessions: Vec<String>,
    /// EndOtherSessions calls received.
    pub other_sessions_ends: usize,
}

#[derive(Clone)]
pub struct Fakes {
    pub script: Arc<Mutex<Script>>,
    pub keys: TestKeys,
}

impl Fakes {
    fn script(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap()
    }

    fn auth_fails(&self) -> Result<(), Status> {
        match self.script.lock().unwrap().auth_error.clone() {
            Some(body) => Err(body.into_status()),
            None => Ok(()),
        }
    }

    fn accounts_fails(&self) -> Result<(), Status> {
        match self.script.lock().unwrap().accounts_error.clone() {
            Some(body) => Err(body.into_status()),
            None => Ok(()),
        }
    }

    fn member(&self) -> accounts::Member {
        accounts::Member {
            member_id: MEMBER.into(),
            document_type: "RUT".into(),
            document_number: "11111111-1".into(),
            name: "Ana".into(),
            last_name: "González".into(),
            mother_surname: "Pérez".into(),
            phone_number: "+56911111111".into(),
            gender_id: 1,
            birth_date: "1988-03-14".into(),
            email: "ana@example.cl".into(),
            email_confirmed: true,
            terms_agreement: Some(accounts::TermsAgreement {
                decision: accounts::TermsDecision::Accepted as i32,
                event_date: "2026-01-10T12:00:00Z".into(),
                version: "2026-11-01".into(),
            }),
            has_club_account: true,
        }
    }

    fn session(&self) -> auth::Session {
        auth::Session {
            access_token: self.keys.member_token(MEMBER, "sid-1", 600),
            access_expires_in_seconds: 600,
            refresh_token: "refresh-1".into(),
            refresh_expires_in_seconds: 3600,
        }
    }

    /// Member routes must forward the member's token to the service.
    fn member_only<T>(&self, request: &Request<T>) -> Result<(), Status> {
        match request.metadata().get("authorization") {
            Some(value) if value.to_str().unwrap_or("").starts_with("Bearer ") => Ok(()),
            _ => Err(ErrorBody::new(ErrorCode::Unauthenticated).into_status()),
        }
    }

    fn registration_fails(&self) -> Result<(), Status> {
        match self.script().registration_error.clone() {
            Some(body) => Err(body.into_status()),
            None => Ok(()),
        }
    }

    /// The stand-in flow: step 2 after the identity, step 3 after the personal data.
    fn flow(
        &self,
        id: &str,
        step: registration::Step,
        personal_data: Option<registration::PersonalData>,
    ) -> registration::Registration {
        let identity = self
            .script()
            .last_registration_start
            .clone()
            .and_then(|start| start.identity)
            .map(|identity| match identity {
                registration::start_registration_request::Identity::Chilean(c) => {
                    registration::registration::Identity::Chilean(c)
                }
                registration::start_registration_request::Identity::Foreign(f) => {
                    registration::registration::Identity::Foreign(f)
                }
            });
        registration::Registration {
            registration_id: id.into(),
            step: step as i32,
            identity,
            personal_data,
            expires_in_seconds: 1800,
        }
    }

    fn content_fails(&self) -> Result<(), Status> {
        match self.script().content_error.clone() {
            Some(body) => Err(body.into_status()),
            None => Ok(()),
        }
    }
}
