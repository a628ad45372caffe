//! Registration against the real auth, accounts and content `Application`s on port 0, wired
//! with service clients the way the standalone binary wires them. The gRPC credentials adapter
//! is wrapped so its first `CreateCredentials` answer is lost after auth stored the credentials:
//! the retry must still end with exactly one member and one set of credentials, and the member's
//! password must be the one auth checks at login.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use miclub_platform::backend_tests;
use miclub_platform::config::Environment;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::grpc::{ClientSettings, ServerSettings};
use miclub_platform::notify::DevMailbox;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::storage::{Backend, Database};
use miclub_platform::testing::TestEnv;
use miclub_platform::tokens::{GrpcKeySource, ServiceCredentials, ServiceTokens};
use miclub_proto::auth::v1::StartLoginRequest;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use miclub_proto::registration::v1 as pb;
use miclub_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use miclub_registration::domain::Credentials;
use miclub_registration::error::{RegistrationError, Result};
use secrecy::SecretString;
use sqlx::Row;

use crate::support::{CARD, PASSWORD, body, chilean, proto_data};

const REGISTRATION_SECRET: &str = "registration-secret-for-this-test-only";
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
        member_id: &str,
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

fn loopback() -> ServerSettings {
    ServerSettings {
        host: "127.0.0.1".into(),
        port: 0,
        drain_delay_ms: 0,
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
                notifier,
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
            _envs: vec![env, auth_env, accounts_env, content_env],
            _shutdown: trigger,
        }
    }

    async fn registration(&self) -> RegistrationServiceClient<tonic::transport::Channel> {
        RegistrationServiceClient::connect(format!("http://127.0.0.1:{}", self.registration_port))
            .await
            .unwrap()
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

    async fn login(&self, user: &str, password: &str) -> ErrorBody {
        let mut auth = AuthServiceClient::connect(format!("http://127.0.0.1:{}", self.auth_port))
            .await
            .unwrap();
        let status = auth
            .start_login(StartLoginRequest {
                user: user.into(),
                password: password.into(),
                client_ip: String::new(),
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

backend_tests!(a_lost_credentials_answer_heals_on_retry_with_the_real_services);
