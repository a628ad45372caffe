//! `ListMovements`: a member's movements by calendar month in Chile, newest first, ten per
//! page, with the count of the whole month.

use miclub_accounts::domain::MovementKind::{Accrual, Adjustment, Redemption};
use miclub_accounts::domain::MovementStatus::{Confirmed, Pending};
use miclub_accounts::domain::{MemberId, Month, parse_instant};
use miclub_platform::backend_tests;
use miclub_platform::demo::MEMBERS;
use miclub_platform::error::{ErrorBody, ErrorCode};
use miclub_platform::storage::{Backend, now_millis};
use miclub_platform::testing::TestEnv;
use miclub_proto::accounts::v1::{
    ListMovementsRequest, ListMovementsResponse, MovementKind, MovementStatus,
};

use crate::support::{TestApp, movement};

fn month_request(month: Month, page: i32) -> ListMovementsRequest {
    ListMovementsRequest {
        year: month.year(),
        month: month.month() as i32,
        page,
        page_size: 0,
    }
}

async fn list(
    app: &TestApp,
    member_id: &MemberId,
    request: ListMovementsRequest,
) -> Result<ListMovementsResponse, tonic::Status> {
    app.client()
        .await
        .list_movements(app.authorized(request, &app.token(member_id)))
        .await
        .map(tonic::Response::into_inner)
}

fn at(raw: &str) -> i64 {
    parse_instant("at", raw).unwrap()
}

async fn ana_reads_last_month_in_two_pages_of_ten_and_three_newest_first(env: TestEnv) {
    let app = TestApp::spawn_seeded(env).await;
    let ana = MEMBERS.iter().find(|m| m.name == "Ana").unwrap();
    let ana_id = MemberId::parse(ana.member_id).unwrap();
    let this_month = Month::containing(now_millis());
    let last_month = this_month.months_before(1);

    let first = list(&app, &ana_id, month_request(last_month, 1))
        .await
        .unwrap();
    let second = list(&app, &ana_id, month_request(last_month, 2))
        .await
        .unwrap();
    let past_the_end = list(&app, &ana_id, month_request(last_month, 3))
        .await
        .unwrap();

    assert_eq!(first.movements.len(), 10);
    assert_eq!((first.page, first.page_size), (1, 10));
    assert_eq!((first.total_count, first.total_pages), (13, 2));
    assert_eq!(second.movements.len(), 3);
    assert_eq!(
        (second.page, second.total_count, second.total_pages),
        (2, 13, 2)
    );
    assert!(past_the_end.movements.is_empty());
    assert_eq!(past_the_end.total_count, 13);

    let all: Vec<_> = first.movements.iter().chain(&second.movements).collect();
    let instants: Vec<i64> = all.iter().map(|m| at(&m.occurred_at)).collect();
    assert!(instants.windows(2).all(|w| w[0] >= w[1]), "{instants:?}");
    assert!(
        instants
            .iter()
            .all(|t| (last_month.start()..last_month.end()).contains(t))
    );
    // Newest first: the month ends with the purchase at Lider Maipú.
    assert_eq!(all[0].description, "Compra en Lider Maipú");
    assert_eq!(all[0].kind(), MovementKind::Accrual);
    assert_eq!(all[0].amount, 1_000);
    let kinds: std::collections::HashSet<_> = all.iter().map(|m| m.kind()).collect();
    assert_eq!(kinds.len(), 4, "every kind of movement last month");
    let ids: std::collections::HashSet<_> = all.iter().map(|m| m.movement_id.clone()).collect();
    assert_eq!(ids.len(), 13);

    let empty = list(&app, &ana_id, month_request(this_month.months_before(2), 1))
        .await
        .unwrap();
    assert!(empty.movements.is_empty());
    assert_eq!((empty.total_count, empty.total_pages), (0, 0));

    let current = list(&app, &ana_id, month_request(this_month, 0))
        .await
        .unwrap();
    assert_eq!(current.page, 1);
    assert!(
        current
            .movements
            .iter()
            .any(|m| m.status() == MovementStatus::Pending && m.amount == 1_250)
    );
}

async fn a_movement_at_two_in_the_morning_utc_on_the_first_of_november_belongs_to_october(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let ledger = [
        // 30 September, 23:59:59 in Chile.
        movement(
            &member.id,
            Accrual,
            Confirmed,
            100,
            "Compra en Lider.cl",
            at("2026-10-01T02:59:59Z"),
        ),
        // 31 October, 23:00 in Chile.
        movement(
            &member.id,
            Accrual,
            Confirmed,
            200,
            "Compra en Lider Providencia",
            at("2026-11-01T02:00:00Z"),
        ),
        movement(
            &member.id,
            Redemption,
            Confirmed,
            -50,
            "Canje en caja",
            at("2026-10-01T03:00:00Z"),
        ),
        // 1 November, midnight in Chile.
        movement(
            &member.id,
            Adjustment,
            Confirmed,
            10,
            "Ajuste por reclamo",
            at("2026-11-01T03:00:00Z"),
        ),
        movement(
            &member.id,
            Accrual,
            Pending,
            300,
            "Compra en Lider Ñuñoa",
            at("2026-11-01T03:00:00Z"),
        ),
    ];
    for m in &ledger {
        app.store.record_movement(m, m.occurred_at()).await.unwrap();
    }
    let october = Month::containing(at("2026-10-15T12:00:00Z"));

    let in_october = list(&app, &member.id, month_request(october, 1))
        .await
        .unwrap();
    let in_november = list(&app, &member.id, month_request(october.next(), 1))
        .await
        .unwrap();

    let descriptions: Vec<_> = in_october
        .movements
        .iter()
        .map(|m| m.description.as_str())
        .collect();
    assert_eq!(
        descriptions,
        ["Compra en Lider Providencia", "Canje en caja"]
    );
    assert_eq!(in_october.movements[0].occurred_at, "2026-11-01T02:00:00Z");
    assert_eq!(in_october.movements[1].kind(), MovementKind::Redemption);
    assert_eq!(in_october.movements[1].amount, -50);
    assert_eq!(in_october.movements[1].status(), MovementStatus::Confirmed);
    assert_eq!(in_october.total_count, 2);
    // Two movements at the same instant: the larger id first.
    assert_eq!(in_november.total_count, 2);
    let mut expected: Vec<_> = ledger[3..]
        .iter()
        .map(|m| m.id().as_str().to_owned())
        .collect();
    expected.sort_unstable_by(|a, b| b.cmp(a));
    let got: Vec<_> = in_november
        .movements
        .iter()
        .map(|m| m.movement_id.clone())
        .collect();
    assert_eq!(got, expected);
}

async fn an_invalid_year_month_or_page_is_refused_naming_the_field_in_spanish(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    let next_year = Month::containing(now_millis()).year() + 1;
    let cases = [
        (1999, 5, 1, "year", "Elige un año válido."),
        (next_year + 1, 1, 1, "year", "Elige un año válido."),
        (2026, 0, 1, "month", "Elige un mes válido."),
        (2026, 13, 1, "month", "Elige un mes válido."),
        (2026, 5, -1, "page", "Elige una página válida."),
        (2026, 5, 10_001, "page", "Elige una página válida."),
    ];

    for (year, month, page, field, message) in cases {
        let request = ListMovementsRequest {
            year,
            month,
            page,
            page_size: 0,
        };
        let status = list(&app, &member.id, request).await.unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        let body = ErrorBody::from_status(&status);
        assert_eq!(body.code, ErrorCode::InvalidArgument);
        assert_eq!(body.field.as_deref(), Some(field), "{year}-{month} p{page}");
        assert_eq!(body.message, message);
    }
    let last = ListMovementsRequest {
        year: next_year,
        month: 12,
        page: 10_000,
        page_size: 100,
    };
    assert!(
        list(&app, &member.id, last)
            .await
            .unwrap()
            .movements
            .is_empty()
    );
}

async fn a_member_without_a_club_account_cannot_list_movements_and_a_service_token_cannot_either(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let member = app.add_member_without_account().await;
    let request = ListMovementsRequest {
        year: 2026,
        month: 11,
        page: 1,
        page_size: 0,
    };

    let status = list(&app, &member.id, request).await.unwrap_err();
    let as_service = app
        .client()
        .await
        .list_movements(app.as_service(request))
        .await
        .unwrap_err();

    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(
        ErrorBody::from_status(&status).code,
        ErrorCode::NoClubAccount
    );
    assert_eq!(as_service.code(), tonic::Code::PermissionDenied);
}

async fn both_month_queries_use_the_member_and_instant_index(env: TestEnv) {
    let backend = env.backend;
    let app = TestApp::spawn(env).await;
    let member = app.add_member_with_account().await;
    // Two thousand days of movements, so the planner has a reason to prefer the index.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) \
         INSERT INTO movements (id, member_id, kind, status, amount, reason, occurred_at, \
         created_at, updated_at) \
         SELECT 'bulk-' || CAST(i AS TEXT), $1, 'accrual', 'pending', 100, 'Compra en Lider.cl', \
         $2 - CAST(i AS BIGINT) * 86400000, $2, $2 FROM n",
    )
    .bind(member.id.as_str())
    .bind(now_millis())
    .execute(app.store.database().pool())
    .await
    .unwrap();
    sqlx::query("ANALYZE movements")
        .execute(app.store.database().pool())
        .await
        .unwrap();
    let month = Month::containing(now_millis()).months_before(3);

    let [page, count] = app
        .store
        .explain_month_queries(&member.id, month.start(), month.end(), 10, 0)
        .await
        .unwrap();

    for plan in [&page, &count] {
        assert!(
            plan.contains("movements_member_occurred_at"),
            "{backend:?}:\n{plan}"
        );
    }
    if backend == Backend::Postgres {
        assert!(!page.contains("Seq Scan"), "{page}");
        assert!(!count.contains("Seq Scan"), "{count}");
    }
    let counted = app
        .store
        .count_movements_between(&member.id, month.start(), month.end())
        .await
        .unwrap();
    assert!((28..=31).contains(&counted), "{counted}");
}

backend_tests!(
    ana_reads_last_month_in_two_pages_of_ten_and_three_newest_first,
    a_movement_at_two_in_the_morning_utc_on_the_first_of_november_belongs_to_october,
    an_invalid_year_month_or_page_is_refused_naming_the_field_in_spanish,
    a_member_without_a_club_account_cannot_list_movements_and_a_service_token_cannot_either,
    both_month_queries_use_the_member_and_instant_index,
);
