//! Typed helpers: a fake rewards port that records calls and fails on demand, missions spawned
//! on port 0 against a test environment with an in-memory bus, purchase events, tokens, and the
//! same database through the domain.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chrono::NaiveDate;
use miclub_missions::domain::{GROUP, MemberId, MissionId, Missions, Purchase, Reward, Rewards};
use miclub_missions::error::{MissionsError, Result};
use miclub_missions::store::{Progress, Store};
use miclub_missions::{Application, Dependencies, Settings};
use miclub_platform::error::ErrorBody;
use miclub_platform::events::{Event, EventBus, MemoryBus, streams};
use miclub_platform::grpc::ServerSettings;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::storage::now_millis;
use miclub_platform::testing::{Bearer, BearerChannel, TestEnv, TestKeys};
use miclub_platform::tokens::with_bearer;
use miclub_proto::missions::v1 as pb;
use miclub_proto::missions::v1::missions_service_client::MissionsServiceClient;
use tonic::transport::Channel;

pub const ANA: &str = "7b0f6d2e-0000-4000-8000-000000000001";
pub const BRUNO: &str = "7b0f6d2e-0000-4000-8000-000000000002";
pub const DIEGO: &str = "7b0f6d2e-0000-4000-8000-000000000004";

/// The consumer name of the test app.
pub const CONSUMER: &str = "test-consumer";

/// Accounts' ledger as missions sees it: every `GrantReward` call in order, failing on
/// demand like an unreachable accounts.
#[derive(Debug, Default)]
pub struct FakeRewards {
    calls: Mutex<Vec<Reward>>,
    failing: AtomicBool,
}

impl FakeRewards {
    /// From now on every grant fails (`true`) or succeeds (`false`).
    pub fn fail(&self, failing: bool) {
        self.failing.store(failing, Ordering::SeqCst);
    }

    /// Every call, failed ones included.
    pub fn calls(&self) -> Vec<Reward> {
        self.calls.lock().unwrap().clone()
    }
}

#[async_trait]
impl Rewards for FakeRewards {
    async fn grant(&self, reward: &Reward) -> Result<()> {
        self.calls.lock().unwrap().push(reward.clone());
        if self.failing.load(Ordering::SeqCst) {
            return Err(MissionsError::Unavailable(
                "accounts (test: told to fail)".into(),
            ));
        }
        Ok(())
    }
}

/// Missions running for one test, and everything needed to arrange and check it.
pub struct TestApp {
    pub port: u16,
    pub keys: TestKeys,
    pub bus: Arc<MemoryBus>,
    pub rewards: Arc<FakeRewards>,
    /// The same database and rewards port through the domain.
    pub missions: Missions,
    pub store: Store,
    _env: TestEnv,
    _shutdown: ShutdownTrigger,
}

impl TestApp {
    pub async fn spawn(env: TestEnv) -> Self {
        Self::spawn_with(env, |_| {}).await
    }

    pub async fn spawn_with(env: TestEnv, adjust: impl FnOnce(&mut Settings)) -> Self {
        let keys = TestKeys::new();
        let mut settings = Settings {
            server: ServerSettings {
                host: "127.0.0.1".into(),
                port: 0,
                drain_delay_ms: 0,
                ..ServerSettings::default()
            },
            database: env.database.clone(),
            tokens: keys.settings.clone(),
            // Short, so a test sees the background retry happen.
            reward_retry_interval_secs: 1,
            ..Settings::default()
        };
        settings.consumer.name = CONSUMER.into();
        settings.consumer.wait_ms = 200;
        adjust(&mut settings);
        let bus = Arc::new(MemoryBus::new());
        let rewards = Arc::new(FakeRewards::default());
        let deps = Dependencies {
            bus: bus.clone(),
            key_source: keys.key_source(),
            store: env.store.clone(),
            rewards: rewards.clone(),
        };
        let app = Application::build(settings, deps)
            .await
            .expect("missions builds");
        let port = app.port();
        let (trigger, stop) = shutdown::channel();
        tokio::spawn(app.run_until_stopped(stop));
        let store = Store::connect(&env.database).await.expect("test store");
        let missions = Missions::new(store.clone(), rewards.clone());
        Self {
            port,
            keys,
            bus,
            rewards,
            missions,
            store,
            _env: env,
            _shutdown: trigger,
        }
    }

    /// A client that adds no token: calls carry only what the test puts on them.
    pub async fn bare_client(&self) -> MissionsServiceClient<Channel> {
        MissionsServiceClient::connect(format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("connect to missions")
    }

    /// A client whose calls without a token of their own go as the gateway does (a service
    /// token); calls with a member's or another client's token keep theirs.
    pub async fn client(&self) -> MissionsServiceClient<BearerChannel> {
        let channel = Channel::from_shared(format!("http://127.0.0.1:{}", self.port))
            .unwrap()
            .connect()
            .await
            .expect("connect to missions");
        MissionsServiceClient::with_interceptor(
            channel,
            Bearer(self.keys.service_token("gateway", 3600)),
        )
    }

    /// `message` with a member token of `member_id`.
    pub fn as_member<T>(&self, member_id: &str, message: T) -> tonic::Request<T> {
        let token = self
            .keys
            .member_token(member_id, &uuid::Uuid::new_v4().to_string(), 300);
        with_bearer(message, &token)
    }

    /// `message` with a service token (the back office).
    pub fn as_service<T>(&self, message: T) -> tonic::Request<T> {
        with_bearer(message, &self.keys.service_token("backoffice", 300))
    }

    /// Creates or replaces `mission` over gRPC; true when created.
    pub async fn upsert(&self, mission: pb::Mission) -> bool {
        self.client()
            .await
            .upsert_mission(self.as_service(pb::UpsertMissionRequest {
                mission: Some(mission),
            }))
            .await
            .expect("mission accepted")
            .into_inner()
            .created
    }

    pub async fn list(
        &self,
        member_id: &str,
    ) -> std::result::Result<Vec<pb::MemberMission>, tonic::Status> {
        self.client()
            .await
            .list_my_missions(self.as_member(member_id, pb::ListMyMissionsRequest {}))
            .await
            .map(|r| r.into_inner().missions)
    }

    pub async fn has_missions(&self, member_id: &str) -> bool {
        self.client()
            .await
            .has_missions(self.as_member(member_id, pb::HasMissionsRequest {}))
            .await
            .expect("has missions answered")
            .into_inner()
            .has_missions
    }

    pub async fn set_loading(&self, member_id: &str, loading: bool) {
        self.client()
            .await
            .set_history_loading(self.as_service(pb::SetHistoryLoadingRequest {
                member_id: member_id.into(),
                loading,
            }))
            .await
            .expect("history flag set");
    }

    /// Publishes `event` on the purchases stream, as accounts' relay does.
    pub async fn publish(&self, event: &Event) {
        self.bus
            .publish(streams::PURCHASES, event)
            .await
            .expect("published");
    }

    /// The member's row of the mission, if any.
    pub async fn progress(&self, mission: &str, member: &str) -> Option<Progress> {
        self.store
            .progress(&mission_id(mission), &member_id(member))
            .await
            .unwrap()
    }

    /// Waits (up to 10 s) until the row of the mission satisfies `done`; the row then.
    pub async fn wait_for(
        &self,
        mission: &str,
        member: &str,
        done: impl Fn(&Progress) -> bool,
    ) -> Progress {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(progress) = self.progress(mission, member).await
                && done(&progress)
            {
                return progress;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "progress of {mission} never got there: {:?}",
                self.progress(mission, member).await
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits (up to 10 s) until the app's consumer has handled and acknowledged every event
    /// published so far. Reading under the app's consumer name answers its unacknowledged
    /// deliveries first, then takes new ones (which the app then reads as its own): empty
    /// means nothing is left.
    pub async fn drain(&self) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let left = self
                .bus
                .read(streams::PURCHASES, GROUP, CONSUMER, 1_000, Duration::ZERO)
                .await
                .unwrap();
            if left.is_empty() {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the consumer never caught up"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

pub fn mission_id(raw: &str) -> MissionId {
    MissionId::parse(raw).unwrap()
}

pub fn member_id(raw: &str) -> MemberId {
    MemberId::parse(raw).unwrap()
}

/// Today in Chile.
pub fn today() -> NaiveDate {
    miclub_platform::calendar::day_of_millis(now_millis())
}

/// `today` moved by `days`, as ISO text.
pub fn day(days: i64) -> String {
    (today() + chrono::Duration::days(days))
        .format("%Y-%m-%d")
        .to_string()
}

/// Noon in Chile `days` from today, RFC 3339.
pub fn noon(days: i64) -> String {
    format!("{}T12:00:00-03:00", day(days))
}

/// An amount mission in force from 10 days ago to 10 days ahead, assigned to `members`.
pub fn amount_mission(id: &str, category_id: i32, goal: i64, members: &[&str]) -> pb::Mission {
    pb::Mission {
        mission_id: id.into(),
        category_id,
        title: format!("Compra ${goal} en la categoría {category_id}"),
        description: "Una misión de prueba.".into(),
        goal_kind: pb::GoalKind::Amount as i32,
        goal,
        reward: 1_000,
        starts_on: day(-10),
        ends_on: day(10),
        member_ids: members.iter().map(|m| (*m).to_owned()).collect(),
    }
}

/// A purchases-count mission like [`amount_mission`].
pub fn purchases_mission(id: &str, category_id: i32, goal: i64, members: &[&str]) -> pb::Mission {
    pb::Mission {
        goal_kind: pb::GoalKind::Purchases as i32,
        title: format!("Compra {goal} veces en la categoría {category_id}"),
        reward: 500,
        ..amount_mission(id, category_id, goal, members)
    }
}

/// A `purchase.posted` event of `member` at `purchased_at` with `(product_category_id, amount)`
/// lines, shaped as accounts writes it.
pub fn purchase_event(
    event_id: &str,
    member: &str,
    purchased_at: &str,
    lines: &[(i32, i64)],
) -> Event {
    let lines: Vec<_> = lines
        .iter()
        .map(|(category, amount)| {
            serde_json::json!({ "category": "other", "amount": amount, "product_category_id": category })
        })
        .collect();
    let total: i64 = lines.iter().map(|l| l["amount"].as_i64().unwrap()).sum();
    let payload = serde_json::json!({
        "event_id": event_id,
        "purchase_id": format!("purchase-{event_id}"),
        "member_id": member,
        "purchased_at": purchased_at,
        "total": total,
        "accrued": total / 100,
        "lines": lines,
    });
    Event {
        id: event_id.into(),
        topic: "purchase.posted".into(),
        payload: payload.to_string(),
    }
}

/// The event as the domain reads it.
pub fn purchase(event: &Event) -> Purchase {
    Purchase::parse(&event.id, &event.payload).unwrap()
}

/// The error body a status carries.
pub fn body(status: &tonic::Status) -> ErrorBody {
    ErrorBody::from_status(status)
}
