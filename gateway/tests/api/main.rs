//! The gateway's REST contract against stand-in auth and accounts gRPC servers that answer
//! whatever a test asks for, so every route and every error mapping can be driven. The real
//! services are exercised end to end by the standalone tests.
//!
//! This file holds the stand-ins and the harness, and the session routes' tests; the account
//! area's routes (profile, password, terms, movements) are tested in [`account_routes`].

mod account_routes;
mod activity_marks;
mod client_address;
mod content_routes;
mod contract;
mod decoders;
mod edge_limits;
mod fault_drills;
mod hardening;
mod joining_routes;
mod logout_routes;
mod ops_metrics;
mod production_start;
mod recovery_routes;
mod rejections;

use std::sync::{Arc, Mutex};

use miclub_gateway::{Application, Dependencies, Settings};
use miclub_platform::config::Environment;
use miclub_platform::ephemeral::{MemoryStore, SharedStore};
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::ClientSettings;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::testing::TestKeys;
use miclub_proto::accounts::v1 as accounts;
use miclub_proto::accounts::v1::accounts_service_server::{AccountsService, AccountsServiceServer};
use miclub_proto::auth::v1 as auth;
use miclub_proto::auth::v1::auth_service_server::{AuthService, AuthServiceServer};
use miclub_proto::content::v1 as content;
use miclub_proto::content::v1::content_service_server::{ContentService, ContentServiceServer};
use miclub_proto::missions::v1 as missions;
use miclub_proto::missions::v1::missions_service_server::{MissionsService, MissionsServiceServer};
use miclub_proto::registration::v1 as registration;
use miclub_proto::registration::v1::registration_service_server::{
    RegistrationService, RegistrationServiceServer,
};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tonic::{Request, Response, Status};

const MEMBER: &str = "member-1";

/// What the stand-in services answer and what they were asked.
#[derive(Debug, Default)]
struct Script {
    auth_error: Option<ErrorBody>,
    accounts_error: Option<ErrorBody>,
    logouts: Vec<String>,
    /// What Logout answers; None: the session is revoked.
    logout_error: Option<ErrorBody>,
    last_login: Option<auth::StartLoginRequest>,
    content_error: Option<ErrorBody>,
    last_profile_update: Option<accounts::UpdateProfileRequest>,
    last_terms_decision: Option<accounts::RecordTermsDecisionRequest>,
    last_movements_query: Option<accounts::ListMovementsRequest>,
    last_password_change: Option<auth::ChangePasswordRequest>,
    email_resends: usize,
    last_reset_start: Option<auth::StartPasswordResetRequest>,
    last_reset: Option<auth::CompletePasswordResetRequest>,
    registration_error: Option<ErrorBody>,
    /// Flow ids the stand-in registration service was sent, in order.
    registration_ids: Vec<String>,
    last_registration_start: Option<registration::StartRegistrationRequest>,
    last_personal_data: Option<registration::PersonalData>,
    last_completion: Option<registration::CompleteRegistrationRequest>,
    last_verification_resend: Option<String>,
    last_unsubscribe: Option<accounts::UnsubscribeRequest>,
    last_unsubscribe_validation: Option<accounts::ValidateUnsubscribeRequest>,
    /// What ValidateUnsubscribe answers; None answers "not yet".
    unsubscribed_at: Option<String>,
    /// What content's GetFlags answers; None answers UNIMPLEMENTED (content not reachable).
    flags: Option<content::Flags>,
    flag_reads: usize,
    missions_error: Option<ErrorBody>,
    has_missions: bool,
    last_simulation: Option<content::SimulateRequest>,
    /// GetBalance calls received, failed ones included.
    balance_calls: usize,
    /// How many of the next GetBalance calls fail with UNAVAILABLE (a fault drill's knob).
    balance_unavailable: usize,
    /// UpdateProfile calls received, failed ones included.
    profile_updates: usize,
}

#[derive(Clone)]
struct Fakes {
    script: Arc<Mutex<Script>>,
    keys: TestKeys,
}

impl Fakes {
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
}

#[tonic::async_trait]
impl AuthService for Fakes {
    async fn start_login(
        &self,
        request: Request<auth::StartLoginRequest>,
    ) -> Result<Response<auth::StartLoginResponse>, Status> {
        self.script.lock().unwrap().last_login = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::StartLoginResponse {
            challenge_id: "challenge-1".into(),
            masked_destination: "a***@example.cl".into(),
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn resend_otp(
        &self,
        request: Request<auth::ResendOtpRequest>,
    ) -> Result<Response<auth::ResendOtpResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.into_inner().challenge_id, "challenge-1");
        Ok(Response::new(auth::ResendOtpResponse {
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn verify_otp(
        &self,
        request: Request<auth::VerifyOtpRequest>,
    ) -> Result<Response<auth::VerifyOtpResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.get_ref().challenge_id, "challenge-1");
        Ok(Response::new(auth::VerifyOtpResponse {
            session: Some(self.session()),
            member_id: MEMBER.into(),
            is_user_migrating: true,
        }))
    }

    async fn refresh_session(
        &self,
        request: Request<auth::RefreshSessionRequest>,
    ) -> Result<Response<auth::RefreshSessionResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.into_inner().refresh_token, "refresh-1");
        Ok(Response::new(auth::RefreshSessionResponse {
            session: Some(self.session()),
        }))
    }

    async fn logout(
        &self,
        request: Request<auth::LogoutRequest>,
    ) -> Result<Response<auth::LogoutResponse>, Status> {
        let token = request.into_inner().access_token;
        let mut script = self.script.lock().unwrap();
        script.logouts.push(token);
        match script.logout_error.clone() {
            Some(body) => Err(body.into_status()),
            None => Ok(Response::new(auth::LogoutResponse {})),
        }
    }

    async fn get_jwks(
        &self,
        _: Request<auth::GetJwksRequest>,
    ) -> Result<Response<auth::GetJwksResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway gets its keys from the test",
        ))
    }

    async fn change_password(
        &self,
        request: Request<auth::ChangePasswordRequest>,
    ) -> Result<Response<auth::ChangePasswordResponse>, Status> {
        assert!(
            miclub_platform::tokens::bearer(request.metadata()).is_some(),
            "the member token is forwarded"
        );
        self.script.lock().unwrap().last_password_change = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::ChangePasswordResponse {
            revoked_sessions: 2,
        }))
    }

    async fn issue_service_token(
        &self,
        _: Request<auth::IssueServiceTokenRequest>,
    ) -> Result<Response<auth::IssueServiceTokenResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway never asks for service tokens",
        ))
    }

    async fn verify_password(
        &self,
        _: Request<auth::VerifyPasswordRequest>,
    ) -> Result<Response<auth::VerifyPasswordResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway never checks passwords for accounts",
        ))
    }

    async fn end_sessions(
        &self,
        _: Request<auth::EndSessionsRequest>,
    ) -> Result<Response<auth::EndSessionsResponse>, Status> {
        Err(Status::unimplemented(
            "the gateway never checks passwords for accounts",
        ))
    }

    async fn set_login_email(
        &self,
        _: Request<auth::SetLoginEmailRequest>,
    ) -> Result<Response<auth::SetLoginEmailResponse>, Status> {
        Err(Status::unimplemented("the gateway never sets login emails"))
    }

    async fn start_password_reset(
        &self,
        request: Request<auth::StartPasswordResetRequest>,
    ) -> Result<Response<auth::StartPasswordResetResponse>, Status> {
        self.script.lock().unwrap().last_reset_start = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::StartPasswordResetResponse {
            reset_id: "reset-1".into(),
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn resend_password_reset(
        &self,
        request: Request<auth::ResendPasswordResetRequest>,
    ) -> Result<Response<auth::ResendPasswordResetResponse>, Status> {
        self.auth_fails()?;
        assert_eq!(request.into_inner().reset_id, "reset-1");
        Ok(Response::new(auth::ResendPasswordResetResponse {
            expires_in_seconds: 300,
            resend_after_seconds: 60,
        }))
    }

    async fn check_password_rules(
        &self,
        _: Request<auth::CheckPasswordRulesRequest>,
    ) -> Result<Response<auth::CheckPasswordRulesResponse>, Status> {
        Err(Status::unimplemented("registration calls auth directly"))
    }

    async fn create_credentials(
        &self,
        _: Request<auth::CreateCredentialsRequest>,
    ) -> Result<Response<auth::CreateCredentialsResponse>, Status> {
        Err(Status::unimplemented("registration calls auth directly"))
    }

    async fn disable_credentials(
        &self,
        _: Request<auth::DisableCredentialsRequest>,
    ) -> Result<Response<auth::DisableCredentialsResponse>, Status> {
        Err(Status::unimplemented("accounts calls auth directly"))
    }

    async fn complete_password_reset(
        &self,
        request: Request<auth::CompletePasswordResetRequest>,
    ) -> Result<Response<auth::CompletePasswordResetResponse>, Status> {
        self.script.lock().unwrap().last_reset = Some(request.into_inner());
        self.auth_fails()?;
        Ok(Response::new(auth::CompletePasswordResetResponse {
            revoked_sessions: 1,
        }))
    }
}

#[tonic::async_trait]
impl AccountsService for Fakes {
    async fn get_member(
        &self,
        request: Request<accounts::GetMemberRequest>,
    ) -> Result<Response<accounts::GetMemberResponse>, Status> {
        assert!(
            miclub_platform::tokens::bearer(request.metadata()).is_some(),
            "the member token is forwarded"
        );
        if let Some(body) = self.script.lock().unwrap().accounts_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(accounts::GetMemberResponse {
            member: Some(self.member()),
        }))
    }

    async fn get_balance(
        &self,
        _: Request<accounts::GetBalanceRequest>,
    ) -> Result<Response<accounts::GetBalanceResponse>, Status> {
        {
            let mut script = self.script.lock().unwrap();
            script.balance_calls += 1;
            if script.balance_unavailable > 0 {
                script.balance_unavailable -= 1;
                return Err(ErrorBody::new(ErrorCode::Unavailable).into_status());
            }
        }
        if let Some(body) = self.script.lock().unwrap().accounts_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(accounts::GetBalanceResponse {
            balance: 12_345,
            updated_at: "2026-11-01T10:00:00Z".into(),
        }))
    }

    async fn list_genders(
        &self,
        _: Request<accounts::ListGendersRequest>,
    ) -> Result<Response<accounts::ListGendersResponse>, Status> {
        self.accounts_fails()?;
        let genders = [(1, "Femenino"), (2, "Masculino"), (3, "Prefiero no decir")]
            .into_iter()
            .map(|(id, label)| accounts::Gender {
                id,
                label: label.into(),
            })
            .collect();
        Ok(Response::new(accounts::ListGendersResponse { genders }))
    }

    async fn update_profile(
        &self,
        request: Request<accounts::UpdateProfileRequest>,
    ) -> Result<Response<accounts::UpdateProfileResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        let update = request.into_inner();
        {
            let mut script = self.script.lock().unwrap();
            script.last_profile_update = Some(update.clone());
            script.profile_updates += 1;
        }
        self.accounts_fails()?;
        let mut member = self.member();
        let email_changed = update.email != member.email;
        member.email = update.email;
        member.email_confirmed = !email_changed;
        member.name = update.name;
        member.phone_number = update.phone_number;
        Ok(Response::new(accounts::UpdateProfileResponse {
            member: Some(member),
            email_confirmation_sent: email_changed,
        }))
    }

    async fn resend_email_confirmation(
        &self,
        request: Request<accounts::ResendEmailConfirmationRequest>,
    ) -> Result<Response<accounts::ResendEmailConfirmationResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        self.accounts_fails()?;
        self.script.lock().unwrap().email_resends += 1;
        Ok(Response::new(accounts::ResendEmailConfirmationResponse {}))
    }

    async fn restore_email(
        &self,
        request: Request<accounts::RestoreEmailRequest>,
    ) -> Result<Response<accounts::RestoreEmailResponse>, Status> {
        if request.into_inner().token != "good-restore" {
            return Err(ErrorBody::new(ErrorCode::ConfirmationInvalid).into_status());
        }
        Ok(Response::new(accounts::RestoreEmailResponse {
            masked_email: "a***@example.cl".into(),
        }))
    }

    async fn confirm_email(
        &self,
        request: Request<accounts::ConfirmEmailRequest>,
    ) -> Result<Response<accounts::ConfirmEmailResponse>, Status> {
        if request.into_inner().token != "good-token" {
            return Err(ErrorBody::new(ErrorCode::ConfirmationInvalid).into_status());
        }
        Ok(Response::new(accounts::ConfirmEmailResponse {
            masked_email: "n***@example.cl".into(),
        }))
    }

    async fn record_terms_decision(
        &self,
        request: Request<accounts::RecordTermsDecisionRequest>,
    ) -> Result<Response<accounts::RecordTermsDecisionResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        let decision = request.into_inner();
        self.script.lock().unwrap().last_terms_decision = Some(decision.clone());
        self.accounts_fails()?;
        let decision = if decision.accepted {
            accounts::TermsDecision::Accepted
        } else {
            accounts::TermsDecision::Rejected
        };
        Ok(Response::new(accounts::RecordTermsDecisionResponse {
            terms_agreement: Some(accounts::TermsAgreement {
                decision: decision as i32,
                event_date: "2026-11-21T15:00:00Z".into(),
            }),
        }))
    }

    async fn list_movements(
        &self,
        request: Request<accounts::ListMovementsRequest>,
    ) -> Result<Response<accounts::ListMovementsResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        let query = request.into_inner();
        self.script.lock().unwrap().last_movements_query = Some(query);
        self.accounts_fails()?;
        let movement =
            |id: &str, kind: accounts::MovementKind, status, amount| accounts::Movement {
                movement_id: id.into(),
                kind: kind as i32,
                status: status as i32,
                amount,
                description: format!("movimiento {id}"),
                occurred_at: "2026-10-15T15:00:00Z".into(),
            };
        Ok(Response::new(accounts::ListMovementsResponse {
            movements: vec![
                movement(
                    "m-2",
                    accounts::MovementKind::Redemption,
                    accounts::MovementStatus::Confirmed,
                    -2_000,
                ),
                movement(
                    "m-1",
                    accounts::MovementKind::Accrual,
                    accounts::MovementStatus::Pending,
                    1_250,
                ),
            ],
            page: 2,
            page_size: 10,
            total_count: 12,
            total_pages: 2,
        }))
    }

    async fn post_purchase(
        &self,
        _: Request<accounts::PostPurchaseRequest>,
    ) -> Result<Response<accounts::PostPurchaseResponse>, Status> {
        Err(Status::unimplemented(
            "store systems call accounts directly",
        ))
    }

    async fn record_movement(
        &self,
        _: Request<accounts::RecordMovementRequest>,
    ) -> Result<Response<accounts::RecordMovementResponse>, Status> {
        Err(Status::unimplemented("back office calls accounts directly"))
    }

    async fn confirm_due_accruals(
        &self,
        _: Request<accounts::ConfirmDueAccrualsRequest>,
    ) -> Result<Response<accounts::ConfirmDueAccrualsResponse>, Status> {
        Err(Status::unimplemented("ops call accounts directly"))
    }

    async fn check_registration_identity(
        &self,
        _: Request<accounts::CheckRegistrationIdentityRequest>,
    ) -> Result<Response<accounts::CheckRegistrationIdentityResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn check_registration_profile(
        &self,
        _: Request<accounts::CheckRegistrationProfileRequest>,
    ) -> Result<Response<accounts::CheckRegistrationProfileResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn register_member(
        &self,
        _: Request<accounts::RegisterMemberRequest>,
    ) -> Result<Response<accounts::RegisterMemberResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn activate_member(
        &self,
        _: Request<accounts::ActivateMemberRequest>,
    ) -> Result<Response<accounts::ActivateMemberResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn resend_verification_email(
        &self,
        request: Request<accounts::ResendVerificationEmailRequest>,
    ) -> Result<Response<accounts::ResendVerificationEmailResponse>, Status> {
        self.accounts_fails()?;
        self.script().last_verification_resend = Some(request.into_inner().user);
        Ok(Response::new(accounts::ResendVerificationEmailResponse {}))
    }

    async fn list_unsubscribe_reasons(
        &self,
        _: Request<accounts::ListUnsubscribeReasonsRequest>,
    ) -> Result<Response<accounts::ListUnsubscribeReasonsResponse>, Status> {
        self.accounts_fails()?;
        Ok(Response::new(accounts::ListUnsubscribeReasonsResponse {
            reasons: vec![
                accounts::UnsubscribeReason {
                    id: 1,
                    label: "No uso los beneficios del club".into(),
                    requires_text: false,
                },
                accounts::UnsubscribeReason {
                    id: 99,
                    label: "Otro motivo".into(),
                    requires_text: true,
                },
            ],
        }))
    }

    async fn validate_unsubscribe(
        &self,
        request: Request<accounts::ValidateUnsubscribeRequest>,
    ) -> Result<Response<accounts::ValidateUnsubscribeResponse>, Status> {
        self.member_only(&request)?;
        self.script().last_unsubscribe_validation = Some(request.get_ref().clone());
        self.accounts_fails()?;
        let at = self.script().unsubscribed_at.clone();
        Ok(Response::new(accounts::ValidateUnsubscribeResponse {
            already_unsubscribed: at.is_some(),
            unsubscribed_at: at.unwrap_or_default(),
        }))
    }

    async fn unsubscribe(
        &self,
        request: Request<accounts::UnsubscribeRequest>,
    ) -> Result<Response<accounts::UnsubscribeResponse>, Status> {
        self.member_only(&request)?;
        self.accounts_fails()?;
        self.script().last_unsubscribe = Some(request.into_inner());
        Ok(Response::new(accounts::UnsubscribeResponse {
            unsubscribed_at: "2026-11-21T15:04:05Z".into(),
        }))
    }
}

impl Fakes {
    fn script(&self) -> std::sync::MutexGuard<'_, Script> {
        self.script.lock().unwrap()
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
}

#[tonic::async_trait]
impl RegistrationService for Fakes {
    async fn start_registration(
        &self,
        request: Request<registration::StartRegistrationRequest>,
    ) -> Result<Response<registration::StartRegistrationResponse>, Status> {
        self.registration_fails()?;
        self.script().last_registration_start = Some(request.into_inner());
        let id = format!("flow-{}", self.script().registration_ids.len() + 1);
        self.script().registration_ids.push(id.clone());
        Ok(Response::new(registration::StartRegistrationResponse {
            registration: Some(self.flow(&id, registration::Step::PersonalData, None)),
        }))
    }

    async fn get_registration(
        &self,
        request: Request<registration::GetRegistrationRequest>,
    ) -> Result<Response<registration::GetRegistrationResponse>, Status> {
        self.registration_fails()?;
        let id = request.into_inner().registration_id;
        self.script().registration_ids.push(id.clone());
        let personal = self.script().last_personal_data.clone();
        let step = if personal.is_some() {
            registration::Step::Password
        } else {
            registration::Step::PersonalData
        };
        Ok(Response::new(registration::GetRegistrationResponse {
            registration: Some(self.flow(&id, step, personal)),
        }))
    }

    async fn submit_personal_data(
        &self,
        request: Request<registration::SubmitPersonalDataRequest>,
    ) -> Result<Response<registration::SubmitPersonalDataResponse>, Status> {
        self.registration_fails()?;
        let request = request.into_inner();
        self.script()
            .registration_ids
            .push(request.registration_id.clone());
        self.script().last_personal_data = request.personal_data.clone();
        Ok(Response::new(registration::SubmitPersonalDataResponse {
            registration: Some(self.flow(
                &request.registration_id,
                registration::Step::Password,
                request.personal_data,
            )),
        }))
    }

    async fn complete_registration(
        &self,
        request: Request<registration::CompleteRegistrationRequest>,
    ) -> Result<Response<registration::CompleteRegistrationResponse>, Status> {
        self.registration_fails()?;
        let request = request.into_inner();
        self.script()
            .registration_ids
            .push(request.registration_id.clone());
        self.script().last_completion = Some(request);
        Ok(Response::new(registration::CompleteRegistrationResponse {
            member_id: "member-new".into(),
            masked_email: "n***@correo.cl".into(),
        }))
    }
}

#[tonic::async_trait]
impl ContentService for Fakes {
    async fn get_current_terms(
        &self,
        _: Request<content::GetCurrentTermsRequest>,
    ) -> Result<Response<content::GetCurrentTermsResponse>, Status> {
        if let Some(body) = self.script.lock().unwrap().content_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(content::GetCurrentTermsResponse {
            terms: Some(content::Terms {
                version: "2026-11-01".into(),
                title: "Términos y condiciones de Mi Club".into(),
                body: "Primer párrafo.\n\nSegundo párrafo.".into(),
                published_at: "2026-11-01T03:00:00Z".into(),
            }),
        }))
    }

    async fn list_promotions(
        &self,
        _: Request<content::ListPromotionsRequest>,
    ) -> Result<Response<content::ListPromotionsResponse>, Status> {
        self.content_fails()?;
        Ok(Response::new(content::ListPromotionsResponse {
            promotions: vec![content::Promotion {
                id: "carnes-2x1".into(),
                title: "2x1 en carnes".into(),
                description: "Todos los martes.".into(),
                image_url: "/images/promociones/carnes-2x1.svg".into(),
                link_url: "https://www.lider.cl/".into(),
                badge: "2x1".into(),
                starts_on: "2026-01-01".into(),
                ends_on: "2027-12-31".into(),
                position: 1,
            }],
        }))
    }

    async fn list_alliances(
        &self,
        _: Request<content::ListAlliancesRequest>,
    ) -> Result<Response<content::ListAlliancesResponse>, Status> {
        self.content_fails()?;
        Ok(Response::new(content::ListAlliancesResponse {
            alliances: vec![content::Alliance {
                id: "bci".into(),
                partner: "Tarjeta Lider BCI".into(),
                title: "6% los lunes".into(),
                conditions: "Tope $10.000.".into(),
                ..Default::default()
            }],
        }))
    }

    async fn list_banners(
        &self,
        _: Request<content::ListBannersRequest>,
    ) -> Result<Response<content::ListBannersResponse>, Status> {
        self.content_fails()?;
        Ok(Response::new(content::ListBannersResponse {
            banners: vec![content::Banner {
                id: "base".into(),
                title: "Acumula 0,8% en todas tus compras".into(),
                image_alt: "Carro de compras".into(),
                ..Default::default()
            }],
        }))
    }

    async fn list_faqs(
        &self,
        request: Request<content::ListFaqsRequest>,
    ) -> Result<Response<content::ListFaqsResponse>, Status> {
        self.content_fails()?;
        let audience = request.into_inner().audience;
        let question = if audience == content::FaqAudience::Login as i32 {
            "¿Por qué me piden un código?"
        } else {
            "¿Qué es Mi Club?"
        };
        Ok(Response::new(content::ListFaqsResponse {
            faqs: vec![content::Faq {
                id: "q1".into(),
                audience,
                question: question.into(),
                answer: "Respuesta.".into(),
                position: 1,
            }],
        }))
    }

    async fn get_flags(
        &self,
        _: Request<content::GetFlagsRequest>,
    ) -> Result<Response<content::GetFlagsResponse>, Status> {
        let mut script = self.script();
        script.flag_reads += 1;
        match script.flags {
            Some(flags) => Ok(Response::new(content::GetFlagsResponse {
                flags: Some(flags),
            })),
            None => Err(Status::unimplemented("content is not reachable")),
        }
    }

    async fn simulate(
        &self,
        request: Request<content::SimulateRequest>,
    ) -> Result<Response<content::SimulateResponse>, Status> {
        self.content_fails()?;
        let request = request.into_inner();
        self.script().last_simulation = Some(request);
        Ok(Response::new(content::SimulateResponse {
            total_earned: 300,
            rules_version: "2026-11".into(),
            lines: vec![content::SimulatedLine {
                category: "fruits_and_vegetables".into(),
                amount: 10_000,
                earned: 300,
                rate_bp: 300,
                rule: "Martes de frutas y verduras".into(),
            }],
        }))
    }

    async fn set_flag(
        &self,
        _: Request<content::SetFlagRequest>,
    ) -> Result<Response<content::SetFlagResponse>, Status> {
        Err(Status::unimplemented("ops call content directly"))
    }

    async fn upsert_promotion(
        &self,
        _: Request<content::UpsertPromotionRequest>,
    ) -> Result<Response<content::UpsertPromotionResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }

    async fn upsert_alliance(
        &self,
        _: Request<content::UpsertAllianceRequest>,
    ) -> Result<Response<content::UpsertAllianceResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }

    async fn upsert_banner(
        &self,
        _: Request<content::UpsertBannerRequest>,
    ) -> Result<Response<content::UpsertBannerResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }

    async fn upsert_faq(
        &self,
        _: Request<content::UpsertFaqRequest>,
    ) -> Result<Response<content::UpsertFaqResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }
}

impl Fakes {
    fn content_fails(&self) -> Result<(), Status> {
        match self.script().content_error.clone() {
            Some(body) => Err(body.into_status()),
            None => Ok(()),
        }
    }
}

#[tonic::async_trait]
impl MissionsService for Fakes {
    async fn list_my_missions(
        &self,
        request: Request<missions::ListMyMissionsRequest>,
    ) -> Result<Response<missions::ListMyMissionsResponse>, Status> {
        self.member_only(&request)?;
        if let Some(body) = self.script().missions_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(missions::ListMyMissionsResponse {
            missions: vec![missions::MemberMission {
                mission_id: "m-carnes".into(),
                category_id: 10,
                title: "Carnes del mes".into(),
                description: "Compra $20.000 en carnes".into(),
                goal_kind: missions::GoalKind::Amount as i32,
                goal: 20_000,
                progress: 12_000,
                reward: 1_000,
                starts_on: "2026-11-01".into(),
                ends_on: "2026-11-30".into(),
                status: missions::MissionStatus::InProgress as i32,
                completed_at: String::new(),
            }],
        }))
    }

    async fn has_missions(
        &self,
        request: Request<missions::HasMissionsRequest>,
    ) -> Result<Response<missions::HasMissionsResponse>, Status> {
        self.member_only(&request)?;
        if let Some(body) = self.script().missions_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(missions::HasMissionsResponse {
            has_missions: self.script().has_missions,
        }))
    }

    async fn upsert_mission(
        &self,
        _: Request<missions::UpsertMissionRequest>,
    ) -> Result<Response<missions::UpsertMissionResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls missions directly",
        ))
    }

    async fn set_history_loading(
        &self,
        _: Request<missions::SetHistoryLoadingRequest>,
    ) -> Result<Response<missions::SetHistoryLoadingResponse>, Status> {
        Err(Status::unimplemented(
            "the migration tool calls missions directly",
        ))
    }
}

struct TestGateway {
    base: String,
    client: reqwest::Client,
    fakes: Fakes,
    store: SharedStore,
    _stop: ShutdownTrigger,
}

async fn spawn_fakes(fakes: Fakes) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(AuthServiceServer::new(fakes.clone()))
            .add_service(AccountsServiceServer::new(fakes.clone()))
            .add_service(ContentServiceServer::new(fakes.clone()))
            .add_service(RegistrationServiceServer::new(fakes.clone()))
            .add_service(MissionsServiceServer::new(fakes))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    format!("http://{address}")
}

async fn gateway_with(adjust: impl FnOnce(&mut Settings)) -> TestGateway {
    let fakes = Fakes {
        script: Arc::default(),
        keys: TestKeys::new(),
    };
    let url = spawn_fakes(fakes.clone()).await;
    let mut settings = Settings {
        host: "127.0.0.1".into(),
        port: 0,
        web_dir: None,
        auth: ClientSettings::for_url(url.clone()),
        accounts: ClientSettings::for_url(url.clone()),
        content: ClientSettings::for_url(url.clone()),
        registration: ClientSettings::for_url(url.clone()),
        missions: ClientSettings::for_url(url),
        ..Settings::default()
    };
    adjust(&mut settings);
    let store: SharedStore = Arc::new(MemoryStore::default());
    let deps = Dependencies {
        environment: Environment::Development,
        store: store.clone(),
        key_source: fakes.keys.key_source(),
        mailbox: None,
    };
    let app = Application::build(settings, deps).await.unwrap();
    let base = format!("http://127.0.0.1:{}", app.port());
    let (trigger, shutdown) = shutdown::channel();
    tokio::spawn(app.run_until_stopped(shutdown));
    TestGateway {
        base,
        client: reqwest::Client::new(),
        fakes,
        store,
        _stop: trigger,
    }
}

async fn gateway() -> TestGateway {
    gateway_with(|_| {}).await
}

impl TestGateway {
    fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.client
            .post(format!("{}{path}", self.base))
            .header("x-miclub-csrf", "1")
    }

    fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.get(format!("{}{path}", self.base))
    }

    async fn login(&self) -> reqwest::Response {
        self.post("/api/login")
            .header("recaptcha-token", "t")
            .json(&json!({"user": "11.111.111-1", "password": "secreto"}))
            .send()
            .await
            .unwrap()
    }

    fn set_auth_error(&self, body: Option<ErrorBody>) {
        self.fakes.script.lock().unwrap().auth_error = body;
    }

    fn set_accounts_error(&self, body: Option<ErrorBody>) {
        self.fakes.script.lock().unwrap().accounts_error = body;
    }

    fn put(&self, path: &str) -> reqwest::RequestBuilder {
        self.client
            .put(format!("{}{path}", self.base))
            .header("x-miclub-csrf", "1")
    }

    fn set_content_error(&self, body: Option<ErrorBody>) {
        self.fakes.script.lock().unwrap().content_error = body;
    }

    fn script(&self) -> std::sync::MutexGuard<'_, Script> {
        self.fakes.script.lock().unwrap()
    }

    fn bearer(&self) -> String {
        format!(
            "Bearer {}",
            self.fakes.keys.member_token(MEMBER, "sid-1", 600)
        )
    }
}

fn set_cookies(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect()
}

fn cookie<'a>(cookies: &'a [String], name: &str) -> &'a str {
    cookies
        .iter()
        .find(|c| c.starts_with(&format!("{name}=")))
        .map(String::as_str)
        .unwrap_or_else(|| panic!("no {name} cookie in {cookies:?}"))
}

async fn error_of(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn every_service_error_reaches_the_browser_with_its_status_code_and_spanish_text() {
    // One login per code: more than the edge allows a single address by default.
    let gw = gateway_with(|s| s.login_requests_per_minute = 1_000).await;
    for code in ErrorCode::ALL {
        let body = ErrorBody::new(*code).with_field("user");
        gw.set_auth_error(Some(body.clone()));
        let (status, json) = error_of(gw.login().await).await;
        assert_eq!(status.as_u16(), code.http_status().as_u16(), "{code}");
        assert_eq!(json["code"], code.as_str());
        assert_eq!(json["message"], code.message());
        assert_eq!(json["field"], "user");
    }
}

#[tokio::test]
async fn an_email_not_verified_error_keeps_its_action_link() {
    let gw = gateway().await;
    gw.set_auth_error(Some(
        ErrorBody::new(ErrorCode::EmailNotVerified).with_action(
            "/registro/verificar-correo",
            "Reenviar correo de verificación",
        ),
    ));
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        json["action"],
        json!({"url": "/registro/verificar-correo", "urlName": "Reenviar correo de verificación"})
    );
}

#[tokio::test]
async fn the_password_step_sets_an_httponly_challenge_cookie_and_passes_the_client_address() {
    let gw = gateway().await;
    let response = gw.login().await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookies = set_cookies(&response);
    let challenge = cookie(&cookies, "mc_challenge");
    assert!(
        challenge.contains("challenge-1")
            && challenge.contains("HttpOnly")
            && challenge.contains("SameSite=Strict")
    );
    let json: Value = response.json().await.unwrap();
    assert_eq!(
        json,
        json!({"destination": "a***@example.cl", "expiresInSeconds": 300, "resendAfterSeconds": 60})
    );
    let login = gw.fakes.script.lock().unwrap().last_login.clone().unwrap();
    assert_eq!(login.client_ip, "127.0.0.1");
    assert_eq!(login.user, "11.111.111-1");
}

#[tokio::test]
async fn the_code_step_opens_the_session_and_returns_the_user_of_the_spec() {
    let gw = gateway().await;
    let response = gw
        .post("/api/validate-otp")
        .header("cookie", "mc_challenge=challenge-1")
        .json(&json!({"otp": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let cookies = set_cookies(&response);
    let session = cookie(&cookies, "mc_session");
    assert!(
        session.contains("HttpOnly")
            && session.contains("SameSite=Lax")
            && session.contains("Path=/")
    );
    assert!(!session.contains("Secure"), "plain http in development");
    assert!(cookie(&cookies, "mc_refresh").contains("Path=/api"));
    let is_logged = cookie(&cookies, "is-logged");
    assert!(is_logged.starts_with("is-logged=true") && !is_logged.contains("HttpOnly"));
    let json: Value = response.json().await.unwrap();
    assert_eq!(json["has_missions"], false);
    assert_eq!(json["is_user_migrating"], true);
    assert!(json["token"].as_str().unwrap().len() > 20);
    assert_eq!(
        json["user"],
        json!({
            "name": "Ana", "last_name": "González", "mother_surname": "Pérez",
            "phone_number": "+56911111111", "gender_id": 1, "birth_date": "1988-03-14",
            "email": "ana@example.cl",
            "terms_agreement": {"agreement": "accepted", "event_date": "2026-01-10T12:00:00Z"},
            "email_confirmed": true, "documentType": "RUT", "documentNumber": "11111111-1"
        })
    );
}

#[tokio::test]
async fn secure_cookies_are_marked_secure_when_configured() {
    let gw = gateway_with(|s| s.secure_cookies = true).await;
    let cookies = set_cookies(&gw.login().await);
    assert!(cookie(&cookies, "__Host-mc_challenge").contains("Secure"));
}

#[tokio::test]
async fn a_code_step_without_a_pending_login_is_told_the_code_expired() {
    let gw = gateway().await;
    let (status, json) = error_of(
        gw.post("/api/validate-otp")
            .json(&json!({"otp": "123456"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(json["code"], "ERR_OTP_EXPIRED");
    let (status, _) = error_of(gw.post("/api/resend-otp").send().await.unwrap()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_failed_member_lookup_after_the_code_closes_the_new_session() {
    let gw = gateway().await;
    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::Unavailable)));
    let response = gw
        .post("/api/validate-otp")
        .header("cookie", "mc_challenge=challenge-1")
        .json(&json!({"otp": "123456"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(
        set_cookies(&response)
            .iter()
            .all(|c| !c.starts_with("mc_session=ey"))
    );
    assert_eq!(gw.fakes.script.lock().unwrap().logouts.len(), 1);
}

#[tokio::test]
async fn the_balance_is_never_cached_and_a_member_without_club_account_gets_406() {
    let gw = gateway().await;
    let response = gw
        .get("/api/balance")
        .header("authorization", gw.bearer())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["cache-control"], "no-store");
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"balance": 12345, "updatedAt": "2026-11-01T10:00:00Z"})
    );

    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::NoClubAccount)));
    let (status, json) = error_of(
        gw.get("/api/balance")
            .header("authorization", gw.bearer())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(json["code"], "ERR_NO_CLUB_ACCOUNT");
}

#[tokio::test]
async fn the_session_cookie_works_like_a_bearer_token() {
    let gw = gateway().await;
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    let response = gw
        .get("/api/profile")
        .header("cookie", format!("mc_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.json::<Value>().await.unwrap()["name"], "Ana");
}

#[tokio::test]
async fn member_routes_refuse_missing_expired_foreign_and_revoked_tokens_with_401() {
    let gw = gateway().await;
    let foreign = TestKeys::new().member_token(MEMBER, "sid-1", 600);
    let expired = gw.fakes.keys.member_token(MEMBER, "sid-1", -600);
    let revoked = gw.fakes.keys.member_token(MEMBER, "sid-gone", 600);
    gw.store
        .set(
            &miclub_platform::tokens::revocation_key("sid-gone"),
            "1",
            std::time::Duration::from_secs(60),
        )
        .await
        .unwrap();
    for auth in [None, Some(foreign), Some(expired), Some(revoked)] {
        let mut request = gw.get("/api/balance");
        if let Some(token) = &auth {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let (status, json) = error_of(request.send().await.unwrap()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(json["code"], "ERR_UNAUTHENTICATED");
    }
}

#[tokio::test]
async fn a_service_token_is_no_member_session_at_the_gateway() {
    let gw = gateway().await;
    let service = gw.fakes.keys.service_token("pos", 600);
    let request = gw
        .get("/api/balance")
        .header("authorization", format!("Bearer {service}"));
    let (status, json) = error_of(request.send().await.unwrap()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(json["code"], "ERR_FORBIDDEN");
}

#[tokio::test]
async fn a_401_from_a_service_is_a_401_at_the_gateway() {
    let gw = gateway().await;
    gw.set_accounts_error(Some(ErrorBody::new(ErrorCode::Unauthenticated)));
    let (status, _) = error_of(
        gw.get("/api/profile")
            .header("authorization", gw.bearer())
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn logout_revokes_the_session_in_auth_and_clears_every_cookie() {
    let gw = gateway().await;
    let token = gw.fakes.keys.member_token(MEMBER, "sid-1", 600);
    let response = gw
        .post("/api/logout")
        .header(
            "cookie",
            format!("mc_session={token}; mc_refresh=refresh-1"),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let cookies = set_cookies(&response);
    for name in ["mc_session", "mc_refresh", "is-logged", "mc_challenge"] {
        assert!(
            cookie(&cookies, name).contains("Max-Age=0"),
            "{name} cleared"
        );
    }
    assert_eq!(gw.fakes.script.lock().unwrap().logouts, vec![token]);
}

#[tokio::test]
async fn refresh_rotates_the_cookies_and_a_refused_refresh_clears_them() {
    let gw = gateway().await;
    let response = gw
        .post("/api/refresh")
        .header("cookie", "mc_refresh=refresh-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(cookie(&set_cookies(&response), "mc_session").contains("HttpOnly"));

    gw.set_auth_error(Some(ErrorBody::new(ErrorCode::Unauthenticated)));
    let response = gw
        .post("/api/refresh")
        .header("cookie", "mc_refresh=refresh-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert!(cookie(&set_cookies(&response), "mc_session").contains("Max-Age=0"));
    let response = gw.post("/api/refresh").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn state_changing_requests_need_the_csrf_header_and_an_allowed_origin() {
    let gw = gateway().await;
    let no_header = gw
        .client
        .post(format!("{}/api/login", gw.base))
        .header("recaptcha-token", "t")
        .json(&json!({"user": "1-9", "password": "x"}))
        .send()
        .await
        .unwrap();
    let (status, json) = error_of(no_header).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(json["code"], "ERR_CSRF");
    let cross_site = gw
        .post("/api/logout")
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status(), StatusCode::FORBIDDEN);
    let same_site = gw
        .post("/api/logout")
        .header("origin", gw.base.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(same_site.status(), StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn bad_input_gets_a_4xx_with_a_spanish_message_never_a_500() {
    let gw = gateway().await;
    let cases: Vec<(reqwest::RequestBuilder, u16, &str)> = vec![
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .header("content-type", "application/json")
                .body("{\"user\": "),
            400,
            "ERR_INVALID_JSON",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .header("content-type", "text/plain")
                .body("user=1"),
            415,
            "ERR_UNSUPPORTED_MEDIA_TYPE",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .json(&json!({"user": "1"})),
            400,
            "ERR_INVALID_ARGUMENT",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .json(&json!({"user": 5, "password": []})),
            400,
            "ERR_INVALID_ARGUMENT",
        ),
        (
            gw.post("/api/login")
                .header("recaptcha-token", "t")
                .json(&json!({"user": "1", "password": "x".repeat(20_000)})),
            413,
            "ERR_PAYLOAD_TOO_LARGE",
        ),
        (
            gw.post("/api/login")
                .json(&json!({"user": "11.111.111-1", "password": "x"})),
            400,
            "ERR_RECAPTCHA",
        ),
        (gw.get("/api/nothing-here"), 404, "ERR_NOT_FOUND"),
        (
            gw.client
                .delete(format!("{}/api/balance", gw.base))
                .header("x-miclub-csrf", "1"),
            405,
            "ERR_METHOD_NOT_ALLOWED",
        ),
    ];
    for (request, status, code) in cases {
        let (got, json) = error_of(request.send().await.unwrap()).await;
        assert_eq!(
            (got.as_u16(), json["code"].as_str().unwrap()),
            (status, code)
        );
        assert!(json["message"].as_str().unwrap().len() > 10);
    }
}

#[tokio::test]
async fn login_in_maintenance_answers_503_with_a_clear_message() {
    let gw = gateway_with(|s| s.flags.is_login_maintenance = true).await;
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(
        json["message"],
        miclub_gateway::routes::session::LOGIN_MAINTENANCE_MESSAGE
    );
    let context: Value = gw
        .get("/api/context")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(context["isLoginMaintenance"], true);
    assert_eq!(context["portalEnabled"], true);
    assert_eq!(context["changePasswordEnable"], false);
    assert_eq!(context["recaptchaSiteKey"], Value::Null);
}

#[tokio::test]
async fn login_requests_past_the_edge_limit_are_refused_per_client_address() {
    let gw = gateway_with(|s| s.login_requests_per_minute = 3).await;
    for _ in 0..3 {
        assert_eq!(gw.login().await.status(), StatusCode::OK);
    }
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(json["code"], "ERR_TOO_MANY_ATTEMPTS");
}

#[tokio::test]
async fn a_service_that_is_down_gives_a_spanish_503() {
    let gw = gateway_with(|s| s.auth = ClientSettings::for_url("http://127.0.0.1:1")).await;
    let (status, json) = error_of(gw.login().await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(json["code"], "ERR_UNAVAILABLE");
}

#[tokio::test]
async fn every_answer_carries_a_request_id() {
    let gw = gateway().await;
    let response = gw.get("/api/health").send().await.unwrap();
    assert_eq!(
        response.headers()["x-request-id"].to_str().unwrap().len(),
        36
    );
    let response = gw
        .get("/api/health")
        .header("x-request-id", "abc")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "abc");
}

#[tokio::test]
async fn production_refuses_the_dev_mailbox_and_the_pass_through_recaptcha() {
    let keys = TestKeys::new();
    let deps = || Dependencies {
        environment: Environment::Production,
        store: Arc::new(MemoryStore::default()),
        key_source: keys.key_source(),
        mailbox: None,
    };
    let mailbox = Settings {
        port: 0,
        dev_mailbox: true,
        ..Settings::default()
    };
    assert!(Application::build(mailbox, deps()).await.is_err());
    let pass_through = Settings {
        port: 0,
        ..Settings::default()
    };
    assert!(Application::build(pass_through, deps()).await.is_err());
}

#[tokio::test]
async fn logout_with_only_the_refresh_cookie_still_revokes_the_session_in_auth() {
    let gw = gateway().await;
    let response = gw
        .post("/api/logout")
        .header("cookie", "mc_refresh=refresh-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        gw.fakes.script.lock().unwrap().logouts,
        vec![String::new()],
        "auth asked once, without an access token"
    );
}
