//! The three steps of a registration and their order.
//!
//! Step 1 checks the document (rules, accounts, the identity verifier) and opens a flow; step 2
//! has accounts check the personal data and stores it; step 3 creates the member. Completion is
//! built to be retried: the member id is chosen once and stored in the flow before accounts is
//! called, every later call is idempotent by that id, and the flow only becomes `completed` after
//! the last one. A failure anywhere leaves the flow `completing`, and the same request again
//! finishes the same member: exactly one member, with one set of credentials.
//!
//! No step tells whether an email is a member's (ASVS 5.0 V6.3.8). Step 2 does not look; at
//! completion accounts answers [`Enrolment::EmailInUse`] when another active member uses it,
//! having created nothing and mailed that address a notice (once per member id, so retries of
//! this flow never mail again). The flow then completes with no credentials and no activation,
//! answering what a success answers after as long as a real completion takes ([`Pace`]). The
//! registrant never gets a verification link; their document was never taken, so they can
//! register again with their own address.
//!
//! A cancelled flow is deleted with what was entered, so its id (and any copy of it) answers as
//! an expired one's from then on. A completion that had already chosen its member id when the
//! cancel arrived still finishes that member; one that had not answers `Expired`.
//!
//! Every operation takes `now` (Unix milliseconds), so tests move the clock instead of waiting.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use miclub_platform::ephemeral::SharedStore;
use miclub_platform::member::MemberId;
use miclub_platform::shutdown::Shutdown;
use miclub_platform::storage::now_millis;
use secrecy::SecretString;

use crate::domain::flow::{Flow, FlowId, PersonalData, Status, Step};
use crate::domain::identity::IdentityInput;
use crate::domain::pace::Pace;
use crate::domain::ports::{
    Credentials, Enrolment, IdentityVerifier, Members, NewMember, TermsSource,
};
use crate::error::{RegistrationError, Result};
use crate::store::Store;

/// Limits of the flow.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Life of a flow after its last accepted step.
    pub flow_ttl: Duration,
    /// Step 1 attempts per client address within `start_window`.
    pub start_attempts: i64,
    pub start_window: Duration,
    /// How long a completion that creates nothing takes before a real one was timed.
    pub completion_pace: Duration,
}

impl Policy {
    fn ttl_ms(&self) -> i64 {
        i64::try_from(self.flow_ttl.as_millis()).unwrap_or(i64::MAX)
    }
}

/// What another service or system is to registration.
#[derive(Debug, Clone)]
pub struct Ports {
    pub members: Arc<dyn Members>,
    pub credentials: Arc<dyn Credentials>,
    pub terms: Arc<dyn TermsSource>,
    pub verifier: Arc<dyn IdentityVerifier>,
}

/// A flow opened by step 1 and the id its client keeps.
#[derive(Debug, Clone)]
pub struct Started {
    pub id: FlowId,
    pub flow: Flow,
}

/// A finished registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completed {
    /// None when the email was another member's and nothing was created.
    pub member_id: Option<MemberId>,
    /// Where the verification link (or the notice) went, masked for display.
    pub masked_email: String,
}

/// The registration flows; cheap to clone.
#[derive(Debug, Clone)]
pub struct Registrations {
    store: Store,
    ephemeral: SharedStore,
    ports: Ports,
    policy: Policy,
    /// Recent real completions, shared by the clones.
    pace: Arc<Pace>,
}

fn start_key(client_ip: &str) -> String {
    format!("registration:start:ip:{client_ip}")
}

impl Registrations {
    pub fn new(store: Store, ephemeral: SharedStore, ports: Ports, policy: Policy) -> Self {
        Self {
            pace: Arc::new(Pace::new(policy.completion_pace)),
            store,
            ephemeral,
            ports,
            policy,
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Step 1. `client_ip` may be empty for internal callers (no address limit).
    pub async fn start(&self, input: &IdentityInput, client_ip: &str, now: i64) -> Result<Started> {
        // Counted before anything is checked: step 1 tells whether a document is a member's,
        // so every attempt counts, valid or not.
        if !client_ip.is_empty() {
            let attempts = self
                .ephemeral
                .incr(&start_key(client_ip), self.policy.start_window)
                .await?;
            if attempts > self.policy.start_attempts {
                tracing::info!(
                    client_ip,
                    attempts,
                    "registration refused: too many attempts from address"
                );
                return Err(RegistrationError::TooManyAttempts);
            }
        }
        let identity = input.validate()?;
        self.ports.members.check_identity(&identity).await?;
        self.ports.verifier.verify(&identity).await?;
        let id = FlowId::generate();
        let flow = Flow {
            key: id.key(),
            step: Step::PersonalData,
            status: Status::Open,
            identity,
            personal_data: None,
            member_id: None,
            terms_version: None,
            created_at: now,
            updated_at: now,
            expires_at: now.saturating_add(self.policy.ttl_ms()),
        };
        self.store.insert(&flow).await?;
        tracing::info!(
            flow = %flow.key,
            document_type = flow.identity.document_type(),
            "registration started"
        );
        Ok(Started { id, flow })
    }

    /// The flow as stored; reading does not extend it.
    pub async fn get(&self, id: &str, now: i64) -> Result<Flow> {
        self.live(id, now).await
    }

    /// Step 2, also from step 3 ("back"). The email is checked for its form only.
    pub async fn submit_personal_data(
        &self,
        id: &str,
        data: PersonalData,
        now: i64,
    ) -> Result<Flow> {
        let mut flow = self.live(id, now).await?;
        let data = data.trimmed();
        self.ports.members.check_profile(&data).await?;
        let expires_at = now.saturating_add(self.policy.ttl_ms());
        if !self
            .store
            .save_personal_data(&flow.key, &data, now, expires_at)
            .await?
        {
            return Err(RegistrationError::Expired);
        }
        tracing::info!(flow = %flow.key, "registration personal data accepted");
        flow.personal_data = Some(data);
        flow.step = Step::Password;
        flow.updated_at = now;
        flow.expires_at = expires_at;
        Ok(flow)
    }

    /// Step 3: creates the member, its credentials, and activates it. Safe to repeat after any
    /// failure (see the module header).
    pub async fn complete(
        &self,
        id: &str,
        password: &SecretString,
        accept_terms: bool,
        now: i64,
    ) -> Result<Completed> {
        let flow = self.live(id, now).await?;
        let Some(profile) = flow
            .personal_data
            .clone()
            .filter(|_| flow.step == Step::Password)
        else {
            return Err(RegistrationError::OutOfOrder);
        };
        if !accept_terms {
            return Err(RegistrationError::TermsNotAccepted);
        }
        self.ports
            .credentials
            .check_password_rules(password)
            .await?;
        let key = flow.key.clone();
        self.store
            .extend(&key, now, now.saturating_add(self.policy.ttl_ms()))
            .await?;

        // The member id is chosen once, stored before accounts hears of it, and kept.
        let flow = if flow.member_id.is_none() {
            let terms_version = self.ports.terms.current_version().await?;
            let chosen = MemberId::generate();
            self.store
                .start_completion(&key, &chosen, &terms_version, now)
                .await?;
            // Whoever won a concurrent start, the stored id is the one to use.
            self.store
                .find(&key)
                .await?
                .ok_or(RegistrationError::Expired)?
        } else {
            flow
        };
        let (Some(mut member_id), Some(terms_version)) =
            (flow.member_id.clone(), flow.terms_version.clone())
        else {
            return Err(RegistrationError::Expired);
        };
        tracing::info!(flow = %key, member_id = %member_id, "registration completing");

        let asked = Instant::now();
        let enrolment = self
            .ports
            .members
            .register_member(&NewMember {
                member_id: &member_id,
                identity: &flow.identity,
                profile: &profile,
                terms_version: &terms_version,
            })
            .await?;
        let answered = match enrolment {
            Enrolment::Member(answered) => answered,
            Enrolment::EmailInUse { masked_email } => {
                // As long as a real completion takes, then finished like one: the flow answers
                // as expired from now on, and nothing else is created.
                tokio::time::sleep_until(asked + self.pace.target()).await;
                self.store.mark_completed(&key, now).await?;
                tracing::info!(
                    flow = %key,
                    "registration completed without a member: the email is another member's"
                );
                return Ok(Completed {
                    member_id: None,
                    masked_email,
                });
            }
        };
        if answered != member_id {
            tracing::info!(
                flow = %key,
                member_id = %answered,
                chosen = %member_id,
                "registration took over an earlier member"
            );
            self.store.replace_member_id(&key, &answered, now).await?;
            member_id = answered;
        }
        tracing::info!(flow = %key, member_id = %member_id, "registration member registered");

        self.ports
            .credentials
            .create_credentials(
                &member_id,
                &flow.identity.document_number(),
                &profile.email,
                password,
            )
            .await?;
        tracing::info!(flow = %key, member_id = %member_id, "registration credentials created");

        let masked_email = self.ports.members.activate_member(&member_id).await?;
        self.pace.record(asked.elapsed());
        self.store.mark_completed(&key, now).await?;
        tracing::info!(flow = %key, member_id = %member_id, "registration completed");
        Ok(Completed {
            member_id: Some(member_id),
            masked_email,
        })
    }

    /// Ends the flow of `id` at the member's request: the row goes with what was entered, so
    /// every later step answers `Expired` as for a flow that ran out. Ending a flow that is
    /// unknown, expired, finished or already ended is not an error.
    pub async fn cancel(&self, id: &str) -> Result<()> {
        let Some(id) = FlowId::parse(id) else {
            tracing::info!("registration cancel of no flow");
            return Ok(());
        };
        let key = id.key();
        let found = self.store.delete(&key).await?;
        tracing::info!(flow = %key, found, "registration cancelled");
        Ok(())
    }

    /// Deletes the flows expired at `now`.
    pub async fn delete_expired(&self, now: i64) -> Result<u64> {
        self.store.delete_expired(now).await
    }

    /// Deletes expired flows every `interval` until `shutdown`.
    pub async fn clean_periodically(self, interval: Duration, shutdown: Shutdown) {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stopped = shutdown.wait();
        tokio::pin!(stopped);
        loop {
            tokio::select! {
                () = &mut stopped => break,
                _ = ticks.tick() => {}
            }
            match self.delete_expired(now_millis()).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "expired registration flows deleted"),
                Err(err) => {
                    tracing::error!(error = %err, "deleting expired registration flows failed")
                }
            }
        }
        tracing::info!("registration flow cleanup stopped");
    }

    /// The flow of `id` if it can still be used at `now`: unknown, expired and completed flows
    /// all answer `Expired`.
    async fn live(&self, id: &str, now: i64) -> Result<Flow> {
        let id = FlowId::parse(id).ok_or(RegistrationError::Expired)?;
        match self.store.find(&id.key()).await? {
            Some(flow) if !flow.is_expired(now) && flow.status != Status::Completed => Ok(flow),
            _ => Err(RegistrationError::Expired),
        }
    }
}
