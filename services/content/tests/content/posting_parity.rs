//! One engine, proven: for a table of carts, on each of the seven weekdays, paid with the
//! partner card or another card, the simulator's answer equals what the real accounts service
//! accrues when a till posts the same cart through `PostPurchase`. Accounts runs as its real
//! `Application` on a database of its own (demo members seeded), with the same rule data
//! (the built-in rules, both services' default) and a service token as a till would hold.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{Days, NaiveDate, TimeZone};
use miclub_accounts::LoginEmails;
use miclub_accounts::domain::{Email, MemberId};
use miclub_accounts::error::AccountsError;
use miclub_platform::backend_tests;
use miclub_platform::events::MemoryBus;
use miclub_platform::grpc::ServerSettings;
use miclub_platform::notify::DevMailbox;
use miclub_platform::shutdown::{self, ShutdownTrigger};
use miclub_platform::storage::Backend;
use miclub_platform::testing::{TestEnv, TestKeys};
use miclub_platform::tokens::with_bearer;
use miclub_proto::accounts::v1 as accounts;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::content::v1 as pb;
use tonic::transport::Channel;

use crate::support::{TestApp, settings};

/// Auth's side of accounts, never reached by purchase posting.
#[derive(Debug)]
struct NoAuth;

#[async_trait]
impl LoginEmails for NoAuth {
    async fn set(&self, _member_id: &MemberId, _email: &Email) -> Result<(), AccountsError> {
        Err(AccountsError::Unavailable(
            "auth is not part of this test".into(),
        ))
    }

    async fn disable_credentials(
        &self,
        _member_id: &MemberId,
        _unsubscribed_at: i64,
    ) -> Result<(), AccountsError> {
        Err(AccountsError::Unavailable(
            "auth is not part of this test".into(),
        ))
    }
}

/// The real accounts service, verifying tokens with `keys`, with the demo members seeded.
struct Accounts {
    client: AccountsServiceClient<Channel>,
    _env: TestEnv,
    _shutdown: ShutdownTrigger,
}

impl Accounts {
    async fn spawn(backend: Backend, keys: &TestKeys) -> Self {
        let env = match backend {
            Backend::Postgres => TestEnv::postgres_redis().await,
            Backend::Sqlite => TestEnv::sqlite_memory().await,
        };
        let app = miclub_accounts::Application::build(
            miclub_accounts::Settings {
                server: ServerSettings {
                    host: "127.0.0.1".into(),
                    port: 0,
                    drain_delay_ms: 0,
                    ..ServerSettings::default()
                },
                database: env.database.clone(),
                tokens: keys.settings.clone(),
                seed_demo: true,
                ..miclub_accounts::Settings::default()
            },
            miclub_accounts::Dependencies {
                store: env.store.clone(),
                key_source: keys.key_source(),
                notifier: Arc::new(DevMailbox::default()),
                login_emails: Arc::new(NoAuth),
                bus: Arc::new(MemoryBus::new()),
            },
        )
        .await
        .expect("accounts builds");
        let port = app.port();
        let (trigger, stop) = shutdown::channel();
        tokio::spawn(app.run_until_stopped(stop));
        let client = AccountsServiceClient::connect(format!("http://127.0.0.1:{port}"))
            .await
            .expect("connect to accounts");
        Self {
            client,
            _env: env,
            _shutdown: trigger,
        }
    }
}

/// Ana, a demo member with a club account.
fn ana() -> &'static str {
    let ana = &miclub_platform::demo::MEMBERS[0];
    assert!(ana.has_club_account);
    ana.rut
}

/// 23:30 in Santiago on `day`: already the next day in UTC, so a post counted on the UTC day
/// would be caught.
fn late_evening_in_santiago(day: NaiveDate) -> String {
    miclub_platform::calendar::TIMEZONE
        .from_local_datetime(&day.and_hms_opt(23, 30, 0).unwrap())
        .single()
        .unwrap()
        .with_timezone(&chrono::Utc)
        .to_rfc3339()
}

/// Carts in form order: meat, fruits and vegetables, cleaning, drinks, other.
const CARTS: [[i64; 5]; 6] = [
    [25_990, 0, 0, 0, 0],
    [0, 12_345, 0, 0, 0],
    [8_990, 4_590, 3_290, 2_490, 15_990],
    [0, 0, 6_999, 1_999, 0],
    [1, 9, 99, 124, 1_249],
    [10_000_000, 10_000_000, 10_000_000, 10_000_000, 10_000_000],
];

const CATEGORIES: [accounts::Category; 5] = [
    accounts::Category::Meat,
    accounts::Category::FruitsAndVegetables,
    accounts::Category::Cleaning,
    accounts::Category::Drinks,
    accounts::Category::Other,
];

const WEEKDAYS: [pb::Weekday; 7] = [
    pb::Weekday::Monday,
    pb::Weekday::Tuesday,
    pb::Weekday::Wednesday,
    pb::Weekday::Thursday,
    pb::Weekday::Friday,
    pb::Weekday::Saturday,
    pb::Weekday::Sunday,
];

async fn the_simulators_answer_equals_what_purchase_posting_accrues_for_the_same_cart(
    env: TestEnv,
) {
    let keys = TestKeys::new();
    let mut accounts = Accounts::spawn(env.backend, &keys).await;
    let content = TestApp::spawn_with(env, keys.clone(), settings).await;
    let mut simulator = content.client().await;
    // Monday 5 October 2026, in the past, in Chilean summer time.
    let monday = NaiveDate::from_ymd_opt(2026, 10, 5).unwrap();
    let till = keys.service_token("till-providencia", 600);
    let mut compared = 0;
    let mut earned_something_special = false;

    for (cart_index, cart) in CARTS.iter().enumerate() {
        for (day_index, week_day) in WEEKDAYS.into_iter().enumerate() {
            let day = monday
                .checked_add_days(Days::new(day_index as u64))
                .unwrap();
            for partner_card in [true, false] {
                let simulated = simulator
                    .simulate(pb::SimulateRequest {
                        week_day: week_day as i32,
                        meat_amount: cart[0],
                        fruits_and_vegetables_amount: cart[1],
                        cleaning_amount: cart[2],
                        drinks_amount: cart[3],
                        other_amount: cart[4],
                        partner_card,
                    })
                    .await
                    .expect("the simulator answers")
                    .into_inner();
                let payment = if partner_card {
                    accounts::PaymentMethod::PartnerCard
                } else {
                    accounts::PaymentMethod::OtherCard
                };
                let post = accounts::PostPurchaseRequest {
                    idempotency_key: format!("parity-{cart_index}-{day_index}-{partner_card}"),
                    member_document: ana().into(),
                    member_card: String::new(),
                    store_id: "lider-providencia".into(),
                    store_name: "Lider Providencia".into(),
                    purchased_at: late_evening_in_santiago(day),
                    payment_method: payment as i32,
                    lines: CATEGORIES
                        .iter()
                        .zip(cart)
                        .filter(|(_, amount)| **amount > 0)
                        .map(|(category, amount)| accounts::PurchaseLine {
                            category: *category as i32,
                            amount: *amount,
                            product_category_id: 0,
                        })
                        .collect(),
                };
                let posted = accounts
                    .client
                    .post_purchase(with_bearer(post, &till))
                    .await
                    .expect("accounts posts the purchase")
                    .into_inner();

                assert!(!posted.replayed);
                assert_eq!(
                    (simulated.total_earned, simulated.rules_version.as_str()),
                    (posted.accrued, posted.rules_version.as_str()),
                    "cart {cart:?} on {week_day:?} ({day}), partner card {partner_card}"
                );
                assert_eq!(
                    simulated.lines.iter().map(|l| l.earned).sum::<i64>(),
                    simulated.total_earned
                );
                let base = simulated
                    .lines
                    .iter()
                    .map(|l| l.amount * 80 / 10_000)
                    .sum::<i64>();
                earned_something_special |= posted.accrued > base;
                compared += 1;
            }
        }
    }

    assert_eq!(compared, CARTS.len() * 7 * 2);
    // The table reaches the special rules, not only the base rate.
    assert!(earned_something_special);
}

backend_tests!(the_simulators_answer_equals_what_purchase_posting_accrues_for_the_same_cart);
