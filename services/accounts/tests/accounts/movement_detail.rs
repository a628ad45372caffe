//! `GetMovementDetail` and `GetMemberMovementDetail` (#21, every peso explained): a posted
//! purchase's accrual explains itself line by line with the rule and rate that posted it, read
//! back from what posting stored (a later rules change rewrites nothing); a member reads only
//! their own movements, another member's answering exactly like an unknown id; store systems read
//! with a scoped service token and the member's document; older movements answer without a
//! breakdown, never with an error.

use std::sync::Arc;

use miclub_accounts::domain::{
    IdempotencyKey, Ledger, Member, MemberDocument, MemberId, MemberKey, MovementId, OrderLine,
    PurchaseOrder, StoreId, StoreName,
};
use miclub_accrual::RuleSet;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    Category, ConfirmDueAccrualsRequest, GetMemberCardRequest, GetMemberMovementDetailRequest,
    GetMovementDetailRequest, MovementDetail, MovementKind, MovementStatus, PaymentMethod,
    PostPurchaseResponse, RecordMovementRequest,
};

use crate::support::{TestApp, days_ago, purchase};

const DAY_MS: i64 = 86_400_000;

/// Unix milliseconds of an RFC 3339 instant.
fn millis(raw: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(raw)
        .unwrap()
        .timestamp_millis()
}

/// Tuesday 2026-11-03, 12:00 in Chile: the Tuesday rule pays 3% on fruits and vegetables.
const A_TUESDAY: &str = "2026-11-03T15:00:00Z";

/// A rule file unlike the built-in one in every rate and in its version.
const OTHER_RULES: &str = r#"
version = "2099-01-test"

[base]
rate_bp = 150
description = "1,5% en todas tus compras"

[[rules]]
id = "todos-los-dias-carnes"
rate_bp = 500
categories = ["meat"]
description = "5% en carnes todos los días"
"#;

async fn post_tuesday_purchase(app: &TestApp, member: &Member, key: &str) -> PostPurchaseResponse {
    app.client()
        .await
        .post_purchase(app.as_service(purchase(
            member,
            key,
            A_TUESDAY,
            PaymentMethod::PartnerCard,
            &[
                (Category::FruitsAndVegetables, 10_000),
                (Category::Meat, 20_000),
                (Category::Drinks, 3_333),
            ],
        )))
        .await
        .unwrap()
        .into_inner()
}

async fn detail_as_member(
    app: &TestApp,
    member: &Member,
    movement_id: &str,
) -> Result<MovementDetail, tonic::Status> {
    app.client()
        .await
        .get_movement_detail(app.authorized(
            GetMovementDetailRequest {
                movement_id: movement_id.to_owned(),
            },
            &app.token(&member.id),
        ))
        .await
        .map(|answer| answer.into_inner().detail.expect("a detail"))
}

fn assert_refused(status: &tonic::Status, grpc: tonic::Code, code: ErrorCode) -> ErrorBody {
    assert_eq!(status.code(), grpc, "{status:?}");
    let body = ErrorBody::from_status(status);
    assert_eq!(body.code, code, "{status:?}");
    body
}

async fn a_posted_purchase_explains_each_line_with_its_rule_and_rate_adding_up_to_the_movement(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let posted = post_tuesday_purchase(&app, &member, "till-1:explained-1").await;

    let detail = detail_as_member(&app, &member, &posted.movement_id)
        .await
        .unwrap();

    let movement = detail.movement.as_ref().unwrap();
    assert_eq!(movement.movement_id, posted.movement_id);
    assert_eq!(movement.kind, MovementKind::Accrual as i32);
    assert_eq!(movement.status, MovementStatus::Pending as i32);
    assert_eq!(movement.amount, posted.accrued);
    assert!(detail.confirmed_at.is_empty());
    // Pending until the return window (14 days by default) of the purchase closes.
    assert_eq!(millis(&detail.confirms_at), millis(A_TUESDAY) + 14 * DAY_MS);
    let explained = detail.purchase.as_ref().expect("the purchase");
    assert_eq!(explained.store_name, "Lider Providencia");
    assert_eq!(explained.week_day, 2, "tuesday");
    assert_eq!(explained.payment_method, PaymentMethod::PartnerCard as i32);
    assert_eq!(explained.total, 33_333);
    assert_eq!(explained.rules_version, posted.rules_version);
    assert!(explained.has_breakdown);
    let lines: Vec<_> = explained
        .lines
        .iter()
        .map(|l| {
            (
                l.category,
                l.amount,
                l.rate_bp,
                l.earned,
                l.rule_id.as_str(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            (
                Category::FruitsAndVegetables as i32,
                10_000,
                300,
                300,
                "martes-frutas-y-verduras"
            ),
            (Category::Meat as i32, 20_000, 90, 180, "tarjeta-lider-bci"),
            (Category::Drinks as i32, 3_333, 90, 29, "tarjeta-lider-bci"),
        ]
    );
    assert_eq!(explained.lines[0].rule, "Martes 3% en frutas y verduras");
    let earned: i64 = explained.lines.iter().map(|l| l.earned).sum();
    assert_eq!(earned, movement.amount);
    assert_eq!(explained.accrued, movement.amount);
}

async fn a_rules_change_after_posting_does_not_change_the_stored_explanation(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let posted = post_tuesday_purchase(&app, &member, "till-1:history-1").await;
    let before = detail_as_member(&app, &member, &posted.movement_id)
        .await
        .unwrap();

    // The club publishes other rules: a ledger on the same database now posts with them.
    let other = Ledger::new(
        app.store.clone(),
        Arc::new(RuleSet::from_toml(OTHER_RULES).unwrap()),
    );
    let document = MemberDocument::parse(&member.document.canonical()).unwrap();
    let now = now_millis();
    let order = PurchaseOrder::new(
        IdempotencyKey::parse("till-1:history-2").unwrap(),
        MemberKey::Document(document.clone()),
        StoreId::parse("lider-providencia").unwrap(),
        StoreName::parse("Lider Providencia").unwrap(),
        millis(A_TUESDAY),
        miclub_accrual::PaymentMethod::PartnerCard,
        vec![OrderLine::new(miclub_accrual::Category::Meat, 20_000)],
        now,
    )
    .unwrap();
    let newer = other.post_purchase(&order, now).await.unwrap();
    assert_eq!(newer.rules_version, "2099-01-test");
    assert_eq!(newer.accrued, 1_000, "the new rules are in force");

    // The first purchase still reads as it was posted, through the new ledger and over gRPC.
    let through_new_rules = other
        .movement_detail(&member.id, &posted.movement_id)
        .await
        .unwrap();
    let explained = through_new_rules.purchase.as_ref().unwrap();
    assert_eq!(explained.rules_version, posted.rules_version);
    let accrual = explained.accrual.as_ref().unwrap();
    assert_eq!(
        accrual.lines.iter().map(|l| l.rate_bp).collect::<Vec<_>>(),
        [300, 90, 90]
    );
    assert_eq!(accrual.total, posted.accrued);
    let after = detail_as_member(&app, &member, &posted.movement_id)
        .await
        .unwrap();
    assert_eq!(after, before);

    // And the newer one explains itself with the rules that posted it.
    let newer_detail = other
        .movement_detail(&member.id, newer.movement_id.as_ref().unwrap().as_str())
        .await
        .unwrap();
    let newer_lines = &newer_detail.purchase.unwrap().accrual.unwrap().lines;
    assert_eq!(newer_lines[0].rate_bp, 500);
    assert_eq!(
        newer_lines[0].rule_id.as_deref(),
        Some("todos-los-dias-carnes")
    );
}

async fn another_members_movement_answers_exactly_like_an_unknown_one(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let ana = app.add_member_with_account().await;
    let bruno = app.add_member_with_account().await;
    let posted = post_tuesday_purchase(&app, &ana, "till-1:private-1").await;

    let someone_elses = detail_as_member(&app, &bruno, &posted.movement_id)
        .await
        .unwrap_err();
    let unknown = detail_as_member(&app, &bruno, &MovementId::generate().to_string())
        .await
        .unwrap_err();
    let first = assert_refused(&someone_elses, tonic::Code::NotFound, ErrorCode::NotFound);
    let second = assert_refused(&unknown, tonic::Code::NotFound, ErrorCode::NotFound);
    assert_eq!(first, second);
    assert_eq!(someone_elses.message(), unknown.message());

    for malformed in ["", "../../etc/passwd", "a b", &"x".repeat(65), "id'--"] {
        let refused = detail_as_member(&app, &ana, malformed).await.unwrap_err();
        let body = assert_refused(
            &refused,
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
        );
        assert_eq!(body.field.as_deref(), Some("movement_id"), "{malformed:?}");
        assert!(body.message.starts_with("El movimiento"), "{body:?}");
    }
}

async fn movements_without_a_stored_explanation_answer_without_a_breakdown(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let posted = post_tuesday_purchase(&app, &member, "till-1:old-post-1").await;
    // A purchase posted before explanations were stored has no accrual column value.
    sqlx::query("UPDATE purchases SET accrual = NULL WHERE movement_id = $1")
        .bind(&posted.movement_id)
        .execute(app.store.database().pool())
        .await
        .unwrap();

    let old = detail_as_member(&app, &member, &posted.movement_id)
        .await
        .unwrap();
    let explained = old.purchase.as_ref().unwrap();
    assert!(!explained.has_breakdown);
    assert!(explained.lines.is_empty());
    assert_eq!(explained.accrued, posted.accrued);
    assert_eq!(explained.total, 33_333);

    // A back-office adjustment has no purchase at all, and was confirmed when recorded.
    let recorded = app
        .client()
        .await
        .record_movement(app.as_service(RecordMovementRequest {
            movement_id: "adjustment-explained-1".into(),
            member_id: member.id.as_str().to_owned(),
            kind: MovementKind::Adjustment as i32,
            amount: 1_500,
            description: "Ajuste por reclamo".into(),
            occurred_at: days_ago(2),
        }))
        .await
        .unwrap()
        .into_inner();
    let adjustment = detail_as_member(&app, &member, "adjustment-explained-1")
        .await
        .unwrap();
    assert!(adjustment.purchase.is_none());
    assert!(adjustment.confirms_at.is_empty());
    assert!(!adjustment.confirmed_at.is_empty());
    assert_eq!(adjustment.movement, recorded.movement);
}

async fn a_confirmed_accrual_says_when_it_was_confirmed(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let posted = app
        .client()
        .await
        .post_purchase(app.as_service(purchase(
            &member,
            "till-2:confirmed-1",
            &days_ago(20),
            PaymentMethod::Cash,
            &[(Category::Other, 25_000)],
        )))
        .await
        .unwrap()
        .into_inner();
    let before = now_millis();
    app.client()
        .await
        .confirm_due_accruals(app.as_service(ConfirmDueAccrualsRequest {
            up_to: days_ago(14),
        }))
        .await
        .unwrap();

    let detail = detail_as_member(&app, &member, &posted.movement_id)
        .await
        .unwrap();
    assert_eq!(
        detail.movement.as_ref().unwrap().status,
        MovementStatus::Confirmed as i32
    );
    assert!(detail.confirms_at.is_empty());
    let confirmed_at = millis(&detail.confirmed_at);
    assert!(confirmed_at >= before - 1_000, "{}", detail.confirmed_at);
    let explained = detail.purchase.unwrap();
    assert_eq!(explained.lines.len(), 1);
    assert_eq!(explained.lines[0].rule_id, "", "the base rate");
    assert_eq!(explained.lines[0].rule, "0,8% en todas tus compras");
    assert_eq!(explained.lines[0].earned, 200);
}

async fn store_systems_read_a_members_movement_by_document_or_card_and_member_tokens_cannot(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let ana = app.add_member_with_account().await;
    let bruno = app.add_member_with_account().await;
    let posted = post_tuesday_purchase(&app, &ana, "till-3:store-read-1").await;
    let request = |document: String| GetMemberMovementDetailRequest {
        member_document: document,
        movement_id: posted.movement_id.clone(),
        member_card: String::new(),
    };
    let by_card = |card: String| GetMemberMovementDetailRequest {
        member_document: String::new(),
        movement_id: posted.movement_id.clone(),
        member_card: card,
    };
    let pos = app.keys.scoped_token(
        "pos",
        &[
            "miclub.accounts.v1.AccountsService/PostPurchase",
            "miclub.accounts.v1.AccountsService/GetMemberMovementDetail",
        ],
        300,
    );
    let mut client = app.bare_client().await;

    let read = client
        .get_member_movement_detail(app.authorized(request(ana.document.canonical()), &pos))
        .await
        .unwrap()
        .into_inner()
        .detail
        .unwrap();
    assert_eq!(
        read,
        detail_as_member(&app, &ana, &posted.movement_id)
            .await
            .unwrap()
    );

    // Another member's document: not found, like an unknown movement.
    let wrong = client
        .get_member_movement_detail(app.authorized(request(bruno.document.canonical()), &pos))
        .await
        .unwrap_err();
    assert_refused(&wrong, tonic::Code::NotFound, ErrorCode::NotFound);

    // The scanned card names her as her document does; Bruno's card does not reach her
    // movement, and a document with a card is refused on the card's field.
    let app = &app;
    let card_of = |member_id| {
        let token = app.token(member_id);
        let mut client = client.clone();
        async move {
            client
                .get_member_card(app.authorized(GetMemberCardRequest {}, &token))
                .await
                .unwrap()
                .into_inner()
                .card_number
        }
    };
    let ana_card = card_of(&ana.id).await;
    let bruno_card = card_of(&bruno.id).await;
    let read_by_card = client
        .get_member_movement_detail(app.authorized(by_card(ana_card.clone()), &pos))
        .await
        .unwrap()
        .into_inner()
        .detail
        .unwrap();
    assert_eq!(read_by_card, read);
    let wrong = client
        .get_member_movement_detail(app.authorized(by_card(bruno_card), &pos))
        .await
        .unwrap_err();
    assert_refused(&wrong, tonic::Code::NotFound, ErrorCode::NotFound);
    let both = GetMemberMovementDetailRequest {
        member_card: ana_card,
        ..request(ana.document.canonical())
    };
    let refused = client
        .get_member_movement_detail(app.authorized(both, &pos))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert_eq!(
        ErrorBody::from_status(&refused).field.as_deref(),
        Some("member_card")
    );

    // A member's token, even Ana's own, is refused on the store systems' method.
    let as_member = client
        .get_member_movement_detail(
            app.authorized(request(ana.document.canonical()), &app.token(&bruno.id)),
        )
        .await
        .unwrap_err();
    assert_refused(
        &as_member,
        tonic::Code::PermissionDenied,
        ErrorCode::Forbidden,
    );

    // A store system granted only PostPurchase cannot read.
    let post_only = app.keys.scoped_token(
        "pos",
        &["miclub.accounts.v1.AccountsService/PostPurchase"],
        300,
    );
    let unscoped = client
        .get_member_movement_detail(app.authorized(request(ana.document.canonical()), &post_only))
        .await
        .unwrap_err();
    assert_refused(
        &unscoped,
        tonic::Code::PermissionDenied,
        ErrorCode::Forbidden,
    );

    // And a service token cannot act as a member on the member's method.
    let as_service = client
        .get_movement_detail(app.authorized(
            GetMovementDetailRequest {
                movement_id: posted.movement_id.clone(),
            },
            &pos,
        ))
        .await
        .unwrap_err();
    assert_refused(
        &as_service,
        tonic::Code::PermissionDenied,
        ErrorCode::Forbidden,
    );
    let anonymous = client
        .get_movement_detail(tonic::Request::new(GetMovementDetailRequest {
            movement_id: posted.movement_id.clone(),
        }))
        .await
        .unwrap_err();
    assert_eq!(anonymous.code(), tonic::Code::Unauthenticated);
}

async fn the_seeded_purchases_explain_themselves(env: TestEnv) {
    let app = TestApp::spawn_seeded(env).await;
    let ana = miclub_platform::demo::MEMBERS
        .iter()
        .find(|demo| demo.name == "Ana")
        .unwrap();
    let ana_id = MemberId::parse(ana.member_id).unwrap();
    let movements = app.store.movements(&ana_id).await.unwrap();
    let ledger = Ledger::new(app.store.clone(), Arc::new(RuleSet::builtin()));
    let mut explained = 0;
    for movement in movements {
        let detail = ledger
            .movement_detail(&ana_id, movement.id().as_str())
            .await
            .unwrap();
        if let Some(purchase) = detail.purchase {
            let accrual = purchase.accrual.expect("seeded through the posting path");
            assert_eq!(accrual.total, movement.amount());
            explained += 1;
        }
    }
    assert_eq!(explained, 2, "Ana's two seeded purchases");
}

backend_tests!(
    a_posted_purchase_explains_each_line_with_its_rule_and_rate_adding_up_to_the_movement,
    a_rules_change_after_posting_does_not_change_the_stored_explanation,
    another_members_movement_answers_exactly_like_an_unknown_one,
    movements_without_a_stored_explanation_answer_without_a_breakdown,
    a_confirmed_accrual_says_when_it_was_confirmed,
    store_systems_read_a_members_movement_by_document_or_card_and_member_tokens_cannot,
    the_seeded_purchases_explain_themselves,
);
