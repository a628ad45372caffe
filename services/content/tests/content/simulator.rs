//! `Simulate`: the refusals of a bad form, field by field with their Spanish messages, and the
//! answer per category with the rule applied, from the built-in rules or a configured file.

use miclub_content::Settings;
use miclub_platform::backend_tests;
use miclub_platform::error::ErrorCode;
use miclub_platform::testing::{TestEnv, TestKeys};
use miclub_proto::content::v1 as pb;

use crate::support::{TestApp, refused, settings};

fn form(week_day: pb::Weekday, amounts: [i64; 5], partner_card: bool) -> pb::SimulateRequest {
    pb::SimulateRequest {
        week_day: week_day as i32,
        meat_amount: amounts[0],
        fruits_and_vegetables_amount: amounts[1],
        cleaning_amount: amounts[2],
        drinks_amount: amounts[3],
        other_amount: amounts[4],
        partner_card,
    }
}

async fn a_bad_form_is_refused_naming_the_field_with_a_spanish_message(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut client = app.client().await;
    let good = form(pb::Weekday::Tuesday, [1_000, 2_000, 0, 0, 0], false);
    const NEGATIVE: &str = "El monto no puede ser negativo.";
    const TOO_LARGE: &str = "El monto máximo por categoría es $10.000.000.";
    let cases: Vec<(pb::SimulateRequest, &str, &str)> = vec![
        (
            pb::SimulateRequest {
                week_day: 0,
                ..good
            },
            "weekDay",
            "Elige un día de la semana.",
        ),
        (
            pb::SimulateRequest {
                week_day: 8,
                ..good
            },
            "weekDay",
            "Elige un día de la semana.",
        ),
        (
            pb::SimulateRequest {
                meat_amount: -1,
                ..good
            },
            "meatAmount",
            NEGATIVE,
        ),
        (
            pb::SimulateRequest {
                fruits_and_vegetables_amount: i64::MIN,
                ..good
            },
            "fruitsAndVegetablesAmount",
            NEGATIVE,
        ),
        (
            pb::SimulateRequest {
                cleaning_amount: 10_000_001,
                ..good
            },
            "cleaningAmount",
            TOO_LARGE,
        ),
        (
            pb::SimulateRequest {
                drinks_amount: i64::MAX,
                ..good
            },
            "drinksAmount",
            TOO_LARGE,
        ),
        (
            pb::SimulateRequest {
                other_amount: -50,
                ..good
            },
            "otherAmount",
            NEGATIVE,
        ),
        (
            form(pb::Weekday::Monday, [0; 5], true),
            "meatAmount",
            "Ingresa al menos un monto.",
        ),
    ];

    for (request, field, message) in cases {
        let status = client.simulate(request).await.unwrap_err();
        let body = refused(
            &status,
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
        );
        assert_eq!(
            (body.field.as_deref(), body.message.as_str()),
            (Some(field), message),
            "{request:?}"
        );
    }
    // The limits themselves are accepted.
    let at_limits = client
        .simulate(form(pb::Weekday::Sunday, [10_000_000, 0, 0, 0, 0], false))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(at_limits.total_earned, 80_000);
}

async fn each_category_earns_at_its_best_rule_with_the_rule_named_in_spanish(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut client = app.client().await;

    let tuesday = client
        .simulate(form(
            pb::Weekday::Tuesday,
            [12_345, 10_000, 0, 0, 999],
            true,
        ))
        .await
        .unwrap()
        .into_inner();

    assert_eq!(tuesday.rules_version, "2026-11-2");
    assert_eq!(
        tuesday.bank_card_discount, None,
        "a tuesday has no discount"
    );
    let lines: Vec<(&str, i64, i64, i32, &str)> = tuesday
        .lines
        .iter()
        .map(|line| {
            (
                line.category.as_str(),
                line.amount,
                line.earned,
                line.rate_bp,
                line.rule.as_str(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        vec![
            (
                "meat",
                12_345,
                111,
                90,
                "0,9% en todas tus compras con tarjeta Lider BCI"
            ),
            (
                "fruits_and_vegetables",
                10_000,
                300,
                300,
                "Martes 3% en frutas y verduras"
            ),
            (
                "other",
                999,
                8,
                90,
                "0,9% en todas tus compras con tarjeta Lider BCI"
            ),
        ]
    );
    assert_eq!(tuesday.total_earned, 111 + 300 + 8);

    let monday_other_card = client
        .simulate(form(pb::Weekday::Monday, [10_000, 0, 0, 0, 0], false))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(monday_other_card.total_earned, 80);
    assert_eq!(monday_other_card.lines[0].rule, "0,8% en todas tus compras");
    let monday_partner = client
        .simulate(form(pb::Weekday::Monday, [10_000, 0, 0, 0, 0], true))
        .await
        .unwrap()
        .into_inner();
    // The Monday 6% is a discount at the till: a line of its own, never pesos earned.
    assert_eq!(monday_partner.total_earned, 90);
    assert_eq!(
        monday_partner.lines[0].rule,
        "0,9% en todas tus compras con tarjeta Lider BCI"
    );
    assert_eq!(
        monday_partner.bank_card_discount,
        Some(pb::SimulatedDiscount {
            pesos: 600,
            rate_bp: 600,
            description: "Lunes 6% de descuento con Tarjeta Lider BCI".into(),
        })
    );
    assert_eq!(monday_other_card.bank_card_discount, None);
}

async fn a_configured_rules_file_is_what_the_simulator_applies(env: TestEnv) {
    let dir = std::env::temp_dir().join(format!("content-rules-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("accrual.toml");
    std::fs::write(
        &file,
        "version = \"ops-7\"\n[base]\nrate_bp = 100\ndescription = \"1% en todo\"\n\
         [[rules]]\nid = \"jueves-bebidas\"\nrate_bp = 500\nweekdays = [\"thursday\"]\n\
         categories = [\"drinks\"]\ndescription = \"Jueves 5% en bebidas\"\n",
    )
    .unwrap();
    let rules_file = file.display().to_string();
    let app = TestApp::spawn_with(env, TestKeys::new(), |env| {
        let mut configured: Settings = settings(env);
        configured.accrual.rules_file = rules_file;
        configured
    })
    .await;

    let answer = app
        .client()
        .await
        .simulate(form(pb::Weekday::Thursday, [1_000, 0, 0, 2_000, 0], true))
        .await
        .unwrap()
        .into_inner();

    assert_eq!(answer.rules_version, "ops-7");
    assert_eq!(answer.total_earned, 10 + 100);
    assert_eq!(answer.lines[1].rule, "Jueves 5% en bebidas");
    std::fs::remove_dir_all(dir).unwrap();
}

backend_tests!(
    a_bad_form_is_refused_naming_the_field_with_a_spanish_message,
    each_category_earns_at_its_best_rule_with_the_rule_named_in_spanish,
    a_configured_rules_file_is_what_the_simulator_applies,
);
