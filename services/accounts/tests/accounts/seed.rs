//! The demo seed: every demo member once, with the ledger that makes their balance.

use std::sync::Arc;

use miclub_accounts::domain::{Ledger, MemberId, MovementStatus};
use miclub_accounts::seed::{SeedReport, planned_movements, planned_purchases, seed_demo};
use miclub_accrual::RuleSet;
use miclub_platform::backend_tests;
use miclub_platform::demo::MEMBERS;
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{GetBalanceRequest, GetMemberRequest};

use crate::support::{TestApp, count};

async fn seeding_twice_leaves_one_copy(env: TestEnv) {
    // The application seeds once at start-up; seed again by hand.
    let app = TestApp::spawn_seeded(env).await;
    let members = count(&app.store, "members").await;
    let accounts = count(&app.store, "club_accounts").await;
    let movements = count(&app.store, "movements").await;
    let purchases = count(&app.store, "purchases").await;
    let ledger = Ledger::new(app.store.clone(), Arc::new(RuleSet::builtin()));

    let second = seed_demo(&app.store, &ledger).await.unwrap();

    assert_eq!(second, SeedReport::default());
    assert_eq!(members, MEMBERS.len() as i64);
    assert_eq!(count(&app.store, "members").await, members);
    assert_eq!(
        accounts,
        MEMBERS.iter().filter(|m| m.has_club_account).count() as i64
    );
    assert_eq!(count(&app.store, "club_accounts").await, accounts);
    let planned: usize = MEMBERS.iter().map(|m| planned_movements(m).len()).sum();
    let posted: usize = MEMBERS.iter().map(|m| planned_purchases(m).len()).sum();
    // Every demo purchase accrues something, so it adds one (pending) movement.
    assert_eq!(movements, (planned + posted) as i64);
    assert_eq!(count(&app.store, "movements").await, movements);
    assert_eq!(purchases, posted as i64);
    assert_eq!(count(&app.store, "purchases").await, purchases);
    assert_eq!(count(&app.store, "outbox").await, purchases);
    for demo in MEMBERS {
        let id = MemberId::parse(demo.member_id).unwrap();
        let balance = app.store.balance(&id).await.unwrap().map(|b| b.pesos());
        assert_eq!(
            balance,
            demo.has_club_account.then_some(demo.balance),
            "{}",
            demo.name
        );
    }
}

async fn the_seeded_demo_members_read_their_records_and_balances_over_grpc(env: TestEnv) {
    let app = TestApp::spawn_seeded(env).await;
    let mut client = app.client().await;

    for demo in MEMBERS {
        let id = MemberId::parse(demo.member_id).unwrap();
        let token = app.token(&id);
        let member = client
            .get_member(app.authorized(GetMemberRequest {}, &token))
            .await
            .unwrap()
            .into_inner()
            .member
            .unwrap();
        assert_eq!(member.document_number, demo.rut);
        assert_eq!(member.email_confirmed, demo.email_verified);
        assert_eq!(member.has_club_account, demo.has_club_account);
        let balance = client
            .get_balance(app.authorized(GetBalanceRequest {}, &token))
            .await;
        match balance {
            Ok(balance) => {
                assert_eq!(balance.into_inner().balance, demo.balance, "{}", demo.name);
                let ledger = app.store.movements(&id).await.unwrap();
                let confirmed: i64 = ledger
                    .iter()
                    .filter(|m| m.status() == MovementStatus::Confirmed)
                    .map(|m| m.amount())
                    .sum();
                assert_eq!(confirmed, demo.balance);
            }
            Err(status) => {
                assert!(!demo.has_club_account, "{}: {status:?}", demo.name);
                assert_eq!(status.code(), tonic::Code::FailedPrecondition);
            }
        }
    }
}

backend_tests!(
    seeding_twice_leaves_one_copy,
    the_seeded_demo_members_read_their_records_and_balances_over_grpc,
);
