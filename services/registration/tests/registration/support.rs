//! Typed helpers: in-memory fakes of accounts, auth and content ([`Fakes`]), registration spawned
//! on port 0 against a test environment, requests of each step, and reading error bodies.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::ServerSettings;
use miclub_platform::member::MemberId;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::testing::{Bearer, BearerChannel, TestEnv, TestKeys};
use miclub_proto::registration::v1 as pb;
use miclub_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use miclub_registration::domain::{
    Credentials, Enrolment, Identity, Members, NewMember, PersonalData, Policy, Ports,
    Registrations, TermsSource,
};
use miclub_registration::error::{RegistrationError, Result};
use miclub_registration::store::Store;
use miclub_registration::verifier::RulesVerifier;
use miclub_registration::{Application, Dependencies, Settings};
use secrecy::{ExposeSecret, SecretString};
use tonic::transport::Channel;

pub const TERMS_VERSION: &str = "2026-11-01";
pub const RUT: &str = "12.345.678-5";
pub const CARD: &str = "100.123.456";

/// A member as the fake accounts keeps it.
#[derive(Debug, Clone)]
pub struct FakeMember {
    pub document_type: String,
    pub document_number: String,
    pub profile: PersonalData,
    pub terms_version: String,
    pub active: bool,
    pub activations_mailed: u32,
}

/// Credentials as the fake auth keeps them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeCredential {
    pub login_id: String,
    pub email: String,
    pub password: String,
}

/// Accounts, auth and content in memory. `fail_once(op)` makes the next call of `op`
/// (`"register_member"`, `"create_credentials"`, `"activate_member"`, …) fail as if the
/// service were down.
#[derive(Debug, Default)]
pub struct Fakes {
    pub members: Mutex<HashMap<String, FakeMember>>,
    pub credentials: Mutex<HashMap<String, FakeCredential>>,
    failing: Mutex<HashSet<&'static str>>,
    calls: Mutex<HashMap<&'static str, u32>>,
    /// When set, the id accounts answers for a new member of any document (a reused member).
    pub reuse_member_id: Mutex<Option<String>>,
    /// The member ids whose registration met an email in use, each mailed one notice (as
    /// accounts remembers them).
    pub notices: Mutex<Vec<(String, String)>>,
}

/// A refusal the way it arrives over gRPC, decoded the way the adapters decode it.
fn refused(service: &'static str, body: ErrorBody) -> RegistrationError {
    RegistrationError::from_status(service, &body.into_status())
}

impl Fakes {
    pub fn fail_once(&self, op: &'static str) {
        self.failing.lock().unwrap().insert(op);
    }

    /// How many times `op` was called.
    pub fn calls(&self, op: &'static str) -> u32 {
        self.calls.lock().unwrap().get(op).copied().unwrap_or(0)
    }

    fn enter(&self, op: &'static str) -> Result<()> {
        *self.calls.lock().unwrap().entry(op).or_default() += 1;
        if self.failing.lock().unwrap().remove(op) {
            return Err(RegistrationError::from_status(
                "fake",
                &tonic::Status::unavailable("connection refused"),
            ));
        }
        Ok(())
    }

    /// An active member, as if registered earlier.
    pub fn add_active_member(&self, member_id: &str, document_number: &str, email: &str) {
        self.members.lock().unwrap().insert(
            member_id.to_owned(),
            FakeMember {
                document_type: "RUT".into(),
                document_number: document_number.into(),
                profile: PersonalData {
                    email: email.into(),
                    ..personal_data()
                },
                terms_version: TERMS_VERSION.into(),
                active: true,
                activations_mailed: 0,
            },
        );
    }

    fn active_with_document(&self, number: &str) -> bool {
        self.members
            .lock()
            .unwrap()
            .values()
            .any(|m| m.active && m.document_number == number)
    }

    /// The notices mailed to `email`.
    pub fn notices_to(&self, email: &str) -> usize {
        self.notices
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, to)| to.eq_ignore_ascii_case(email))
            .count()
    }

    fn active_with_email(&self, email: &str, other_than: &str) -> bool {
        self.members.lock().unwrap().iter().any(|(id, m)| {
            m.active && id != other_than && m.profile.email.eq_ignore_ascii_case(email)
        })
    }
}

fn rut_taken() -> RegistrationError {
    refused(
        "accounts",
        ErrorBody::new(ErrorCode::RutAlreadyRegistered)
            .with_action("/recuperar-contrasena", "Recuperar contraseña"),
    )
}

fn masked(email: &str) -> String {
    let (user, domain) = email.split_once('@').unwrap_or((email, ""));
    format!("{}***@{domain}", &user[..1]).to_lowercase()
}

#[async_trait]
impl Members for Fakes {
    async fn check_identity(&self, identity: &Identity) -> Result<()> {
        self.enter("check_identity")?;
        if self.active_with_document(&identity.document_number()) {
            return Err(rut_taken());
        }
        Ok(())
    }

    async fn check_profile(&self, profile: &PersonalData) -> Result<()> {
        self.enter("check_profile")?;
        if !profile.email.contains('@') {
            return Err(refused(
                "accounts",
                ErrorBody::new(ErrorCode::InvalidArgument)
                    .with_field("email")
                    .with_message("Ingresa un correo electrónico válido."),
            ));
        }
        if profile.birth_date.as_str() > "2008-11-21" {
            return Err(refused(
                "accounts",
                ErrorBody::new(ErrorCode::InvalidArgument)
                    .with_field("birthDate")
                    .with_message("Debes ser mayor de 18 años para registrarte."),
            ));
        }
        Ok(())
    }

    async fn register_member(&self, member: &NewMember<'_>) -> Result<Enrolment> {
        self.enter("register_member")?;
        let number = member.identity.document_number();
        if self.active_with_document(&number) {
            return Err(rut_taken());
        }
        let email = &member.profile.email;
        if self.active_with_email(email, member.member_id.as_str()) {
            let mut notices = self.notices.lock().unwrap();
            if !notices
                .iter()
                .any(|(id, _)| id == member.member_id.as_str())
            {
                notices.push((member.member_id.as_str().to_owned(), email.clone()));
            }
            return Ok(Enrolment::EmailInUse {
                masked_email: masked(email),
            });
        }
        let mut members = self.members.lock().unwrap();
        // A pending member of the same document is taken over, as accounts does.
        let pending = members
            .iter()
            .find(|(_, m)| !m.active && m.document_number == number)
            .map(|(id, _)| id.clone());
        let id = pending
            .or_else(|| self.reuse_member_id.lock().unwrap().clone())
            .unwrap_or_else(|| member.member_id.as_str().to_owned());
        members.insert(
            id.clone(),
            FakeMember {
                document_type: member.identity.accounts_type().into(),
                document_number: number,
                profile: member.profile.clone(),
                terms_version: member.terms_version.into(),
                active: false,
                activations_mailed: 0,
            },
        );
        Ok(Enrolment::Member(
            MemberId::parse(&id).expect("a member id"),
        ))
    }

    async fn activate_member(&self, member_id: &MemberId) -> Result<String> {
        self.enter("activate_member")?;
        let mut members = self.members.lock().unwrap();
        let Some(member) = members.get_mut(member_id.as_str()) else {
            return Err(refused("accounts", ErrorBody::new(ErrorCode::NotFound)));
        };
        if !member.active {
            member.active = true;
            member.activations_mailed += 1;
        }
        Ok(masked(&member.profile.email))
    }
}

#[async_trait]
impl Credentials for Fakes {
    async fn check_password_rules(&self, password: &SecretString) -> Result<()> {
        self.enter("check_password_rules")?;
        if password.expose_secret().chars().count() < 8 {
            return Err(refused(
                "auth",
                ErrorBody::new(ErrorCode::WeakPassword)
                    .with_field("password")
                    .with_message("La contraseña debe tener al menos 8 caracteres."),
            ));
        }
        Ok(())
    }

    async fn create_credentials(
        &self,
        member_id: &MemberId,
        login_id: &str,
        email: &str,
        password: &SecretString,
    ) -> Result<()> {
        self.enter("create_credentials")?;
        let mut credentials = self.credentials.lock().unwrap();
        if credentials
            .iter()
            .any(|(id, c)| id != member_id.as_str() && c.login_id == login_id)
        {
            return Err(rut_taken());
        }
        credentials.insert(
            member_id.as_str().to_owned(),
            FakeCredential {
                login_id: login_id.to_owned(),
                email: email.to_owned(),
                password: password.expose_secret().to_owned(),
            },
        );
        Ok(())
    }
}

#[async_trait]
impl TermsSource for Fakes {
    async fn current_version(&self) -> Result<String> {
        self.enter("current_version")?;
        Ok(TERMS_VERSION.to_owned())
    }
}

/// Settings of a test instance: loopback, port 0, no drain delay, the environment's database.
pub fn settings(env: &TestEnv) -> Settings {
    Settings {
        server: ServerSettings {
            host: "127.0.0.1".into(),
            port: 0,
            drain_delay_ms: 0,
            ..ServerSettings::default()
        },
        database: env.database.clone(),
        ..Settings::default()
    }
}

/// Registration running for one test, its fakes, and the same flows through the domain.
pub struct TestApp {
    pub port: u16,
    pub fakes: Arc<Fakes>,
    /// The service's database, to count flows.
    pub store: Store,
    /// The same flows and fakes through the domain, for tests that move the clock.
    pub registrations: Registrations,
    /// Signs the callers' tokens.
    pub keys: TestKeys,
    /// Kept for the life of the test: dropping it removes the database.
    _env: TestEnv,
    _shutdown: ShutdownTrigger,
}

impl TestApp {
    pub async fn spawn(env: TestEnv) -> Self {
        Self::spawn_with(env, |_| {}).await
    }

    /// Spawns with settings adjusted by `adjust` (a short ttl, a low limit, …).
    pub async fn spawn_with(env: TestEnv, adjust: impl FnOnce(&mut Settings)) -> Self {
        let mut settings = settings(&env);
        adjust(&mut settings);
        let fakes = Arc::new(Fakes::default());
        let keys = TestKeys::new();
        let deps = Dependencies {
            ephemeral: env.store.clone(),
            members: fakes.clone(),
            credentials: fakes.clone(),
            terms: fakes.clone(),
            key_source: keys.key_source(),
        };
        let policy = Policy {
            flow_ttl: settings.flow_ttl(),
            start_attempts: settings.start_attempts,
            start_window: settings.start_window(),
            completion_pace: settings.completion_pace(),
        };
        let app = Application::build(settings, deps)
            .await
            .expect("registration builds");
        let port = app.port();
        let (trigger, shutdown) = shutdown::channel();
        tokio::spawn(app.run_until_stopped(shutdown));
        let store = Store::connect(&env.database).await.expect("test store");
        let registrations = Registrations::new(
            store.clone(),
            env.store.clone(),
            Ports {
                members: fakes.clone(),
                credentials: fakes.clone(),
                terms: fakes.clone(),
                verifier: Arc::new(RulesVerifier),
            },
            policy,
        );
        Self {
            port,
            fakes,
            store,
            registrations,
            keys,
            _env: env,
            _shutdown: trigger,
        }
    }

    /// A client calling as the gateway does (a service token granted registration's methods).
    pub async fn client(&self) -> RegistrationServiceClient<BearerChannel> {
        let channel = Channel::from_shared(format!("http://127.0.0.1:{}", self.port))
            .unwrap()
            .connect()
            .await
            .expect("connect to registration");
        let token = self.keys.token_for_services(
            "gateway",
            &["miclub.registration.v1.RegistrationService"],
            600,
        );
        RegistrationServiceClient::with_interceptor(channel, Bearer(token))
    }

    /// Step 1 with a Chilean identity; the new flow.
    pub async fn start_chilean(&self, rut: &str) -> pb::Registration {
        self.client()
            .await
            .start_registration(chilean(rut, CARD, "10.0.0.1"))
            .await
            .expect("step 1 accepted")
            .into_inner()
            .registration
            .unwrap()
    }

    /// Step 2 with `data`.
    pub async fn submit(
        &self,
        id: &str,
        data: pb::PersonalData,
    ) -> Result<pb::Registration, tonic::Status> {
        self.client()
            .await
            .submit_personal_data(pb::SubmitPersonalDataRequest {
                registration_id: id.to_owned(),
                personal_data: Some(data),
            })
            .await
            .map(|r| r.into_inner().registration.unwrap())
    }

    /// Step 3 with a good password and the terms accepted.
    pub async fn complete(
        &self,
        id: &str,
    ) -> Result<pb::CompleteRegistrationResponse, tonic::Status> {
        self.client()
            .await
            .complete_registration(pb::CompleteRegistrationRequest {
                registration_id: id.to_owned(),
                password: PASSWORD.into(),
                accept_terms: true,
            })
            .await
            .map(|r| r.into_inner())
    }

    /// Steps 1 and 2 of `rut` with `email`; the flow id, at step 3.
    pub async fn at_step_3(&self, rut: &str, email: &str) -> String {
        let id = self.start_chilean(rut).await.registration_id;
        self.submit(&id, proto_data(email))
            .await
            .expect("step 2 accepted");
        id
    }

    /// Ends the flow of `id` as the gateway's DELETE does.
    pub async fn cancel(&self, id: &str) -> Result<(), tonic::Status> {
        self.client()
            .await
            .cancel_registration(pb::CancelRegistrationRequest {
                registration_id: id.to_owned(),
            })
            .await
            .map(drop)
    }

    pub async fn get(&self, id: &str) -> Result<pb::Registration, tonic::Status> {
        self.client()
            .await
            .get_registration(pb::GetRegistrationRequest {
                registration_id: id.to_owned(),
            })
            .await
            .map(|r| r.into_inner().registration.unwrap())
    }

    /// Members and credentials in the fakes: (members, active members, credentials).
    pub fn counts(&self) -> (usize, usize, usize) {
        let members = self.fakes.members.lock().unwrap();
        (
            members.len(),
            members.values().filter(|m| m.active).count(),
            self.fakes.credentials.lock().unwrap().len(),
        )
    }
}

pub const PASSWORD: &str = "una clave larga";

pub fn chilean(rut: &str, card: &str, client_ip: &str) -> pb::StartRegistrationRequest {
    pb::StartRegistrationRequest {
        identity: Some(pb::start_registration_request::Identity::Chilean(
            pb::ChileanIdentity {
                rut: rut.into(),
                document_number: card.into(),
            },
        )),
        client_ip: client_ip.into(),
    }
}

pub fn foreign(
    kind: pb::ForeignDocumentType,
    number: &str,
    country: &str,
) -> pb::StartRegistrationRequest {
    pb::StartRegistrationRequest {
        identity: Some(pb::start_registration_request::Identity::Foreign(
            pb::ForeignIdentity {
                document_type: kind as i32,
                document_number: number.into(),
                country: country.into(),
            },
        )),
        client_ip: "10.0.0.2".into(),
    }
}

/// Valid personal data of an adult.
pub fn personal_data() -> PersonalData {
    PersonalData {
        name: "Ana".into(),
        last_name: "Pérez".into(),
        mother_surname: "Soto".into(),
        phone_number: "+56912345678".into(),
        birth_date: "1990-05-17".into(),
        gender_id: 2,
        email: "ana@correo.cl".into(),
    }
}

pub fn proto_data(email: &str) -> pb::PersonalData {
    let data = personal_data();
    pb::PersonalData {
        name: data.name,
        last_name: data.last_name,
        mother_surname: data.mother_surname,
        phone_number: data.phone_number,
        birth_date: data.birth_date,
        gender_id: data.gender_id,
        email: email.into(),
    }
}

/// The error body a status carries.
pub fn body(status: &tonic::Status) -> ErrorBody {
    ErrorBody::from_status(status)
}
