//! Building each embedded service from its own settings section, bent to live in this process
//! (see [`Embedding`]); each answers the built application, not yet running.

use std::sync::Arc;

use anyhow::Context;
use miclub_platform::tokens::{ServiceCredentials, ServiceTokens};

use crate::clients::InternalClients;
use crate::embedding::Embedding;

pub(crate) async fn auth(
    embedding: &Embedding<'_>,
    clients: &InternalClients,
) -> anyhow::Result<miclub_auth::Application> {
    let mut auth: miclub_auth::Settings = embedding.config.section("auth")?;
    embedding.loopback("auth", &mut auth.server);
    clients.admit(&embedding.settings, &mut auth.service_clients);
    auth.database = embedding.sqlite("auth", auth.database);
    auth.seed_demo |= embedding.settings.seed_demo;
    if auth.signing.keys.is_empty() && auth.signing.dev_key_file.is_none() {
        auth.signing.dev_key_file = Some(embedding.data_file("auth-signing-key.pem"));
    }
    miclub_auth::Application::build(
        auth,
        miclub_auth::Dependencies {
            store: embedding.store.clone(),
            notifier: embedding.notifier.clone(),
            environment: embedding.environment,
        },
    )
    .await
    .context("starting auth")
}

/// Accounts, and the accrual rules file it was configured with (content's simulator uses the
/// same one unless told otherwise).
pub(crate) async fn accounts(
    embedding: &Embedding<'_>,
    credentials: ServiceCredentials,
    auth_port: u16,
) -> anyhow::Result<(miclub_accounts::Application, String)> {
    let config = embedding.config;
    let mut accounts: miclub_accounts::Settings = config.section("accounts")?;
    embedding.loopback("accounts", &mut accounts.server);
    accounts.database = embedding.sqlite("accounts", accounts.database);
    accounts.seed_demo |= embedding.settings.seed_demo;
    accounts.auth = embedding.client(auth_port);
    accounts.service_client = credentials;
    let accrual_rules_file = accounts.accrual.rules_file.clone();
    if !config.contains("accounts.public_url") {
        // Confirmation links point at this portal; with port 0 (tests) only the token matters.
        let gateway: miclub_gateway::Settings = config.section("gateway")?;
        accounts.public_url = format!("http://localhost:{}", gateway.port);
    }
    let service_tokens = Arc::new(ServiceTokens::new(
        embedding.client(auth_port).channel()?,
        accounts.service_client.clone(),
    ));
    let accounts = miclub_accounts::Application::build(
        accounts,
        miclub_accounts::Dependencies {
            store: embedding.store.clone(),
            key_source: embedding.key_source(auth_port)?,
            notifier: embedding.notifier.clone(),
            bus: embedding.bus.clone(),
            login_emails: Arc::new(miclub_accounts::GrpcLoginEmails::new(
                embedding.client(auth_port).channel()?,
                service_tokens,
            )),
        },
    )
    .await
    .context("starting accounts")?;
    Ok((accounts, accrual_rules_file))
}

pub(crate) async fn missions(
    embedding: &Embedding<'_>,
    credentials: ServiceCredentials,
    auth_port: u16,
    accounts_port: u16,
) -> anyhow::Result<miclub_missions::Application> {
    let mut missions: miclub_missions::Settings = embedding.config.section("missions")?;
    embedding.loopback("missions", &mut missions.server);
    missions.database = embedding.sqlite("missions", missions.database);
    missions.seed_demo |= embedding.settings.seed_demo;
    missions.auth = embedding.client(auth_port);
    missions.accounts = embedding.client(accounts_port);
    missions.service_client = credentials;
    let missions_deps = miclub_missions::Dependencies::over_grpc(
        &missions,
        embedding.bus.clone(),
        embedding.store.clone(),
    )?;
    miclub_missions::Application::build(missions, missions_deps)
        .await
        .context("starting missions")
}

pub(crate) async fn content(
    embedding: &Embedding<'_>,
    accrual_rules_file: String,
    auth_port: u16,
) -> anyhow::Result<miclub_content::Application> {
    let mut content: miclub_content::Settings = embedding.config.section("content")?;
    embedding.loopback("content", &mut content.server);
    content.database = embedding.sqlite("content", content.database);
    if !embedding.config.contains("content.accrual.rules_file") {
        // One rules file for the simulator and purchase posting.
        content.accrual.rules_file = accrual_rules_file;
    }
    miclub_content::Application::build(
        content,
        miclub_content::Dependencies {
            key_source: embedding.key_source(auth_port)?,
        },
    )
    .await
    .context("starting content")
}

pub(crate) async fn registration(
    embedding: &Embedding<'_>,
    credentials: ServiceCredentials,
    auth_port: u16,
    accounts_port: u16,
    content_port: u16,
) -> anyhow::Result<miclub_registration::Application> {
    let mut registration: miclub_registration::Settings =
        embedding.config.section("registration")?;
    embedding.loopback("registration", &mut registration.server);
    registration.database = embedding.sqlite("registration", registration.database);
    registration.auth = embedding.client(auth_port);
    registration.accounts = embedding.client(accounts_port);
    registration.content = embedding.client(content_port);
    registration.service_client = credentials;
    let registration_deps =
        miclub_registration::Dependencies::over_grpc(&registration, embedding.store.clone())?;
    miclub_registration::Application::build(registration, registration_deps)
        .await
        .context("starting registration")
}
