//! The gRPC API: who may call what, the member's list with its states, the 409 while the
//! history loads, `HasMissions`, and the validation of `UpsertMission`.

use miclub_platform::backend_tests;
use miclub_platform::error::ErrorCode;
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::missions::v1 as pb;

use crate::support::{
    ANA, BRUNO, DIEGO, TestApp, amount_mission, body, day, noon, purchase, purchase_event,
    purchases_mission,
};

async fn the_list_answers_409_while_the_history_loads_and_the_missions_after(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[DIEGO]))
        .await;

    app.set_loading(DIEGO, true).await;
    let status = app.list(DIEGO).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::Aborted);
    let refused = body(&status);
    assert_eq!(refused.code, ErrorCode::MissionsNotReady);
    assert_eq!(refused.code.http_status().as_u16(), 409);
    assert!(
        app.has_missions(DIEGO).await,
        "has_missions never fails for loading"
    );
    assert_eq!(
        app.list(ANA).await.unwrap().len(),
        0,
        "only Diego is loading"
    );

    app.set_loading(DIEGO, true).await;
    app.set_loading(DIEGO, false).await;
    let listed = app.list(DIEGO).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].mission_id, "carnes");
}

async fn has_missions_is_true_only_with_a_mission_in_force_assigned_to_the_member(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    assert!(!app.has_missions(ANA).await);

    // Not yet started, ended yesterday, and someone else's: none counts for Ana.
    app.upsert(pb::Mission {
        starts_on: day(1),
        ends_on: day(5),
        ..amount_mission("futura", 10, 1_000, &[ANA])
    })
    .await;
    app.upsert(pb::Mission {
        starts_on: day(-5),
        ends_on: day(-1),
        ..amount_mission("terminada", 10, 1_000, &[ANA])
    })
    .await;
    app.upsert(amount_mission("de-diego", 10, 1_000, &[DIEGO]))
        .await;
    assert!(!app.has_missions(ANA).await);
    assert!(app.has_missions(DIEGO).await);

    // One for every member, ending today.
    app.upsert(pb::Mission {
        ends_on: day(0),
        ..amount_mission("para-todos", 2, 1_000, &[])
    })
    .await;
    assert!(app.has_missions(ANA).await);
    assert!(app.has_missions(BRUNO).await);
}

async fn the_list_shows_progress_and_states_and_hides_missions_not_started_or_long_ended(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    app.upsert(amount_mission("carnes", 10, 20_000, &[ANA]))
        .await;
    app.upsert(purchases_mission("aceites", 2, 1, &[ANA])).await;
    app.upsert(pb::Mission {
        starts_on: day(-20),
        ends_on: day(-3),
        ..amount_mission("vencida", 57, 9_000, &[ANA])
    })
    .await;
    app.upsert(pb::Mission {
        starts_on: day(-60),
        ends_on: day(-31),
        ..amount_mission("antigua", 57, 9_000, &[ANA])
    })
    .await;
    app.upsert(pb::Mission {
        starts_on: day(2),
        ends_on: day(9),
        ..amount_mission("futura", 10, 9_000, &[ANA])
    })
    .await;
    for (id, at, lines) in [
        ("e1", noon(0), vec![(10, 7_500), (2, 990)]),
        ("e2", noon(-4), vec![(57, 4_000)]),
    ] {
        app.missions
            .process(
                &purchase(&purchase_event(id, ANA, &at, &lines)),
                now_millis(),
            )
            .await
            .unwrap();
    }

    let listed = app.list(ANA).await.unwrap();

    let ids: Vec<_> = listed.iter().map(|m| m.mission_id.as_str()).collect();
    assert_eq!(
        ids,
        ["carnes", "aceites", "vencida"],
        "in progress, completed, expired"
    );
    let carnes = &listed[0];
    assert_eq!(carnes.status(), pb::MissionStatus::InProgress);
    assert_eq!(carnes.goal_kind(), pb::GoalKind::Amount);
    assert_eq!(
        (carnes.progress, carnes.goal, carnes.reward),
        (7_500, 20_000, 1_000)
    );
    assert_eq!(carnes.category_id, 10);
    assert_eq!(
        (carnes.starts_on.as_str(), carnes.ends_on.as_str()),
        (day(-10).as_str(), day(10).as_str())
    );
    assert_eq!(carnes.completed_at, "");
    let aceites = &listed[1];
    assert_eq!(aceites.status(), pb::MissionStatus::Completed);
    assert_eq!(aceites.goal_kind(), pb::GoalKind::Purchases);
    assert_eq!(aceites.progress, 1);
    assert!(chrono::DateTime::parse_from_rfc3339(&aceites.completed_at).is_ok());
    let vencida = &listed[2];
    assert_eq!(vencida.status(), pb::MissionStatus::Expired);
    assert_eq!(vencida.progress, 4_000);

    assert_eq!(
        app.list(BRUNO).await.unwrap().len(),
        0,
        "an empty list, not an error"
    );
}

async fn member_calls_need_a_member_token_and_internal_calls_a_service_token(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut client = app.bare_client().await;

    let anonymous = client
        .list_my_missions(pb::ListMyMissionsRequest {})
        .await
        .unwrap_err();
    assert_eq!(body(&anonymous).code, ErrorCode::Unauthenticated);
    let expired = client
        .has_missions(miclub_platform::tokens::with_bearer(
            pb::HasMissionsRequest {},
            &app.keys.member_token(ANA, "s1", -120),
        ))
        .await
        .unwrap_err();
    assert_eq!(body(&expired).code, ErrorCode::Unauthenticated);
    let service_as_member = client
        .list_my_missions(app.as_service(pb::ListMyMissionsRequest {}))
        .await
        .unwrap_err();
    assert_eq!(body(&service_as_member).code, ErrorCode::Forbidden);

    let member_upsert = client
        .upsert_mission(app.as_member(
            ANA,
            pb::UpsertMissionRequest {
                mission: Some(amount_mission("carnes", 10, 1_000, &[])),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(body(&member_upsert).code, ErrorCode::Forbidden);
    let member_flag = client
        .set_history_loading(app.as_member(
            ANA,
            pb::SetHistoryLoadingRequest {
                member_id: ANA.into(),
                loading: true,
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(body(&member_flag).code, ErrorCode::Forbidden);
    let anonymous_upsert = client
        .upsert_mission(pb::UpsertMissionRequest {
            mission: Some(amount_mission("carnes", 10, 1_000, &[])),
        })
        .await
        .unwrap_err();
    assert_eq!(body(&anonymous_upsert).code, ErrorCode::Unauthenticated);

    assert!(!app.has_missions(ANA).await, "nothing was created");
    assert!(app.list(ANA).await.is_ok(), "nothing was flagged");
}

async fn upsert_mission_refuses_invalid_fields_in_spanish_and_creates_then_replaces(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut client = app.bare_client().await;
    let valid = amount_mission("carnes", 10, 20_000, &[ANA]);
    let cases = [
        (
            pb::Mission {
                category_id: 16,
                ..valid.clone()
            },
            "categoryId",
        ),
        (
            pb::Mission {
                category_id: 0,
                ..valid.clone()
            },
            "categoryId",
        ),
        (
            pb::Mission {
                category_id: 58,
                ..valid.clone()
            },
            "categoryId",
        ),
        (
            pb::Mission {
                goal: 0,
                ..valid.clone()
            },
            "goal",
        ),
        (
            pb::Mission {
                reward: 0,
                ..valid.clone()
            },
            "reward",
        ),
        (
            pb::Mission {
                title: " ".into(),
                ..valid.clone()
            },
            "title",
        ),
        (
            pb::Mission {
                goal_kind: 0,
                ..valid.clone()
            },
            "goalKind",
        ),
        (
            pb::Mission {
                starts_on: "21-11-2026".into(),
                ..valid.clone()
            },
            "startsOn",
        ),
        (
            pb::Mission {
                starts_on: day(3),
                ends_on: day(2),
                ..valid.clone()
            },
            "endsOn",
        ),
        (
            pb::Mission {
                mission_id: String::new(),
                ..valid.clone()
            },
            "missionId",
        ),
    ];
    for (mission, field) in cases {
        let status = client
            .upsert_mission(app.as_service(pb::UpsertMissionRequest {
                mission: Some(mission),
            }))
            .await
            .unwrap_err();
        let refused = body(&status);
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(refused.code, ErrorCode::InvalidArgument);
        assert_eq!(refused.field.as_deref(), Some(field));
        assert_ne!(
            refused.message,
            ErrorCode::InvalidArgument.message(),
            "a precise message"
        );
    }
    let missing = client
        .upsert_mission(app.as_service(pb::UpsertMissionRequest { mission: None }))
        .await
        .unwrap_err();
    assert_eq!(body(&missing).code, ErrorCode::InvalidArgument);
    assert!(!app.has_missions(ANA).await, "nothing stored");

    assert!(app.upsert(valid.clone()).await, "created");
    assert!(
        !app.upsert(pb::Mission {
            title: "Compra $25.000 en carnes".into(),
            goal: 25_000,
            member_ids: vec![DIEGO.into()],
            ..valid
        })
        .await,
        "replaced"
    );
    assert!(!app.has_missions(ANA).await, "no longer Ana's");
    let listed = app.list(DIEGO).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].title, "Compra $25.000 en carnes");
    assert_eq!(listed[0].goal, 25_000);
}

backend_tests!(
    the_list_answers_409_while_the_history_loads_and_the_missions_after,
    has_missions_is_true_only_with_a_mission_in_force_assigned_to_the_member,
    the_list_shows_progress_and_states_and_hides_missions_not_started_or_long_ended,
    member_calls_need_a_member_token_and_internal_calls_a_service_token,
    upsert_mission_refuses_invalid_fields_in_spanish_and_creates_then_replaces,
);
