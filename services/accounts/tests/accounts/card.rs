//! The member card (#21): every club account gets a random, check-digited number in the
//! transaction that opens it (or from the start-up backfill when it was opened before numbers
//! existed), never rewritten; `GetMemberCard` answers it with the names and the balance as
//! `GetBalance` gives them, to the member the token names and to nobody else; a store system
//! posts a purchase with the scanned card instead of the document.

use std::collections::HashSet;

use miclub_accounts::domain::{Accounts, CardNumber, MemberId};
use miclub_accounts::store::Store;
use miclub_platform::backend_tests;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::storage::{millis_to_rfc3339, now_millis};
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    Category, GetBalanceRequest, GetMemberCardRequest, GetMemberCardResponse,
    OpenClubAccountRequest, PaymentMethod, PostPurchaseRequest,
};
use sqlx::Row;

use crate::support::{
    TERMS_ACCEPTED_AT, TestApp, add_member_with_account, count, days_ago, full_member, purchase,
};

const GET_MEMBER_CARD: &str = "miclub.accounts.v1.AccountsService/GetMemberCard";

/// The card number stored for `member_id`'s account (`None`: no number yet).
async fn stored_card(store: &Store, member_id: &MemberId) -> Option<String> {
    sqlx::query("SELECT card_number FROM club_accounts WHERE member_id = $1")
        .bind(member_id.as_str())
        .fetch_one(store.database().pool())
        .await
        .unwrap()
        .get("card_number")
}

/// Every stored card number, and how many accounts have none.
async fn all_cards(store: &Store) -> (Vec<String>, i64) {
    let rows = sqlx::query("SELECT card_number FROM club_accounts")
        .fetch_all(store.database().pool())
        .await
        .unwrap();
    let mut cards = Vec::new();
    let mut missing = 0;
    for row in rows {
        match row.get::<Option<String>, _>("card_number") {
            Some(card) => cards.push(card),
            None => missing += 1,
        }
    }
    (cards, missing)
}

/// Takes the number away, as for an account opened before card numbers existed.
async fn forget_card(store: &Store, member_id: &MemberId) {
    sqlx::query("UPDATE club_accounts SET card_number = NULL WHERE member_id = $1")
        .bind(member_id.as_str())
        .execute(store.database().pool())
        .await
        .unwrap();
}

async fn get_card(app: &TestApp, token: &str) -> Result<GetMemberCardResponse, tonic::Status> {
    app.bare_client()
        .await
        .get_member_card(app.authorized(GetMemberCardRequest {}, token))
        .await
        .map(tonic::Response::into_inner)
}

fn assert_refused(status: &tonic::Status, grpc: tonic::Code, code: ErrorCode) {
    assert_eq!(status.code(), grpc, "{status:?}");
    assert_eq!(ErrorBody::from_status(status).code, code, "{status:?}");
}

async fn a_member_reads_their_card_with_the_balance_get_balance_gives(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let movement = crate::support::movement(
        &member.id,
        miclub_accounts::domain::MovementKind::Adjustment,
        miclub_accounts::domain::MovementStatus::Confirmed,
        12_345,
        "Ajuste por reclamo",
        TERMS_ACCEPTED_AT,
    );
    app.store
        .record_movement(&movement, TERMS_ACCEPTED_AT)
        .await
        .unwrap();
    let token = app.token(&member.id);
    let before = now_millis();

    let card = get_card(&app, &token).await.expect("the card");
    let after = now_millis();
    let balance = app
        .bare_client()
        .await
        .get_balance(app.authorized(GetBalanceRequest {}, &token))
        .await
        .unwrap()
        .into_inner();

    assert_eq!(card.name, "Ana");
    assert_eq!(card.last_name, "González");
    assert_eq!(card.balance, 12_345);
    assert_eq!(card.balance, balance.balance);
    assert_eq!(card.balance_updated_at, balance.updated_at);
    assert_eq!(
        card.balance_updated_at,
        millis_to_rfc3339(TERMS_ACCEPTED_AT)
    );
    let parsed = CardNumber::parse(&card.card_number).expect("12 digits, Luhn");
    assert_eq!(
        stored_card(&app.store, &member.id).await.as_deref(),
        Some(parsed.as_str())
    );
    let as_of = chrono::DateTime::parse_from_rfc3339(&card.as_of)
        .expect("as_of is RFC 3339")
        .timestamp_millis();
    // Whole seconds, as every instant accounts answers.
    let from = before - before.rem_euclid(1_000);
    assert!(
        (from..=after).contains(&as_of),
        "{as_of} in {from}..={after}"
    );

    // The number stays: a second read answers the same one.
    let again = get_card(&app, &token).await.unwrap();
    assert_eq!(again.card_number, card.card_number);
}

async fn a_member_without_a_club_account_is_refused_as_get_balance_refuses(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let token = app.token(&member.id);
    let unknown = app.token(&MemberId::generate());

    let card = get_card(&app, &token).await.unwrap_err();
    let balance = app
        .bare_client()
        .await
        .get_balance(app.authorized(GetBalanceRequest {}, &token))
        .await
        .unwrap_err();
    let nobody = get_card(&app, &unknown).await.unwrap_err();

    assert_refused(
        &card,
        tonic::Code::FailedPrecondition,
        ErrorCode::NoClubAccount,
    );
    assert_eq!(card.code(), balance.code());
    assert_eq!(
        ErrorBody::from_status(&card),
        ErrorBody::from_status(&balance)
    );
    assert_refused(
        &nobody,
        tonic::Code::FailedPrecondition,
        ErrorCode::NoClubAccount,
    );
}

async fn only_a_member_token_reads_a_card_and_only_its_own(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let ana = app.add_member_with_account().await;
    let other = app.add_member_with_account().await;

    // The member comes from the token: nothing in the request can name another.
    let own = get_card(&app, &app.token(&ana.id)).await.unwrap();
    let others = get_card(&app, &app.token(&other.id)).await.unwrap();
    assert_ne!(own.card_number, others.card_number);
    assert_eq!(
        stored_card(&app.store, &ana.id).await.as_deref(),
        Some(own.card_number.as_str())
    );

    // A till's token, every scoped method granted, and one even naming the method: refused by
    // the access table (a member method takes member tokens only).
    let pos = app.service_token();
    let naming_it = app.keys.scoped_token("pos", &[GET_MEMBER_CARD], 300);
    for token in [pos.as_str(), naming_it.as_str()] {
        let refused = get_card(&app, token).await.unwrap_err();
        assert_refused(
            &refused,
            tonic::Code::PermissionDenied,
            ErrorCode::Forbidden,
        );
        assert!(!refused.message().contains(&own.card_number));
    }
    // And without any token.
    let anonymous = app
        .bare_client()
        .await
        .get_member_card(GetMemberCardRequest {})
        .await
        .unwrap_err();
    assert_refused(
        &anonymous,
        tonic::Code::Unauthenticated,
        ErrorCode::Unauthenticated,
    );
}

async fn every_way_of_opening_an_account_numbers_it_in_the_same_write(env: TestEnv) {
    // The demo seed opens accounts (Ana, Carla, Diego).
    let app = TestApp::spawn_seeded(env).await;
    // The store's opening (the seed's and the tests' way).
    let with_account = app.add_member_with_account().await;
    // Joining in place from Mi Cuenta.
    let joining = app.add_member_without_account().await;
    app.client()
        .await
        .open_club_account(app.authorized(
            OpenClubAccountRequest {
                accept_terms: true,
                terms_version: "2026-11".into(),
            },
            &app.token(&joining.id),
        ))
        .await
        .expect("joined");
    // Registration: a pending member with its account.
    let registered = full_member();
    app.store
        .register_member(&registered, TERMS_ACCEPTED_AT)
        .await
        .unwrap();

    let (cards, missing) = all_cards(&app.store).await;
    assert_eq!(missing, 0, "an account without a number");
    assert_eq!(cards.len() as i64, count(&app.store, "club_accounts").await);
    for card in &cards {
        CardNumber::parse(card).unwrap_or_else(|err| panic!("{card}: {err}"));
    }
    assert_eq!(cards.iter().collect::<HashSet<_>>().len(), cards.len());
    for member in [&with_account.id, &joining.id, &registered.id] {
        assert!(stored_card(&app.store, member).await.is_some());
    }

    // A second registration of the same document takes the pending member over: the account
    // and its number stay as they were.
    let before = stored_card(&app.store, &registered.id).await;
    let again = miclub_accounts::domain::Member {
        id: MemberId::generate(),
        ..registered.clone()
    };
    app.store
        .register_member(&again, TERMS_ACCEPTED_AT + 1)
        .await
        .unwrap();
    assert_eq!(stored_card(&app.store, &registered.id).await, before);
}

async fn the_backfill_numbers_old_accounts_once_even_from_two_replicas(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let store = app.store.clone();
    // Stopped before the accounts exist, so that its own start-up backfill (which a loaded
    // machine may run late) numbers none of them: the two replicas are alone with the work.
    let env = app.stopped().await;
    let mut old = Vec::new();
    for _ in 0..7 {
        let member = add_member_with_account(&store).await;
        forget_card(&store, &member.id).await;
        old.push(member.id);
    }
    let kept = add_member_with_account(&store).await;
    let kept_card = stored_card(&store, &kept.id).await.unwrap();

    // Two replicas starting together, in batches smaller than the work.
    let first = Accounts::new(store.clone());
    let second = Accounts::new(Store::connect(&env.database).await.unwrap());
    let (a, b) = tokio::join!(
        first.assign_missing_card_numbers(2),
        second.assign_missing_card_numbers(3)
    );
    let assigned = a.unwrap() + b.unwrap();

    // The two replicas numbered all seven between them, each account once.
    assert_eq!(assigned, 7, "each old account numbered once");
    let (cards, missing) = all_cards(&store).await;
    assert_eq!(missing, 0);
    assert_eq!(cards.iter().collect::<HashSet<_>>().len(), cards.len());
    assert_eq!(stored_card(&store, &kept.id).await.unwrap(), kept_card);
    let numbered: Vec<_> = {
        let mut numbered = Vec::new();
        for id in &old {
            numbered.push(stored_card(&store, id).await.unwrap());
        }
        numbered
    };

    // Run again (the next start): nothing to do, nothing rewritten.
    assert_eq!(first.assign_missing_card_numbers(2).await.unwrap(), 0);
    for (id, card) in old.iter().zip(&numbered) {
        assert_eq!(stored_card(&store, id).await.as_ref(), Some(card));
    }
}

async fn accounts_numbers_older_accounts_when_it_starts(env: TestEnv) {
    // Accounts opened before this version: on the database before the service starts.
    let store = Store::connect(&env.database).await.unwrap();
    let member = add_member_with_account(&store).await;
    forget_card(&store, &member.id).await;

    let app = TestApp::spawn(env).await;

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        if let Some(card) = stored_card(&app.store, &member.id).await {
            CardNumber::parse(&card).unwrap();
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the start-up backfill never numbered the account"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn a_card_read_before_the_backfill_reached_it_is_numbered_then_kept(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    forget_card(&app.store, &member.id).await;
    let token = app.token(&member.id);

    let first = get_card(&app, &token).await.unwrap();
    let second = get_card(&app, &token).await.unwrap();

    CardNumber::parse(&first.card_number).unwrap();
    assert_eq!(first.card_number, second.card_number);
    assert_eq!(
        stored_card(&app.store, &member.id).await.as_deref(),
        Some(first.card_number.as_str())
    );
}

// --- PostPurchase with the scanned card ---

fn by_card(request: PostPurchaseRequest, card: &str) -> PostPurchaseRequest {
    PostPurchaseRequest {
        member_document: String::new(),
        member_card: card.to_owned(),
        ..request
    }
}

async fn post(
    app: &TestApp,
    request: PostPurchaseRequest,
) -> Result<miclub_proto::accounts::v1::PostPurchaseResponse, tonic::Status> {
    app.client()
        .await
        .post_purchase(app.as_service(request))
        .await
        .map(tonic::Response::into_inner)
}

async fn a_purchase_posted_with_the_card_accrues_to_the_cards_member(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let ana = app.add_member_with_account().await;
    let other = app.add_member_with_account().await;
    let card = stored_card(&app.store, &ana.id).await.unwrap();
    // Posted with `other`'s document in the template, but keyed by Ana's card only.
    let request = by_card(
        purchase(
            &other,
            "till-3:card-0001",
            &days_ago(0),
            PaymentMethod::Cash,
            &[(Category::Meat, 100_000)],
        ),
        &card,
    );

    let posted = post(&app, request.clone()).await.expect("posted");
    let replayed = post(&app, request.clone()).await.expect("replayed");

    assert!(posted.accrued > 0);
    assert!(replayed.replayed);
    assert_eq!(replayed.purchase_id, posted.purchase_id);
    let ledger = app.store.movements(&ana.id).await.unwrap();
    assert_eq!(ledger.len(), 1);
    assert_eq!(ledger[0].id().as_str(), posted.movement_id);
    assert!(app.store.movements(&other.id).await.unwrap().is_empty());

    // The same key with the document instead of the card is another payload.
    let by_document = PostPurchaseRequest {
        member_document: ana.document.canonical(),
        member_card: String::new(),
        ..request
    };
    let mismatch = post(&app, by_document).await.unwrap_err();
    assert_refused(
        &mismatch,
        tonic::Code::AlreadyExists,
        ErrorCode::IdempotencyMismatch,
    );
}

async fn a_malformed_or_unknown_card_or_both_keys_are_refused_and_write_nothing(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let card = stored_card(&app.store, &member.id).await.unwrap();
    let template = purchase(
        &member,
        "till-3:card-0002",
        &days_ago(0),
        PaymentMethod::Cash,
        &[(Category::Meat, 10_000)],
    );
    // One digit changed: the check digit no longer matches.
    let mut misread = card.clone().into_bytes();
    misread[5] = b'0' + (misread[5] - b'0' + 1) % 10;
    let misread = String::from_utf8(misread).unwrap();
    // Well-formed, but (almost surely) nobody's.
    let unknown = loop {
        let drawn = CardNumber::generate();
        if drawn.as_str() != card {
            break drawn;
        }
    };

    for (request, grpc, code, field) in [
        (
            by_card(template.clone(), &misread),
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
            Some("member_card"),
        ),
        (
            by_card(template.clone(), "12345"),
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
            Some("member_card"),
        ),
        (
            PostPurchaseRequest {
                member_card: card.clone(),
                ..template.clone()
            },
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
            Some("member_card"),
        ),
        (
            by_card(template.clone(), ""),
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
            Some("member_document"),
        ),
        (
            by_card(template.clone(), unknown.as_str()),
            tonic::Code::NotFound,
            ErrorCode::NotFound,
            None,
        ),
    ] {
        let refused = post(&app, request).await.unwrap_err();
        assert_refused(&refused, grpc, code);
        let body = ErrorBody::from_status(&refused);
        assert_eq!(body.field.as_deref(), field, "{body:?}");
        assert!(!body.message.is_empty());
    }
    // An unknown card answers exactly as an unknown document does.
    let unknown_card = post(&app, by_card(template.clone(), unknown.as_str()))
        .await
        .unwrap_err();
    let unknown_document = post(
        &app,
        PostPurchaseRequest {
            member_document: full_member().document.canonical(),
            ..template
        },
    )
    .await
    .unwrap_err();
    assert_eq!(
        ErrorBody::from_status(&unknown_card),
        ErrorBody::from_status(&unknown_document)
    );
    assert_eq!(count(&app.store, "purchases").await, 0);
    assert_eq!(count(&app.store, "movements").await, 0);
}

backend_tests!(
    a_member_reads_their_card_with_the_balance_get_balance_gives,
    a_member_without_a_club_account_is_refused_as_get_balance_refuses,
    only_a_member_token_reads_a_card_and_only_its_own,
    every_way_of_opening_an_account_numbers_it_in_the_same_write,
    the_backfill_numbers_old_accounts_once_even_from_two_replicas,
    accounts_numbers_older_accounts_when_it_starts,
    a_card_read_before_the_backfill_reached_it_is_numbered_then_kept,
    a_purchase_posted_with_the_card_accrues_to_the_cards_member,
    a_malformed_or_unknown_card_or_both_keys_are_refused_and_write_nothing,
);
