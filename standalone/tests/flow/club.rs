//! The club around the account, against the real binary: a purchase a store system posts
//! through accounts' internal gRPC API reaches missions over the event bus and moves the
//! member's progress, and a mission it completes pays its reward into the balance; missions'
//! conflict state and menu flag; an operator's flag change seen by
//! the portal without a restart; the public content and the simulator.

use miclub_proto::accounts::v1 as accounts;
use miclub_proto::accounts::v1::accounts_service_client::AccountsServiceClient;
use miclub_proto::content::v1 as content;
use miclub_proto::content::v1::content_service_client::ContentServiceClient;

use super::*;

const POS_SECRET: &str = "secreto-de-la-caja-de-prueba";
const OPS_SECRET: &str = "secreto-de-operaciones-de-prueba";

/// The portal with its auth, accounts and content on known ports and the `pos` and `ops`
/// internal clients enabled (in the distributed topology: its own ports and generated secrets).
struct Club {
    portal: Portal,
}

async fn club() -> Club {
    let portal = Portal::start_with(|| {
        vec![
            ("APP_AUTH__SERVER__PORT", free_port().to_string()),
            ("APP_ACCOUNTS__SERVER__PORT", free_port().to_string()),
            ("APP_CONTENT__SERVER__PORT", free_port().to_string()),
            ("APP_STANDALONE__POS_CLIENT_SECRET", POS_SECRET.to_owned()),
            ("APP_STANDALONE__OPS_CLIENT_SECRET", OPS_SECRET.to_owned()),
            ("APP_GATEWAY__FLAGS_CACHE_SECS", "1".to_owned()),
            ("APP_ACCOUNTS__RELAY__INTERVAL_MS", "100".to_owned()),
        ]
    })
    .await;
    Club { portal }
}

impl Club {
    async fn service_token(&self, client_id: &str) -> String {
        service_token(&self.portal, client_id).await
    }

    /// A store system posts $4.000 of drinks at Lider Providencia for the member it scanned:
    /// by document or by card number (the other one empty).
    async fn post_drinks(
        &self,
        idempotency_key: &str,
        member_document: &str,
        member_card: &str,
    ) -> accounts::PostPurchaseResponse {
        self.post_drinks_of(idempotency_key, member_document, member_card, 4_000)
            .await
    }

    /// [`Self::post_drinks`] of `amount` pesos.
    async fn post_drinks_of(
        &self,
        idempotency_key: &str,
        member_document: &str,
        member_card: &str,
        amount: i64,
    ) -> accounts::PostPurchaseResponse {
        let pos = self.service_token("pos").await;
        AccountsServiceClient::new(self.portal.channel("accounts"))
            .post_purchase(with_token(
                accounts::PostPurchaseRequest {
                    idempotency_key: idempotency_key.into(),
                    member_document: member_document.into(),
                    member_card: member_card.into(),
                    store_id: "lider-providencia".into(),
                    store_name: "Lider Providencia".into(),
                    purchased_at: chrono::Utc::now().to_rfc3339(),
                    payment_method: accounts::PaymentMethod::OtherCard as i32,
                    lines: vec![accounts::PurchaseLine {
                        category: accounts::Category::Drinks as i32,
                        amount,
                        product_category_id: 34,
                    }],
                },
                &pos,
            ))
            .await
            .unwrap()
            .into_inner()
    }
}

fn with_token<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request
        .metadata_mut()
        .insert("authorization", format!("Bearer {token}").parse().unwrap());
    request
}

async fn context(browser: &Browser) -> Value {
    browser.get("/api/context").await.json().await.unwrap()
}

async fn missions_of(browser: &Browser) -> Value {
    let answer = browser.get("/api/missions").await;
    assert_eq!(answer.status(), StatusCode::OK);
    answer.json().await.unwrap()
}

fn progress_of(missions: &Value, mission_id: &str) -> i64 {
    missions["missions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["missionId"] == mission_id)
        .unwrap_or_else(|| panic!("{mission_id} in {missions}"))["progress"]
        .as_i64()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_purchase_posted_by_a_store_moves_the_members_mission_progress() {
    let club = club().await;
    let ana = club.portal.browser();
    let login = ana.log_in("11.111.111-1", "ana@example.cl").await;
    assert_eq!(login["has_missions"], true);
    // The seed posts Ana's purchases of today through the same relay: read the progress once
    // their drinks are in it, or this test's purchase would be measured from a moving start.
    let before = seeded_drinks_of_ana();
    drinks_progress_reaches(&ana, before).await;

    let posted = club
        .post_drinks("caja-7-boleta-900001", "11.111.111-1", "")
        .await;
    assert!(posted.accrued > 0);

    // The relay publishes, missions consumes: the progress moves within seconds.
    drinks_progress_reaches(&ana, before + 4_000).await;
}

/// The whole chain of a reward between the real processes: a till's purchase completes Ana's
/// liquors mission in missions, which has accounts record the reward with its own service token
/// (auth's default grant for missions: `GrantReward` alone); Ana then sees it in Mis Movimientos
/// and in her balance (the purchase's accrual itself stays pending).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mission_a_purchase_completes_pays_its_reward_into_the_members_balance() {
    let club = club().await;
    let ana = club.portal.browser();
    ana.log_in("11.111.111-1", "ana@example.cl").await;
    drinks_progress_reaches(&ana, seeded_drinks_of_ana()).await;
    let balance_of = |answer: Value| answer["balance"].as_i64().unwrap();
    let before = balance_of(ana.get("/api/balance").await.json().await.unwrap());

    club.post_drinks_of("caja-7-boleta-900003", "11.111.111-1", "", 15_000)
        .await;

    let deadline = Instant::now() + Duration::from_secs(15);
    let reward = loop {
        let month = ana.this_months_movements().await;
        let found = month["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|item| item["description"] == "Misión cumplida: Compra $15.000 en licores");
        if let Some(found) = found {
            break found.clone();
        }
        assert!(Instant::now() < deadline, "no reward in {month}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(reward["amount"], 800, "{reward}");
    assert_eq!(
        balance_of(ana.get("/api/balance").await.json().await.unwrap()),
        before + 800
    );
}

/// Ana's drinks in the purchases accounts seeds through the posting path, which the relay
/// publishes to missions like any till's.
fn seeded_drinks_of_ana() -> i64 {
    let ana = miclub_platform::demo::MEMBERS
        .iter()
        .find(|member| member.name == "Ana")
        .expect("Ana is a demo member");
    miclub_accounts::seed::planned_purchases(ana)
        .iter()
        .flat_map(|purchase| purchase.lines)
        .filter(|(category, _, _)| *category == miclub_accrual::Category::Drinks)
        .map(|(_, pesos, _)| pesos)
        .sum()
}

/// Waits up to 15 s for Ana's demo-licores progress to be exactly `expected`.
async fn drinks_progress_reaches(ana: &Browser, expected: i64) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let now = progress_of(&missions_of(ana).await, "demo-licores");
        if now == expected {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "progress stayed at {now}, expected {expected}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missions_show_409_while_history_loads_and_no_menu_without_missions() {
    let portal = Portal::start().await;
    let diego = portal.browser();
    diego.log_in("44.444.444-4", "diego@example.cl").await;
    let answer = diego.get("/api/missions").await;
    assert_eq!(answer.status(), StatusCode::CONFLICT);
    assert_eq!(
        answer.json::<Value>().await.unwrap()["code"],
        "ERR_MISSIONS_NOT_READY"
    );

    let bruno = portal.browser();
    let login = bruno.log_in("22.222.222-2", "bruno@example.cl").await;
    assert_eq!(login["has_missions"], false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_switches_the_portal_off_and_on_without_a_restart() {
    let club = club().await;
    let browser = club.portal.browser();
    assert_eq!(context(&browser).await["portalEnabled"], true);

    let ops = club.service_token("ops").await;
    let mut content = ContentServiceClient::new(club.portal.channel("content"));
    let set = |value: bool| {
        with_token(
            content::SetFlagRequest {
                flag: content::FlagName::PortalEnabled as i32,
                value,
            },
            &ops,
        )
    };
    content.set_flag(set(false)).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while context(&browser).await["portalEnabled"] != false {
        assert!(Instant::now() < deadline, "the switch was not seen");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    content.set_flag(set(true)).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while context(&browser).await["portalEnabled"] != true {
        assert!(Instant::now() < deadline, "the portal did not come back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_content_is_seeded_and_the_simulator_uses_the_rules() {
    let portal = Portal::start().await;
    let browser = portal.browser();
    for (path, key) in [
        ("/api/promotions", "promotions"),
        ("/api/alliances", "alliances"),
        ("/api/banners", "banners"),
        ("/api/faqs?audience=login", "faqs"),
        ("/api/faqs", "faqs"),
    ] {
        let body: Value = browser.get(path).await.json().await.unwrap();
        assert!(
            !body[key].as_array().unwrap().is_empty(),
            "{path} has content"
        );
    }
    // Tuesday, fruits and vegetables: 3% by the rules file.
    let simulated = browser
        .post(
            "/api/simulator",
            Some(json!({"weekDay": 2, "fruitsAndVegetablesAmount": 10000, "otherAmount": 5000})),
        )
        .await;
    assert_eq!(simulated.status(), StatusCode::OK);
    let body: Value = simulated.json().await.unwrap();
    assert_eq!(body["totalEarned"], 300 + 40);
    let refused = browser
        .post(
            "/api/simulator",
            Some(json!({"weekDay": 2, "drinksAmount": -1})),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        refused.json::<Value>().await.unwrap()["field"],
        "drinksAmount"
    );
}

/// The member card (#21 part 1) end to end: the number the demo seed gave Ana is what
/// `/api/card` shows, with the balance `/api/balance` shows; a till that scans it posts the
/// purchase to Ana; a member without a club account gets the balance's 406.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_shown_to_the_member_is_the_one_a_till_posts_a_purchase_with() {
    let club = club().await;
    let ana = club.portal.browser();
    ana.log_in("11.111.111-1", "ana@example.cl").await;
    let answer = ana.get("/api/card").await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(answer.headers()["cache-control"], "no-store");
    let card: Value = answer.json().await.unwrap();
    let balance: Value = ana.get("/api/balance").await.json().await.unwrap();
    assert_eq!(card["name"], "Ana");
    assert_eq!(card["lastName"], "González");
    assert_eq!(card["balance"], balance["balance"]);
    assert_eq!(card["balanceUpdatedAt"], balance["updatedAt"]);
    assert!(card["asOf"].as_str().is_some_and(|at| at.ends_with('Z')));
    let number = card["cardNumber"].as_str().unwrap().to_owned();
    assert_eq!(number.len(), 12, "{number}");
    assert!(number.bytes().all(|b| b.is_ascii_digit()), "{number}");

    let posted = club.post_drinks("caja-7-boleta-900002", "", &number).await;
    assert!(posted.accrued > 0);
    // The accrual is Ana's: her movement detail answers it (another member's would be 404).
    let detail = ana
        .get(&format!("/api/movements/{}", posted.movement_id))
        .await;
    assert_eq!(detail.status(), StatusCode::OK);
    // And the number stays.
    let again: Value = ana.get("/api/card").await.json().await.unwrap();
    assert_eq!(again["cardNumber"], number.as_str());

    let bruno = club.portal.browser();
    bruno.log_in("22.222.222-2", "bruno@example.cl").await;
    let answer = bruno.get("/api/card").await;
    assert_eq!(answer.status(), StatusCode::NOT_ACCEPTABLE);
    assert_eq!(
        answer.json::<Value>().await.unwrap()["code"],
        "ERR_NO_CLUB_ACCOUNT"
    );
}
