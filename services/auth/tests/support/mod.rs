//! Test helpers: the real auth `Application` on port 0 with a fresh database and ephemeral
//! store, a gRPC client, and the dev mailbox the codes land in.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use miclub_auth::grants::MethodList;
use miclub_auth::{Application, Dependencies, Settings};
use miclub_platform::config::Environment;
use miclub_platform::demo::{DEMO_PASSWORD, DemoMember, MEMBERS};
use miclub_platform::error::ErrorBody;
use miclub_platform::grpc::ServerSettings;
use miclub_platform::notify::{DevMailbox, Mail, SharedNotifier};
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::testing::{Bearer, BearerChannel, TestEnv};
use miclub_platform::tokens::{StaticKeySource, TokenVerifier, with_bearer};
use miclub_proto::auth::v1 as pb;
use miclub_proto::auth::v1::auth_service_client::AuthServiceClient;
use tonic::transport::Channel;

pub const CLIENT_IP: &str = "203.0.113.7";

/// The browser every test login comes from.
pub const USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// The internal caller every test app knows, and its secret (auth is configured with its
/// digest only).
pub const SERVICE_CLIENT: &str = "accounts";
pub const SERVICE_SECRET: &str = "accounts-test-secret-5b1f0c2e9d";

/// The registration service, the one caller of `CheckPasswordRules` and `CreateCredentials`.
pub const REGISTRATION_CLIENT: &str = "registration";
pub const REGISTRATION_SECRET: &str = "registration-test-secret-8c2d41a7f3";

/// A known internal caller allowed none of the joining and leaving calls.
pub const OTHER_CLIENT: &str = "store_pos";
pub const OTHER_SECRET: &str = "store-pos-test-secret-1e9b7d3c55";

/// The gateway: the client the test's own calls go as (its default grant).
pub const GATEWAY_CLIENT: &str = "gateway";
pub const GATEWAY_SECRET: &str = "gateway-test-secret-7a3e9f1b2c";

/// Ana: verified email, argon2id hash.
pub fn ana() -> &'static DemoMember {
    member("11111111-1")
}

/// Carla: email not verified.
pub fn carla() -> &'static DemoMember {
    member("33333333-3")
}

/// Bruno: verified email, no club account (irrelevant to auth).
pub fn bruno() -> &'static DemoMember {
    member("22222222-2")
}

/// Diego: migrated member with a legacy bcrypt hash.
pub fn diego() -> &'static DemoMember {
    member("44444444-4")
}

fn member(rut: &str) -> &'static DemoMember {
    MEMBERS.iter().find(|m| m.rut == rut).expect("demo member")
}

pub struct TestApp {
    pub env: TestEnv,
    pub settings: Settings,
    pub port: u16,
    pub client: AuthServiceClient<BearerChannel>,
    pub mailbox: Arc<DevMailbox>,
    stop: ShutdownTrigger,
    running: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

// No `Drop`: dropping `stop` (the test app) ends `Shutdown::wait`, which stops auth.

/// Settings of a test app: loopback port 0, no drain delay, the demo members seeded, three
/// service clients ([`SERVICE_CLIENT`], [`REGISTRATION_CLIENT`], [`OTHER_CLIENT`]).
pub fn test_settings(env: &TestEnv) -> Settings {
    Settings {
        server: ServerSettings {
            host: "127.0.0.1".into(),
            port: 0,
            drain_delay_ms: 0,
            ..ServerSettings::default()
        },
        database: env.database.clone(),
        seed_demo: true,
        service_clients: [
            (SERVICE_CLIENT, SERVICE_SECRET),
            (REGISTRATION_CLIENT, REGISTRATION_SECRET),
            (OTHER_CLIENT, OTHER_SECRET),
            (GATEWAY_CLIENT, GATEWAY_SECRET),
        ]
        .into_iter()
        .map(|(client, secret)| (client.to_owned(), miclub_auth::secret_digest(secret)))
        .collect(),
        // A store system: it may post purchases, nothing of auth's.
        client_methods: [(
            OTHER_CLIENT.to_owned(),
            MethodList(vec![
                "miclub.accounts.v1.AccountsService/PostPurchase".to_owned(),
            ]),
        )]
        .into(),
        ..Settings::default()
    }
}

pub async fn spawn_app(env: TestEnv) -> TestApp {
    spawn_app_with(env, |_| {}).await
}

pub async fn spawn_app_with(env: TestEnv, tweak: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_app_mailing(env, tweak, |mailbox| mailbox).await
}

/// A test app whose messages go through `notifier`, built around the dev mailbox the test
/// reads (e.g. to make some messages fail).
pub async fn spawn_app_mailing(
    env: TestEnv,
    tweak: impl FnOnce(&mut Settings),
    notifier: impl FnOnce(Arc<DevMailbox>) -> SharedNotifier,
) -> TestApp {
    let mut settings = test_settings(&env);
    tweak(&mut settings);
    let mailbox = Arc::new(DevMailbox::default());
    let deps = Dependencies {
        store: env.store.clone(),
        notifier: notifier(mailbox.clone()),
        environment: Environment::Development,
    };
    let app = Application::build(settings.clone(), deps)
        .await
        .expect("build auth");
    let port = app.port();
    let (stop, shutdown) = shutdown::channel();
    let running = Some(tokio::spawn(app.run_until_stopped(shutdown)));
    let channel = Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .expect("connect");
    // Calls without a token of their own go as the gateway, as they do in the portal.
    let gateway = AuthServiceClient::new(channel.clone())
        .issue_service_token(pb::IssueServiceTokenRequest {
            client_id: GATEWAY_CLIENT.into(),
            client_secret: GATEWAY_SECRET.into(),
        })
        .await
        .expect("the gateway's service token")
        .into_inner()
        .access_token;
    let client = AuthServiceClient::with_interceptor(channel, Bearer(gateway));
    TestApp {
        env,
        settings,
        port,
        client,
        mailbox,
        stop,
        running,
    }
}

pub type Answer<T> = Result<T, ErrorBody>;

fn answer<T>(result: Result<tonic::Response<T>, tonic::Status>) -> Answer<T> {
    result
        .map(tonic::Response::into_inner)
        .map_err(|status| ErrorBody::from_status(&status))
}

impl TestApp {
    /// Stops auth as SIGTERM does and returns once its `run_until_stopped` has, with the
    /// test's storage for the next auth to start on.
    pub async fn stopped(mut self) -> TestEnv {
        self.stop.trigger();
        if let Some(running) = self.running.take() {
            running
                .await
                .expect("auth's task")
                .expect("auth stopped cleanly");
        }
        self.env
    }

    pub fn client(&self) -> AuthServiceClient<BearerChannel> {
        self.client.clone()
    }

    /// Asks for a password-recovery code for `user`, as the edge would from `client_ip`.
    pub async fn start_password_reset_from(
        &self,
        user: &str,
        client_ip: &str,
    ) -> Answer<pb::StartPasswordResetResponse> {
        self.client()
            .start_password_reset(pb::StartPasswordResetRequest {
                user: user.to_owned(),
                client_ip: client_ip.to_owned(),
                user_agent: USER_AGENT.to_owned(),
            })
            .await
            .map(tonic::Response::into_inner)
            .map_err(|status| ErrorBody::from_status(&status))
    }

    /// Sets `password` with the recovery `code` of `reset_id`, from the test's browser.
    pub async fn complete_password_reset(
        &self,
        reset_id: &str,
        code: &str,
        password: &str,
    ) -> Answer<pb::CompletePasswordResetResponse> {
        self.client()
            .complete_password_reset(pb::CompletePasswordResetRequest {
                reset_id: reset_id.to_owned(),
                code: code.to_owned(),
                new_password: password.to_owned(),
                user_agent: USER_AGENT.to_owned(),
            })
            .await
            .map(tonic::Response::into_inner)
            .map_err(|status| ErrorBody::from_status(&status))
    }

    pub async fn start_login(&self, user: &str, password: &str) -> Answer<pb::StartLoginResponse> {
        self.start_login_from(user, password, CLIENT_IP).await
    }

    pub async fn start_login_from(
        &self,
        user: &str,
        password: &str,
        ip: &str,
    ) -> Answer<pb::StartLoginResponse> {
        let request = pb::StartLoginRequest {
            user: user.to_owned(),
            password: password.to_owned(),
            client_ip: ip.to_owned(),
            user_agent: USER_AGENT.to_owned(),
        };
        answer(self.client().start_login(request).await)
    }

    pub async fn resend(&self, challenge_id: &str) -> Answer<pb::ResendOtpResponse> {
        answer(
            self.client()
                .resend_otp(pb::ResendOtpRequest {
                    challenge_id: challenge_id.to_owned(),
                })
                .await,
        )
    }

    pub async fn verify(&self, challenge_id: &str, otp: &str) -> Answer<pb::VerifyOtpResponse> {
        let request = pb::VerifyOtpRequest {
            challenge_id: challenge_id.to_owned(),
            otp: otp.to_owned(),
            user_agent: USER_AGENT.to_owned(),
        };
        answer(self.client().verify_otp(request).await)
    }

    pub async fn refresh(&self, refresh_token: &str) -> Answer<pb::Session> {
        let request = pb::RefreshSessionRequest {
            refresh_token: refresh_token.to_owned(),
        };
        answer(self.client().refresh_session(request).await).map(|r| r.session.expect("session"))
    }

    pub async fn logout(&self, access_token: &str) -> Answer<pb::LogoutResponse> {
        let request = pb::LogoutRequest {
            refresh_token: String::new(),
            access_token: access_token.to_owned(),
        };
        answer(self.client().logout(request).await)
    }

    pub async fn change_password(
        &self,
        access_token: &str,
        current: &str,
        new: &str,
    ) -> Answer<pb::ChangePasswordResponse> {
        self.change_password_from(access_token, current, new, CLIENT_IP)
            .await
    }

    pub async fn change_password_from(
        &self,
        access_token: &str,
        current: &str,
        new: &str,
        ip: &str,
    ) -> Answer<pb::ChangePasswordResponse> {
        let request = with_bearer(
            pb::ChangePasswordRequest {
                current_password: current.to_owned(),
                new_password: new.to_owned(),
                client_ip: ip.to_owned(),
            },
            access_token,
        );
        answer(self.client().change_password(request).await)
    }

    /// The step-up check as accounts makes it, with `token`.
    pub async fn verify_password(
        &self,
        token: &str,
        member_id: &str,
        password: &str,
        ip: &str,
    ) -> Answer<pb::VerifyPasswordResponse> {
        let request = with_bearer(
            pb::VerifyPasswordRequest {
                member_id: member_id.to_owned(),
                password: password.to_owned(),
                client_ip: ip.to_owned(),
            },
            token,
        );
        answer(self.client().verify_password(request).await)
    }

    pub async fn end_sessions(
        &self,
        token: &str,
        member_id: &str,
    ) -> Answer<pb::EndSessionsResponse> {
        let request = with_bearer(
            pb::EndSessionsRequest {
                member_id: member_id.to_owned(),
            },
            token,
        );
        answer(self.client().end_sessions(request).await)
    }

    /// The security view's calls, each with the member's access token `token`.
    pub async fn list_sessions(&self, token: &str) -> Answer<Vec<pb::OpenSession>> {
        let request = with_bearer(pb::ListSessionsRequest {}, token);
        answer(self.client().list_sessions(request).await).map(|r| r.sessions)
    }

    pub async fn end_session(&self, token: &str, session_id: &str) -> Answer<bool> {
        let request = with_bearer(
            pb::EndSessionRequest {
                session_id: session_id.to_owned(),
            },
            token,
        );
        answer(self.client().end_session(request).await).map(|r| r.was_current)
    }

    pub async fn end_other_sessions(&self, token: &str) -> Answer<i64> {
        let request = with_bearer(pb::EndOtherSessionsRequest {}, token);
        answer(self.client().end_other_sessions(request).await).map(|r| r.revoked_sessions)
    }

    pub async fn security_events(&self, token: &str) -> Answer<Vec<pb::SecurityEvent>> {
        let request = with_bearer(pb::ListSecurityEventsRequest {}, token);
        answer(self.client().list_security_events(request).await).map(|r| r.events)
    }

    /// The session id (`sid`) of a live access token.
    pub async fn sid_of(&self, access_token: &str) -> String {
        self.verifier()
            .await
            .verify(access_token)
            .await
            .expect("a live session")
            .sid
    }

    pub async fn issue_service_token(
        &self,
        client_id: &str,
        client_secret: &str,
    ) -> Answer<pb::IssueServiceTokenResponse> {
        let request = pb::IssueServiceTokenRequest {
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
        };
        answer(self.client().issue_service_token(request).await)
    }

    /// A service token of [`SERVICE_CLIENT`], from the real grant.
    pub async fn service_token(&self) -> String {
        self.issue_service_token(SERVICE_CLIENT, SERVICE_SECRET)
            .await
            .expect("service token")
            .access_token
    }

    /// A service token of `client_id`, from the real grant.
    pub async fn token_of(&self, client_id: &str, client_secret: &str) -> String {
        self.issue_service_token(client_id, client_secret)
            .await
            .expect("service token")
            .access_token
    }

    /// A service token of [`REGISTRATION_CLIENT`].
    pub async fn registration_token(&self) -> String {
        self.token_of(REGISTRATION_CLIENT, REGISTRATION_SECRET)
            .await
    }

    pub async fn check_password_rules(
        &self,
        token: &str,
        password: &str,
    ) -> Answer<pb::CheckPasswordRulesResponse> {
        let request = with_bearer(
            pb::CheckPasswordRulesRequest {
                password: password.to_owned(),
            },
            token,
        );
        answer(self.client().check_password_rules(request).await)
    }

    pub async fn create_credentials(
        &self,
        token: &str,
        member_id: &str,
        login_id: &str,
        email: &str,
        password: &str,
    ) -> Answer<pb::CreateCredentialsResponse> {
        let request = with_bearer(
            pb::CreateCredentialsRequest {
                member_id: member_id.to_owned(),
                login_id: login_id.to_owned(),
                email: email.to_owned(),
                password: password.to_owned(),
            },
            token,
        );
        answer(self.client().create_credentials(request).await)
    }

    /// As accounts calls it right after the member left.
    pub async fn disable_credentials(
        &self,
        token: &str,
        member_id: &str,
    ) -> Answer<pb::DisableCredentialsResponse> {
        let now = miclub_platform::storage::now_millis();
        self.disable_credentials_left_at(token, member_id, now)
            .await
    }

    pub async fn disable_credentials_left_at(
        &self,
        token: &str,
        member_id: &str,
        unsubscribed_at_millis: i64,
    ) -> Answer<pb::DisableCredentialsResponse> {
        let request = with_bearer(
            pb::DisableCredentialsRequest {
                member_id: member_id.to_owned(),
                unsubscribed_at_millis,
            },
            token,
        );
        answer(self.client().disable_credentials(request).await)
    }

    pub async fn set_login_email(
        &self,
        token: &str,
        member_id: &str,
        email: &str,
    ) -> Answer<pb::SetLoginEmailResponse> {
        let request = with_bearer(
            pb::SetLoginEmailRequest {
                member_id: member_id.to_owned(),
                email: email.to_owned(),
            },
            token,
        );
        answer(self.client().set_login_email(request).await)
    }

    /// A whole login with any password; the code is read from the mailbox of `email`.
    pub async fn login_with(
        &self,
        member: &DemoMember,
        password: &str,
        email: &str,
    ) -> Answer<pb::VerifyOtpResponse> {
        let started = self.start_login(member.rut, password).await?;
        let code = self.last_code_for(email);
        self.verify(&started.challenge_id, &code).await
    }

    /// The newest code mailed to `email`. Mail without a code is passed over: a notice from
    /// the mail outbox (a password reset's, say) may land after the code it follows.
    pub fn last_code_for(&self, email: &str) -> String {
        self.mailbox
            .list()
            .into_iter()
            .filter(|mail| mail.to == email)
            .find_map(|mail| mail.code)
            .expect("a code in the dev mailbox")
    }

    /// The newest mail titled `subject`, waited for up to 5 s: a notice leaves from the mail
    /// outbox shortly after the call that wrote it answered.
    pub async fn notice(&self, subject: &str) -> Mail {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            if let Some(mail) = self
                .mailbox
                .list()
                .into_iter()
                .find(|mail| mail.subject == subject)
            {
                return mail;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no mail titled {subject:?} within 5 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn mails_to(&self, email: &str) -> usize {
        self.mailbox
            .list()
            .iter()
            .filter(|mail| mail.to == email)
            .count()
    }

    /// The password step of a demo member with the demo password; returns the challenge id
    /// and the code mailed.
    pub async fn password_step(&self, member: &DemoMember) -> (String, String) {
        let started = self
            .start_login(member.rut, DEMO_PASSWORD)
            .await
            .expect("password step");
        (started.challenge_id, self.last_code_for(member.email))
    }

    /// A whole login of a demo member.
    pub async fn login(&self, member: &DemoMember) -> pb::VerifyOtpResponse {
        let (challenge, code) = self.password_step(member).await;
        self.verify(&challenge, &code).await.expect("code step")
    }

    /// A verifier of the keys auth publishes, checking revocations in the test's store.
    /// Asserts that `session` is over at every hop: `verifier` refuses its access token as
    /// revoked and auth refuses its refresh token.
    pub async fn assert_session_over(&self, verifier: &TokenVerifier, session: &pb::Session) {
        assert_eq!(
            verifier.verify(&session.access_token).await.unwrap_err(),
            miclub_platform::tokens::VerifyError::Revoked
        );
        assert_eq!(
            self.refresh(&session.refresh_token).await.unwrap_err().code,
            miclub_platform::error::ErrorCode::Unauthenticated
        );
    }

    pub async fn verifier(&self) -> TokenVerifier {
        let jwks = self
            .client()
            .get_jwks(pb::GetJwksRequest {})
            .await
            .expect("jwks")
            .into_inner();
        let set = serde_json::from_str(&jwks.jwks_json).expect("a jwk set");
        TokenVerifier::new(
            &self.settings.tokens,
            Arc::new(StaticKeySource(set)),
            Some(self.env.store.clone()),
        )
    }
}
