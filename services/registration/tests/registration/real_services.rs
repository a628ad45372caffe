//! Registration against the real auth, accounts and content `Application`s on port 0, wired
//! with service clients the way the standalone binary wires them. The gRPC credentials adapter
//! is wrapped so its first `CreateCredentials` answer is lost after auth stored the credentials:
//! the retry must still end with exactly one member and one set of credentials, and the member's
//! password must be the one auth checks at login. The members adapter is wrapped too: the first
//! answer that an email is in use is lost the same way, and the retry must not mail again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use miclub_platform::backend_tests;
use miclub_platform::config::Environment;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::member::MemberId;
use miclub_platform::notify::DevMailbox;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::storage::{Backend, Database};
use miclub_platform::testing::TestEnv;
use miclub_platform::tokens::{GrpcKeySource, ServiceCredentials, ServiceTokens};
use miclub_proto::auth::v1::StartLoginRequest;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::registration::v1 as pb;
use miclub_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use miclub_registration::domain::{
    Credentials, Enrolment, Identity, Members, NewMember, PersonalData,
};
use miclub_registration::error::{RegistrationError, Result};
use secrecy::SecretString;
use sqlx::Row;

use crate::support::{CARD, PASSWORD, body, chilean, proto_data};

const REGISTRATION_SECRET: &str = "registration-secret-for-this-test-only";
const GATEWAY_SECRET: &str = "gateway-real-services-secret-2f8a6c";
const ACCOUNTS_SECRET: &str = "accounts-secret-for-this-test-only";

/// The real credentials adapter, except that the first `CreateCredentials` answer is lost
/// after auth handled it (as when the connection drops on the way back).
#[derive(Debug)]
struct LoseFirstAnswer {
    inner: Arc<dyn Credentials>,
    lost: AtomicBool,
}

#[async_trait]
impl Credentials for LoseFirstAnswer {
    async fn check_password_rules(&self, password: &SecretString) -> Result<()> {
        self.inner.check_password_rules(password).await
    }

    async fn create_credentials(
        &self,
        member_id: &MemberId,
        login_id: &str,
        email: &str,
        password: &SecretString,
    ) -> Result<()> {
        self.inner
            .create_credentials(member_id, login_id, email, password)
            .await?;
        if !self.lost.swap(true, Ordering::SeqCst) {
            return Err(RegistrationError::Unavailable("answer lost".into()));
        }
        Ok(())
    }
}

/// The real members adapter, except that the first answer that an email is in use is lost
/// after accounts handled it (and mailed the notice).
#[derive(Debug)]
struct LoseFirstInUse {
    inner: Arc<dyn Members>,
    lost: AtomicBool,
}

#[async_trait]
impl Members for LoseFirstInUse {
    async fn check_identity(&self, identity: &Identity) -> Result<()> {
        self.inner.check_identity(identity).await
    }

    async fn check_profile(&self, profile: &PersonalData) -> Result<()> {
        self.inner.check_profile(profile).await
    }

    async fn register_member(&self, member: &NewMember<'_>) -> Result<Enrolment> {
        let answer = self.inner.register_member(member).await?;
        if matches!(answer, Enrolment::EmailInUse { .. }) && !self.lost.swap(true, Ordering::SeqCst)
        {
            return Err(RegistrationError::Unavailable("answer lost".into()));
        }
        Ok(answer)
    }

    async fn activate_member(&self, member_id: &MemberId) -> Result<String> {
        self.inner.activate_member(member_id).await
    }
}

fn loopback() -> ServerSettings {
    ServerSettings {
        host: "127.0.0.1".into(),
        port: 0,
        drain_delay_ms: 0,
        ..ServerSettings::default()
    }
}

fn client(port: u16) -> ClientSettings {
    ClientSettings::for_url(format!("http://127.0.0.1:{port}"))
}

async fn another_env(backend: Backend) -> TestEnv {
    match backend {
        Backend::Postgres => TestEnv::postgres_redis().await,
        Backend::Sqlite => TestEnv::sqlite_memory().await,
    }
}

/// The four services running, each on its own database.
struct Portal {
    registration_port: u16,
    auth_port: u16,
    accounts_db: Database,
    auth_db: Database,
    mailbox: Arc<DevMailbox>,
    _envs: Vec<TestEnv>,
    _shutdown: ShutdownTrigger,
}

impl Portal {
    async fn start(env: TestEnv) -> Self {
        let auth_env = another_env(env.backend).await;
        let accounts_env = another_env(env.backend).await;
        let content_env = another_env(env.backend).await;
        let store = env.store.clone();
        let notifier = Arc::new(DevMailbox::default());
        let (trigger, stop) = shutdown::channel();
        let digest = miclub_auth::secret_digest;

        let auth = miclub_auth::Application::build(
            miclub_auth::Settings {
                server: loopback(),
                database: auth_env.database.clone(),
                service_clients: [
                    ("registration".to_owned(), digest(REGISTRATION_SECRET)),
                    ("accounts".to_owned(), digest(ACCOUNTS_SECRET)),
                    ("gateway".to_owned(), digest(GATEWAY_SECRET)),
                ]
                .into_iter()
                .collect(),
                ..miclub_auth::Settings::default()
            },
            miclub_auth::Dependencies {
                store: store.clone(),
                notifier: notifier.clone(),
                environment: Environment::Development,
            },
        )
        .await
        .expect("auth builds");
        let auth_port = auth.port();
        tokio::spawn(auth.run_until_stopped(stop.clone()));

        let accounts_client = ServiceCredentials {
            client_id: "accounts".into(),
            client_secret: SecretString::from(ACCOUNTS_SECRET),
        };
        let accounts_tokens = Arc::new(ServiceTokens::new(
            client(auth_port).channel().unwrap(),
            accounts_client.clone(),
        ));
        let accounts = miclub_accounts::Application::build(
            miclub_accounts::Settings {
                server: loopback(),
                database: accounts_env.database.clone(),
                auth: client(auth_port),
                service_client: accounts_client,
                ..miclub_accounts::Settings::default()
            },
            miclub_accounts::Dependencies {
                bus: Arc::new(miclub_platform::events::MemoryBus::new()),
                store: store.clone(),
                key_source: Arc::new(GrpcKeySource::new(client(auth_port).channel().unwrap())),
                notifier: notifier.clone(),
                login_emails: Arc::new(miclub_accounts::GrpcLoginEmails::new(
                    client(auth_port).channel().unwrap(),
                    accounts_tokens,
                )),
            },
        )
        .await
        .expect("accounts builds");
        let accounts_port = accounts.port();
        tokio::spawn(accounts.run_until_stopped(stop.clone()));

        let content = miclub_content::Application::build(
            miclub_content::Settings {
                server: loopback(),
                database: content_env.database.clone(),
                ..miclub_content::Settings::default()
            },
            miclub_content::Dependencies {
                key_source: Arc::new(GrpcKeySource::new(client(auth_port).channel().unwrap())),
            },
        )
        .await
        .expect("content builds");
        let content_port = content.port();
        tokio::spawn(content.run_until_stopped(stop.clone()));

        let mut settings = crate::support::settings(&env);
        settings.auth = client(auth_port);
        settings.accounts = client(accounts_port);
        settings.content = client(content_port);
        settings.service_client = ServiceCredentials {
            client_id: "registration".into(),
            client_secret: SecretString::from(REGISTRATION_SECRET),
        };
        let mut deps = miclub_registration::Dependencies::over_grpc(&settings, store).unwrap();
        deps.credentials = Arc::new(LoseFirstAnswer {
            inner: deps.credentials,
            lost: AtomicBool::new(false),
        });
        deps.members = Arc::new(LoseFirstInUse {
            inner: deps.members,
            lost: AtomicBool::new(false),
        });
        let registration = miclub_registration::Application::build(settings, deps)
            .await
            .expect("registration builds");
        let registration_port = registration.port();
        tokio::spawn(registration.run_until_stopped(stop));

        Self {
            registration_port,
            auth_port,
            accounts_db: Database::connect(&accounts_env.database).await.unwrap(),
            auth_db: Database::connect(&auth_env.database).await.unwrap(),
            mailbox: notifier,
            _envs: vec![env, auth_env, accounts_env, content_env],
            _shutdown: trigger,
        }
    }

    /// The gateway's service tokens, from auth.
    fn gateway_tokens(&self) -> Arc<miclub_platform::tokens::ServiceTokens> {
        Arc::new(miclub_platform::tokens::ServiceTokens::new(
            client(self.auth_port).channel().unwrap(),
            miclub_platform::tokens::ServiceCredentials {
                client_id: "gateway".into(),
                client_secret: GATEWAY_SECRET.into(),
            },
        ))
    }

    /// Registration as the gateway calls it: with the gateway's service token from auth.
    async fn registration(
        &self,
    ) -> RegistrationServiceClient<miclub_platform::access::ServiceChannel> {
        RegistrationServiceClient::new(miclub_platform::access::as_client(
            client(self.registration_port).channel().unwrap(),
            Some(self.gateway_tokens()),
        ))
    }

    /// (member ids with `document`, status of the first one).
    async fn members_of(&self, document: &str) -> Vec<(String, String)> {
        sqlx::query("SELECT member_id, status FROM members WHERE document_number = $1")
            .bind(document)
            .fetch_all(self.accounts_db.pool())
            .await
            .unwrap()
            .iter()
            .map(|row| (row.get("member_id"), row.get("status")))
            .collect()
    }

    async fn credentials_of(&self, login_id: &str) -> Vec<String> {
        sqlx::query("SELECT member_id FROM credentials WHERE login_id = $1")
            .bind(login_id)
            .fetch_all(self.auth_db.pool())
            .await
            .unwrap()
            .iter()
            .map(|row| row.get("member_id"))
            .collect()
    }

    /// The password step as the gateway makes it (with its service token).
    async fn login(&self, user: &str, password: &str) -> ErrorBody {
        let mut auth = AuthServiceClient::new(miclub_platform::access::as_client(
            client(self.auth_port).channel().unwrap(),
            Some(self.gateway_tokens()),
        ));
        let status = auth
            .start_login(StartLoginRequest {
                user: user.into(),
                password: password.into(),
                client_ip: String::new(),
                user_agent: String::new(),
            })
            .await
            .expect_err("an unverified email cannot log in yet");
        ErrorBody::from_status(&status)
    }
}

async fn a_lost_credentials_answer_heals_on_retry_with_the_real_services(env: TestEnv) {
    let portal = Portal::start(env).await;
    let mut registration = portal.registration().await;
    let id = registration
        .start_registration(chilean("15.555.555-6", CARD, "10.1.1.1"))
        .await
        .expect("step 1 accepted by accounts")
        .into_inner()
        .registration
        .unwrap()
        .registration_id;
    // Accounts' own field message reaches the caller unchanged.
    let mut minor = proto_data("nueva.socia@correo.cl");
    minor.birth_date = "2015-01-01".into();
    let refused = registration
        .submit_personal_data(pb::SubmitPersonalDataRequest {
            registration_id: id.clone(),
            personal_data: Some(minor),
        })
        .await
        .unwrap_err();
    let refused = body(&refused);
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    assert_eq!(refused.field.as_deref(), Some("birthDate"));
    assert_eq!(
        refused.message,
        "Debes ser mayor de 18 años para registrarte."
    );
    let mut data = proto_data("nueva.socia@correo.cl");
    data.birth_date = "1988-03-09".into();
    registration
        .submit_personal_data(pb::SubmitPersonalDataRequest {
            registration_id: id.clone(),
            personal_data: Some(data),
        })
        .await
        .expect("step 2 accepted by accounts");
    let complete = pb::CompleteRegistrationRequest {
        registration_id: id.clone(),
        password: PASSWORD.into(),
        accept_terms: true,
    };

    // Auth's own password rules, before anything is created.
    let weak = registration
        .complete_registration(pb::CompleteRegistrationRequest {
            password: "1234".into(),
            ..complete.clone()
        })
        .await
        .unwrap_err();
    let weak = body(&weak);
    assert_eq!(weak.code, ErrorCode::WeakPassword);
    assert_eq!(weak.field.as_deref(), Some("password"));
    assert!(portal.members_of("15555555-6").await.is_empty());

    let lost = registration
        .complete_registration(complete.clone())
        .await
        .unwrap_err();
    assert_eq!(body(&lost).code, ErrorCode::Unavailable);
    let pending = portal.members_of("15555555-6").await;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].1, "pending");

    let done = registration
        .complete_registration(complete.clone())
        .await
        .expect("the retry finishes")
        .into_inner();

    assert_eq!(done.member_id, pending[0].0);
    assert!(
        done.masked_email.ends_with("@correo.cl"),
        "{}",
        done.masked_email
    );
    assert!(!done.masked_email.contains("nueva.socia"));
    let members = portal.members_of("15555555-6").await;
    assert_eq!(members, vec![(done.member_id.clone(), "active".to_owned())]);
    assert_eq!(
        portal.credentials_of("15555555-6").await,
        vec![done.member_id.clone()]
    );
    // The stored password is the member's: right password → only the email is missing.
    assert_eq!(
        portal.login("15.555.555-6", PASSWORD).await.code,
        ErrorCode::EmailNotVerified
    );
    assert_eq!(
        portal.login("15.555.555-6", "otra clave larga").await.code,
        ErrorCode::InvalidCredentials
    );
    // A second registration of the same RUT is refused at step 1 with accounts' own body.
    let again = registration
        .start_registration(chilean("15555555-6", CARD, "10.1.1.1"))
        .await
        .unwrap_err();
    assert_eq!(body(&again).code, ErrorCode::RutAlreadyRegistered);
    // And the finished flow creates nothing more.
    let repeated = registration
        .complete_registration(complete)
        .await
        .unwrap_err();
    assert_eq!(body(&repeated).code, ErrorCode::RegistrationExpired);
}

/// Steps 1 and 2 of `rut` with `email`: the flow id and the step 2 answer as the client sees it
/// (its id and clock aside).
async fn through_step_2(portal: &Portal, rut: &str, email: &str) -> (String, pb::Registration) {
    let mut registration = portal.registration().await;
    let id = registration
        .start_registration(chilean(rut, CARD, ""))
        .await
        .expect("step 1 accepted")
        .into_inner()
        .registration
        .unwrap()
        .registration_id;
    let mut shown = registration
        .submit_personal_data(pb::SubmitPersonalDataRequest {
            registration_id: id.clone(),
            personal_data: Some(proto_data(email)),
        })
        .await
        .expect("step 2 accepted, member or not")
        .into_inner()
        .registration
        .unwrap();
    shown.registration_id.clear();
    shown.expires_in_seconds = 0;
    shown.personal_data.as_mut().unwrap().email.clear();
    if let Some(pb::registration::Identity::Chilean(chilean)) = shown.identity.as_mut() {
        chilean.rut.clear();
    }
    (id, shown)
}

async fn an_address_in_use_answers_like_a_free_one_and_creates_nothing_with_the_real_services(
    env: TestEnv,
) {
    let portal = Portal::start(env).await;
    let mut registration = portal.registration().await;
    let complete = |id: &str| pb::CompleteRegistrationRequest {
        registration_id: id.to_owned(),
        password: PASSWORD.into(),
        accept_terms: true,
    };
    // The owner of the address registers first (the lost credentials answer heals).
    let (id, _) = through_step_2(&portal, "16.666.666-K", "duena@correo.cl").await;
    registration
        .complete_registration(complete(&id))
        .await
        .unwrap_err();
    registration
        .complete_registration(complete(&id))
        .await
        .expect("the owner is registered");

    // Step 2: the same answer for the owner's address (any case) and a free one.
    let (taken_id, taken) = through_step_2(&portal, "17.777.777-3", "DUENA@correo.cl").await;
    let (free_id, free) = through_step_2(&portal, "18.888.888-7", "dueno@correo.cl").await;
    assert_eq!(taken, free);

    // Completion: the first in-use answer is lost after accounts mailed the notice; the retry
    // answers like the free address's completion.
    let lost = registration
        .complete_registration(complete(&taken_id))
        .await
        .unwrap_err();
    assert_eq!(body(&lost).code, ErrorCode::Unavailable);
    let taken_done = registration
        .complete_registration(complete(&taken_id))
        .await
        .expect("answered as a success")
        .into_inner();
    let free_done = registration
        .complete_registration(complete(&free_id))
        .await
        .expect("the free address registers")
        .into_inner();
    assert_eq!(taken_done.masked_email, "d***@correo.cl");
    assert_eq!(free_done.masked_email, "d***@correo.cl");

    // Nothing of the second registrant exists, and the owner got exactly one notice.
    assert!(portal.members_of("17777777-3").await.is_empty());
    assert!(portal.credentials_of("17777777-3").await.is_empty());
    let mails = portal.mailbox.list();
    let notices: Vec<_> = mails
        .iter()
        .filter(|mail| mail.subject == miclub_accounts::domain::NOTICE_SUBJECT)
        .collect();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].to, "duena@correo.cl");
    // A verification link went to each real registration only.
    assert_eq!(
        mails
            .iter()
            .filter(|mail| mail.to == "duena@correo.cl")
            .count(),
        2,
        "the owner's verification link and the notice"
    );
    // The finished flow creates and mails nothing more.
    let repeated = registration
        .complete_registration(complete(&taken_id))
        .await
        .unwrap_err();
    assert_eq!(body(&repeated).code, ErrorCode::RegistrationExpired);
    assert_eq!(portal.mailbox.list().len(), mails.len());
    // The free address's member is real: right password, only the email missing.
    assert_eq!(
        portal.login("18.888.888-7", PASSWORD).await.code,
        ErrorCode::EmailNotVerified
    );
}

backend_tests!(
    a_lost_credentials_answer_heals_on_retry_with_the_real_services,
    an_address_in_use_answers_like_a_free_one_and_creates_nothing_with_the_real_services,
);

/// Not a test: times completions of free and in-use addresses, alternating, with the real
/// services on SQLite, and prints the medians (`cargo test -p miclub-registration --test
/// registration time_both_completion_paths -- --ignored --nocapture`).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement, run by hand"]
async fn time_both_completion_paths() {
    let portal = Portal::start(TestEnv::sqlite_memory().await).await;
    let mut registration = portal.registration().await;
    let complete = |id: &str| pb::CompleteRegistrationRequest {
        registration_id: id.to_owned(),
        password: PASSWORD.into(),
        accept_terms: true,
    };
    // An owner, past the lost answers of both wrappers.
    let (id, _) = through_step_2(&portal, "16.666.666-K", "duena@correo.cl").await;
    let _ = registration.complete_registration(complete(&id)).await;
    registration
        .complete_registration(complete(&id))
        .await
        .unwrap();
    let (id, _) = through_step_2(&portal, "17.777.777-3", "duena@correo.cl").await;
    let _ = registration.complete_registration(complete(&id)).await;

    let (mut free, mut taken) = (Vec::new(), Vec::new());
    for round in 0..30u32 {
        for in_use in [false, true] {
            let body = 20_000_000 + round * 2 + u32::from(in_use);
            let rut = miclub_platform::identity::Rut::from_body(body).unwrap();
            let email = if in_use {
                "duena@correo.cl".to_owned()
            } else {
                format!("socia{body}@correo.cl")
            };
            let (id, _) = through_step_2(&portal, &rut.to_string(), &email).await;
            let started = std::time::Instant::now();
            registration
                .complete_registration(complete(&id))
                .await
                .unwrap();
            let took = started.elapsed();
            if in_use { &mut taken } else { &mut free }.push(took);
        }
    }
    let median = |times: &mut Vec<std::time::Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    println!(
        "completion medians over {} each: free {:?}, in use {:?}",
        free.len(),
        median(&mut free),
        median(&mut taken)
    );
}
