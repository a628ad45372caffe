//! The catalog: seeding from `data/` on start-up (once, never over an operator's change), the
//! listings of what is in force in display order, and the internal Upsert calls with their
//! validation and their service-token requirement.

use chrono::{Days, NaiveDate};
use miclub_content::seed::shipped;
use miclub_platform::backend_tests;
use miclub_platform::calendar;
use miclub_platform::error::ErrorCode;
use miclub_platform::storage::now_millis;
use miclub_platform::testing::TestEnv;
use miclub_proto::content::v1 as pb;

use crate::support::{TestApp, refused};

async fn promotions(app: &TestApp) -> Vec<pb::Promotion> {
    app.client()
        .await
        .list_promotions(pb::ListPromotionsRequest {})
        .await
        .unwrap()
        .into_inner()
        .promotions
}

async fn alliances(app: &TestApp) -> Vec<pb::Alliance> {
    app.client()
        .await
        .list_alliances(pb::ListAlliancesRequest {})
        .await
        .unwrap()
        .into_inner()
        .alliances
}

async fn banners(app: &TestApp) -> Vec<pb::Banner> {
    app.client()
        .await
        .list_banners(pb::ListBannersRequest {})
        .await
        .unwrap()
        .into_inner()
        .banners
}

async fn faqs(app: &TestApp, audience: pb::FaqAudience) -> Vec<pb::Faq> {
    app.client()
        .await
        .list_faqs(pb::ListFaqsRequest {
            audience: audience as i32,
        })
        .await
        .unwrap()
        .into_inner()
        .faqs
}

fn ids<T>(items: &[T], id: impl Fn(&T) -> &str) -> Vec<String> {
    items.iter().map(|item| id(item).to_owned()).collect()
}

/// Row counts of the catalog tables and flags.
async fn counts(app: &TestApp) -> [i64; 5] {
    [
        app.count("promotions").await,
        app.count("alliances").await,
        app.count("banners").await,
        app.count("faqs").await,
        app.count("flags").await,
    ]
}

fn today() -> NaiveDate {
    calendar::day_of_millis(now_millis())
}

fn day(offset: i64) -> String {
    let today = today();
    let date = if offset >= 0 {
        today.checked_add_days(Days::new(offset.unsigned_abs()))
    } else {
        today.checked_sub_days(Days::new(offset.unsigned_abs()))
    };
    date.unwrap().format("%Y-%m-%d").to_string()
}

fn promotion(id: &str, starts_on: &str, ends_on: &str, position: i32) -> pb::Promotion {
    pb::Promotion {
        id: id.into(),
        title: format!("Promoción {id}"),
        description: "Descripción de prueba.".into(),
        image_url: format!("/images/promociones/{id}.svg"),
        link_url: "https://www.lider.cl/promociones".into(),
        badge: "2x1".into(),
        starts_on: starts_on.into(),
        ends_on: ends_on.into(),
        position,
    }
}

async fn upsert(app: &TestApp, promotion: pb::Promotion) -> Result<(), tonic::Status> {
    app.client()
        .await
        .upsert_promotion(app.as_service(pb::UpsertPromotionRequest {
            promotion: Some(promotion),
        }))
        .await
        .map(drop)
}

async fn the_shipped_catalog_and_flags_are_seeded_on_the_first_start(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let shipped = shipped().unwrap();

    assert_eq!(
        counts(&app).await,
        [
            shipped.promotions.len() as i64,
            shipped.alliances.len() as i64,
            shipped.banners.len() as i64,
            shipped.faqs.len() as i64,
            3
        ]
    );
    // One known row of each kind, as the client receives it.
    let promotions = promotions(&app).await;
    assert_eq!(promotions.len(), 5);
    assert_eq!(
        promotions[0],
        pb::Promotion {
            id: "carnes-parrilla".into(),
            title: "20% de descuento en carnes para la parrilla".into(),
            description: shipped.promotions[0].description.clone(),
            image_url: "/images/promociones/carnes-parrilla.svg".into(),
            link_url: "https://www.lider.cl/supermercado/category/Carnes_y_Pescados".into(),
            badge: "20% dcto.".into(),
            starts_on: "2026-01-01".into(),
            ends_on: "2027-12-31".into(),
            position: 1,
        }
    );
    let alliances = alliances(&app).await;
    assert_eq!(alliances.len(), 4);
    assert_eq!(alliances[0].id, "tarjeta-lider-bci");
    assert_eq!(alliances[0].partner, "Tarjeta Lider BCI");
    assert_eq!(alliances[0].title, "Acumula 0,9% en todas tus compras");
    assert_eq!(
        alliances[0].image_url,
        "/images/alianzas/tarjeta-lider-bci.svg"
    );
    let banners = banners(&app).await;
    assert_eq!(banners.len(), 7);
    assert_eq!(
        ids(&banners, |b| &b.id)[..3],
        [
            "acumula-0-8",
            "tarjeta-lider-bci-0-9",
            "lunes-6-tarjeta-lider-bci"
        ]
    );
    assert_eq!(
        banners[2].title,
        "Lunes 6% de descuento con Tarjeta Lider BCI"
    );
    assert!(!banners[2].image_alt.is_empty());
    let login = faqs(&app, pb::FaqAudience::Login).await;
    assert_eq!(login[0].question, "¿Cómo recupero mi contraseña?");
    assert_eq!(login[0].audience, pb::FaqAudience::Login as i32);
    assert!(login[0].answer.contains("\n\n"), "paragraphs are kept");
}

async fn a_restart_seeds_nothing_twice_and_keeps_an_operators_change(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let before = counts(&app).await;
    let mut changed = promotions(&app).await[0].clone();
    changed.title = "25% en carnes: precio especial de aniversario".into();
    changed.position = 9;
    upsert(&app, changed.clone()).await.unwrap();
    app.client()
        .await
        .set_flag(app.as_service(pb::SetFlagRequest {
            flag: pb::FlagName::ChangePasswordEnable as i32,
            value: false,
        }))
        .await
        .unwrap();

    let app = app.restart().await;

    assert_eq!(counts(&app).await, before);
    let after = promotions(&app).await;
    assert_eq!(
        after.last(),
        Some(&changed),
        "the change survived, last by position"
    );
    let flags = app
        .client()
        .await
        .get_flags(pb::GetFlagsRequest {})
        .await
        .unwrap()
        .into_inner()
        .flags
        .unwrap();
    assert!(!flags.change_password_enable);
}

async fn listings_show_only_what_is_in_force_today_in_display_order(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    for (id, starts_on, ends_on, position) in [
        ("termino-ayer", day(-30), day(-1), 0),
        ("empieza-manana", day(1), day(30), 0),
        ("termina-hoy", day(-10), day(0), 3),
        ("empieza-hoy", day(0), day(0), 0),
        // Same position as the seeded first one: the id breaks the tie.
        ("a-primero", "2026-01-01".into(), "2027-12-31".into(), 1),
    ] {
        upsert(&app, promotion(id, &starts_on, &ends_on, position))
            .await
            .unwrap();
    }

    let listed = ids(&promotions(&app).await, |p| &p.id);

    assert_eq!(
        listed,
        [
            "empieza-hoy",
            "a-primero",
            "carnes-parrilla",
            "frutas-y-verduras",
            "limpieza-3x2",
            "termina-hoy",
            "bebidas-2x1",
            "desayuno-lacteos",
        ]
    );
}

async fn alliances_and_banners_out_of_their_dates_are_not_listed(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut client = app.client().await;
    let mut ended = alliances(&app).await[0].clone();
    ended.starts_on = day(-20);
    ended.ends_on = day(-1);
    client
        .upsert_alliance(app.as_service(pb::UpsertAllianceRequest {
            alliance: Some(ended.clone()),
        }))
        .await
        .unwrap();
    let mut future = banners(&app).await[0].clone();
    future.starts_on = day(1);
    future.ends_on = day(5);
    client
        .upsert_banner(app.as_service(pb::UpsertBannerRequest {
            banner: Some(future.clone()),
        }))
        .await
        .unwrap();

    assert!(!ids(&alliances(&app).await, |a| &a.id).contains(&ended.id));
    assert_eq!(alliances(&app).await.len(), 3);
    assert!(!ids(&banners(&app).await, |b| &b.id).contains(&future.id));
    assert_eq!(banners(&app).await.len(), 6);
}

async fn faqs_are_listed_per_audience_in_order_and_an_unknown_audience_is_refused(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let mut client = app.client().await;
    client
        .upsert_faq(app.as_service(pb::UpsertFaqRequest {
            faq: Some(pb::Faq {
                id: "primero-en-login".into(),
                audience: pb::FaqAudience::Login as i32,
                question: "¿Puedo ingresar con mi correo?".into(),
                answer: "Sí, con tu RUT o tu correo.".into(),
                position: 0,
            }),
        }))
        .await
        .unwrap();

    let general = faqs(&app, pb::FaqAudience::General).await;
    let login = faqs(&app, pb::FaqAudience::Login).await;

    assert_eq!(general.len(), 8);
    assert!(
        general
            .iter()
            .all(|f| f.audience == pb::FaqAudience::General as i32)
    );
    assert!(general.windows(2).all(|w| w[0].position <= w[1].position));
    assert_eq!(login.len(), 6);
    assert_eq!(login[0].id, "primero-en-login");
    assert_eq!(login[1].question, "¿Cómo recupero mi contraseña?");
    let unspecified = client
        .list_faqs(pb::ListFaqsRequest { audience: 0 })
        .await
        .unwrap_err();
    let body = refused(
        &unspecified,
        tonic::Code::InvalidArgument,
        ErrorCode::InvalidArgument,
    );
    assert_eq!(body.field.as_deref(), Some("audience"));
}

async fn an_upsert_of_invalid_content_is_refused_naming_the_field_and_changes_nothing(
    env: TestEnv,
) {
    let app = TestApp::spawn(env).await;
    let stored = promotions(&app).await;
    let good = stored[0].clone();
    let cases = [
        (
            pb::Promotion {
                title: "  ".into(),
                ..good.clone()
            },
            "title",
            "Este campo es obligatorio.",
        ),
        (
            pb::Promotion {
                starts_on: "2026-06-01".into(),
                ends_on: "2026-05-31".into(),
                ..good.clone()
            },
            "endsOn",
            "La fecha de término no puede ser anterior a la de inicio.",
        ),
        (
            pb::Promotion {
                image_url: "http://imagenes.lider.cl/carnes.svg".into(),
                ..good.clone()
            },
            "imageUrl",
            "Usa una dirección https completa o una ruta del portal que empiece con «/».",
        ),
        (
            pb::Promotion {
                link_url: "lider.cl/carnes".into(),
                ..good.clone()
            },
            "linkUrl",
            "Usa una dirección https completa o una ruta del portal que empiece con «/».",
        ),
        (
            pb::Promotion {
                id: "Con Espacios".into(),
                ..good.clone()
            },
            "id",
            "El identificador debe tener de 1 a 64 letras minúsculas, dígitos, guiones o guiones bajos.",
        ),
    ];

    for (promotion, field, message) in cases {
        let status = upsert(&app, promotion).await.unwrap_err();
        let body = refused(
            &status,
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument,
        );
        assert_eq!(body.field.as_deref(), Some(field));
        assert_eq!(body.message, message);
    }
    let missing = app
        .client()
        .await
        .upsert_banner(app.as_service(pb::UpsertBannerRequest { banner: None }))
        .await
        .unwrap_err();
    assert_eq!(
        refused(
            &missing,
            tonic::Code::InvalidArgument,
            ErrorCode::InvalidArgument
        )
        .field
        .as_deref(),
        Some("id")
    );

    assert_eq!(promotions(&app).await, stored);
}

async fn internal_calls_need_a_service_token_and_change_nothing_without_one(env: TestEnv) {
    let app = TestApp::spawn(env).await;
    let before = counts(&app).await;
    let stored = promotions(&app).await;
    let mut changed = stored[0].clone();
    changed.title = "Cambio no autorizado".into();
    let mut client = app.bare_client().await;

    for who in [Who::Nobody, Who::Member] {
        let (grpc, code) = match who {
            Who::Nobody => (tonic::Code::Unauthenticated, ErrorCode::Unauthenticated),
            Who::Member => (tonic::Code::PermissionDenied, ErrorCode::Forbidden),
        };
        let promotion = client
            .upsert_promotion(who.request(
                &app,
                pb::UpsertPromotionRequest {
                    promotion: Some(changed.clone()),
                },
            ))
            .await
            .unwrap_err();
        let alliance = client
            .upsert_alliance(who.request(&app, pb::UpsertAllianceRequest { alliance: None }))
            .await
            .unwrap_err();
        let banner = client
            .upsert_banner(who.request(&app, pb::UpsertBannerRequest { banner: None }))
            .await
            .unwrap_err();
        let faq = client
            .upsert_faq(who.request(&app, pb::UpsertFaqRequest { faq: None }))
            .await
            .unwrap_err();
        let flag = client
            .set_flag(who.request(
                &app,
                pb::SetFlagRequest {
                    flag: pb::FlagName::PortalEnabled as i32,
                    value: false,
                },
            ))
            .await
            .unwrap_err();
        for status in [promotion, alliance, banner, faq, flag] {
            refused(&status, grpc, code);
        }
    }

    assert_eq!(counts(&app).await, before);
    assert_eq!(promotions(&app).await, stored);
    let flags = app
        .client()
        .await
        .get_flags(pb::GetFlagsRequest {})
        .await
        .unwrap()
        .into_inner()
        .flags
        .unwrap();
    assert!(flags.portal_enabled);
}

/// Who makes an internal call.
#[derive(Debug, Clone, Copy)]
enum Who {
    Nobody,
    Member,
}

impl Who {
    fn request<T>(self, app: &TestApp, message: T) -> tonic::Request<T> {
        match self {
            Who::Nobody => tonic::Request::new(message),
            Who::Member => app.as_member(message),
        }
    }
}

backend_tests!(
    the_shipped_catalog_and_flags_are_seeded_on_the_first_start,
    a_restart_seeds_nothing_twice_and_keeps_an_operators_change,
    listings_show_only_what_is_in_force_today_in_display_order,
    alliances_and_banners_out_of_their_dates_are_not_listed,
    faqs_are_listed_per_audience_in_order_and_an_unknown_audience_is_refused,
    an_upsert_of_invalid_content_is_refused_naming_the_field_and_changes_nothing,
    internal_calls_need_a_service_token_and_change_nothing_without_one,
);
