//! Wiring the gateway to the embedded services: their loopback ports, its internal client, and
//! the dev mailbox outside production.

use anyhow::Context;
use miclub_platform::tokens::ServiceCredentials;

use crate::embedding::Embedding;

/// Where each embedded service listens.
pub(crate) struct Ports {
    pub auth: u16,
    pub accounts: u16,
    pub content: u16,
    pub registration: u16,
    pub missions: u16,
}

pub(crate) async fn gateway(
    embedding: &Embedding<'_>,
    credentials: ServiceCredentials,
    ports: &Ports,
) -> anyhow::Result<miclub_gateway::Application> {
    let config = embedding.config;
    let mut gateway: miclub_gateway::Settings = config.section("gateway")?;
    if !config.contains("gateway.host") {
        gateway.host = "127.0.0.1".into();
    }
    gateway.auth = embedding.client(ports.auth);
    gateway.accounts = embedding.client(ports.accounts);
    gateway.content = embedding.client(ports.content);
    gateway.registration = embedding.client(ports.registration);
    gateway.missions = embedding.client(ports.missions);
    gateway.service_client = credentials;
    if !config.contains("gateway.dev_mailbox") {
        gateway.dev_mailbox = !embedding.environment.is_production();
    }
    miclub_gateway::Application::build(
        gateway,
        miclub_gateway::Dependencies {
            environment: embedding.environment,
            store: embedding.store.clone(),
            key_source: embedding.key_source(ports.auth)?,
            mailbox: Some(embedding.mailbox.clone()),
        },
    )
    .await
    .context("starting the gateway")
}
