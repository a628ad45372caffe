//! Demo data for standalone and development: the members of `platform::demo::MEMBERS`, their
//! club accounts, and for Ana and Diego a ledger across several calendar months whose confirmed
//! sum is their demo balance, with every kind of movement; and for Ana two purchases of today,
//! posted the way a till posts them (so missions has purchase events to read).
//!
//! Idempotent and safe to interrupt: a member, club account or movement that exists is not
//! written again (each seeded movement has a fixed id), so a run that stopped halfway finishes
//! on the next start without writing anything twice, and a member's later movements are left
//! alone.

use miclub_platform::demo::{DemoMember, MEMBERS};
use miclub_platform::storage::now_millis;

use miclub_accrual::{Category, PaymentMethod};

use crate::domain::{
    BirthDate, Document, DocumentType, Email, GenderId, IdempotencyKey, Ledger, Member,
    MemberDocument, MemberId, MemberKey, Month, Movement, MovementId, MovementKind, MovementStatus,
    OrderLine, PersonName, PhoneNumber, ProductCategoryId, PurchaseOrder, Reason, StoreId,
    StoreName, TermsAgreement, TermsDecision,
};
use crate::error::{AccountsError, Result};
use crate::store::Store;

const DAY_MS: i64 = 24 * 60 * 60 * 1_000;

/// Version of the terms the demo members decided on: the one content ships
/// (`services/content/data/terms/`), so a demo login is not asked about new terms until an
/// operator publishes a newer version (`PublishTerms`), as the e2e test of that flow does.
pub const DEMO_TERMS_VERSION: &str = "2026-11-01";

/// When a seeded movement happened, in Chile (America/Santiago). Calendar months rather than
/// days ago, so which month holds what does not depend on the day the seed runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// `day` (1-27, in every month) at `hour`:00 of the month `months_ago` (at least 1) before
    /// the seeding's month.
    MonthDay {
        months_ago: u32,
        day: u32,
        hour: u32,
    },
    /// Minutes before the seeding, but never before the start of its month.
    MinutesAgo(i64),
}

impl When {
    /// The instant, Unix milliseconds, for a seeding at `now`.
    pub fn instant(self, now: i64) -> i64 {
        let this_month = Month::containing(now);
        match self {
            When::MonthDay {
                months_ago,
                day,
                hour,
            } => this_month.months_before(months_ago).at(day, hour),
            When::MinutesAgo(minutes) => (now - minutes * 60_000).max(this_month.start()),
        }
    }
}

/// One seeded movement: when, kind, status, pesos, reason.
#[derive(Debug, Clone, Copy)]
pub struct PlannedMovement {
    pub when: When,
    pub kind: MovementKind,
    pub status: MovementStatus,
    pub amount: i64,
    pub reason: &'static str,
}

const fn on(
    months_ago: u32,
    day: u32,
    hour: u32,
    kind: MovementKind,
    amount: i64,
    reason: &'static str,
) -> PlannedMovement {
    PlannedMovement {
        when: When::MonthDay {
            months_ago,
            day,
            hour,
        },
        kind,
        status: Confirmed,
        amount,
        reason,
    }
}

/// A purchase's accrual still pending: recent, inside the return window, so the background
/// confirmation leaves it alone.
const fn pending(minutes_ago: i64, amount: i64, reason: &'static str) -> PlannedMovement {
    PlannedMovement {
        when: When::MinutesAgo(minutes_ago),
        kind: Accrual,
        status: Pending,
        amount,
        reason,
    }
}

use MovementKind::{Accrual, Adjustment, Expiration, Redemption};
use MovementStatus::{Confirmed, Pending};

/// Ana: confirmed sum 12.345. The previous month holds exactly 13 movements (two pages of
/// Mis Movimientos: 10 + 3), the month before it none (the empty state), the current month one
/// pending accrual.
const ANA: &[PlannedMovement] = &[
    on(6, 5, 10, Accrual, 4_120, "Compra en Lider Providencia"),
    on(6, 19, 17, Accrual, 2_310, "Compra en Lider Ñuñoa"),
    on(5, 3, 12, Redemption, -2_000, "Canje en caja"),
    on(5, 22, 18, Accrual, 3_870, "Compra en Lider Ñuñoa"),
    on(4, 10, 9, Expiration, -315, "Vencimiento de pesos"),
    on(4, 14, 15, Adjustment, 500, "Ajuste por reclamo"),
    on(
        3,
        8,
        11,
        Accrual,
        1_980,
        "Compra en Express de Lider Las Condes",
    ),
    on(3, 27, 19, Redemption, -1_500, "Canje en caja"),
    on(1, 2, 10, Accrual, 1_200, "Compra en Lider Providencia"),
    on(
        1,
        3,
        18,
        Accrual,
        850,
        "Compra en Express de Lider Las Condes",
    ),
    on(1, 5, 12, Redemption, -1_500, "Canje en caja"),
    on(1, 7, 9, Accrual, 640, "Compra en Lider.cl"),
    on(1, 9, 20, Accrual, 1_120, "Compra en Lider Ñuñoa"),
    on(1, 11, 11, Adjustment, 300, "Ajuste por reclamo"),
    on(1, 13, 16, Accrual, 980, "Compra en Lider Providencia"),
    on(1, 15, 10, Expiration, -210, "Vencimiento de pesos"),
    on(1, 17, 19, Accrual, 760, "Compra en Lider.cl"),
    on(1, 20, 13, Redemption, -2_000, "Canje en caja"),
    on(
        1,
        22,
        17,
        Accrual,
        340,
        "Compra en Express de Lider Las Condes",
    ),
    on(1, 25, 12, Adjustment, -100, "Ajuste por cargo duplicado"),
    on(1, 27, 18, Accrual, 1_000, "Compra en Lider Maipú"),
    pending(1, 1_250, "Compra en Lider Providencia"),
];

/// Diego: confirmed sum 4.560, one accrual still pending.
const DIEGO: &[PlannedMovement] = &[
    on(5, 4, 11, Accrual, 2_400, "Compra en Lider Maipú"),
    on(4, 12, 19, Accrual, 1_980, "Compra en Lider La Florida"),
    on(3, 6, 13, Redemption, -1_500, "Canje en caja"),
    on(2, 20, 9, Expiration, -120, "Vencimiento de pesos"),
    on(1, 9, 16, Adjustment, 300, "Ajuste por reclamo"),
    on(1, 21, 12, Accrual, 1_500, "Compra en Lider Maipú"),
    pending(180, 890, "Compra en Lider La Florida"),
];

/// The ledger seeded for a demo member (empty for those without movements).
pub fn planned_movements(demo: &DemoMember) -> &'static [PlannedMovement] {
    match demo.name {
        "Ana" => ANA,
        "Diego" => DIEGO,
        _ => &[],
    }
}

/// A purchase seeded through the real posting path (purchase, pending accrual, outbox event
/// for missions): a till's idempotency key, minutes before the seeding (never before the
/// start of its month), the store, the payment method and the lines.
#[derive(Debug, Clone, Copy)]
pub struct PlannedPurchase {
    pub key: &'static str,
    pub minutes_ago: i64,
    pub store_id: &'static str,
    pub store_name: &'static str,
    pub payment: PaymentMethod,
    /// `(category, pesos, product category id)`; 0 is an unknown product category.
    pub lines: &'static [(Category, i64, u8)],
}

/// Ana's purchases of today, still inside their return window.
const ANA_PURCHASES: &[PlannedPurchase] = &[
    PlannedPurchase {
        key: "seed:ana:purchase-01",
        minutes_ago: 95,
        store_id: "lider-providencia",
        store_name: "Lider Providencia",
        payment: PaymentMethod::PartnerCard,
        lines: &[
            (Category::Meat, 18_990, 10),
            (Category::FruitsAndVegetables, 6_450, 0),
            (Category::Drinks, 3_200, 34),
        ],
    },
    PlannedPurchase {
        key: "seed:ana:purchase-02",
        minutes_ago: 40,
        store_id: "lider-cl",
        store_name: "Lider.cl",
        payment: PaymentMethod::Cash,
        lines: &[(Category::Cleaning, 9_870, 0), (Category::Other, 4_500, 0)],
    },
];

/// The purchases seeded for a demo member through the posting path.
pub fn planned_purchases(demo: &DemoMember) -> &'static [PlannedPurchase] {
    match demo.name {
        "Ana" => ANA_PURCHASES,
        _ => &[],
    }
}

/// What a seeding run wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeedReport {
    pub members: usize,
    pub movements: usize,
    pub purchases: usize,
}

/// Seeds every demo member that is not there yet, and whatever of their ledger is missing;
/// the demo purchases go through `ledger`, so they accrue by the rules in force.
pub async fn seed_demo(store: &Store, ledger: &Ledger) -> anyhow::Result<SeedReport> {
    let now = now_millis();
    let mut report = SeedReport::default();
    for demo in MEMBERS {
        let member = demo_member(demo, now)?;
        // The account opens when the member joined, before the first movement.
        let joined = now - 400 * DAY_MS;
        if !store.member_exists(&member.id).await? {
            match store.insert_member(&member, joined).await {
                Ok(()) => report.members += 1,
                Err(AccountsError::MemberExists) => {}
                Err(err) => return Err(err.into()),
            }
        }
        if demo.has_club_account {
            match store.open_club_account(&member.id, joined).await {
                Ok(_) | Err(AccountsError::AccountExists) => {}
                Err(err) => return Err(err.into()),
            }
        }
        for (index, plan) in planned_movements(demo).iter().enumerate() {
            let id = MovementId::parse(&format!("{}-seed-{:02}", demo.member_id, index + 1))?;
            if store.movement_exists(&id).await? {
                continue;
            }
            let movement = Movement::new(
                id,
                member.id.clone(),
                plan.kind,
                plan.status,
                plan.amount,
                Reason::parse(plan.reason)?,
                plan.when.instant(now),
            )?;
            // Replaying history: the balance changed when the movement happened.
            match store
                .record_movement(&movement, movement.occurred_at())
                .await
            {
                Ok(_) => report.movements += 1,
                Err(AccountsError::DuplicateMovement) => {}
                Err(err) => return Err(err.into()),
            }
        }
        for plan in planned_purchases(demo) {
            let key = IdempotencyKey::parse(plan.key)?;
            if store.find_purchase(&key).await?.is_some() {
                continue;
            }
            let lines = plan
                .lines
                .iter()
                .map(|&(category, amount, product)| {
                    Ok(OrderLine {
                        category,
                        amount,
                        product_category_id: ProductCategoryId::parse(i64::from(product))?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let order = PurchaseOrder::new(
                key,
                MemberKey::Document(MemberDocument::parse(demo.rut)?),
                StoreId::parse(plan.store_id)?,
                StoreName::parse(plan.store_name)?,
                When::MinutesAgo(plan.minutes_ago).instant(now),
                plan.payment,
                lines,
                now,
            )?;
            if !ledger.post_purchase(&order, now).await?.replayed {
                report.purchases += 1;
            }
        }
    }
    tracing::info!(
        members = report.members,
        movements = report.movements,
        purchases = report.purchases,
        "demo data seeded"
    );
    Ok(report)
}

/// The member record of a demo member: document RUT, email confirmed when verified, terms
/// accepted months ago except for Carla, who has not decided yet.
fn demo_member(demo: &DemoMember, now: i64) -> Result<Member> {
    let terms = (demo.name != "Carla").then(|| TermsAgreement {
        decision: TermsDecision::Accepted,
        version: Some(DEMO_TERMS_VERSION.to_owned()),
        decided_at: now - 200 * DAY_MS,
    });
    Ok(Member {
        id: MemberId::parse(demo.member_id)?,
        document: Document::parse(DocumentType::Rut, demo.rut)?,
        name: PersonName::parse("name", demo.name)?,
        last_name: PersonName::parse("last_name", demo.last_name)?,
        mother_surname: PersonName::parse_optional("mother_surname", demo.mother_surname)?,
        phone_number: PhoneNumber::parse_optional(demo.phone_number)?,
        gender_id: Some(GenderId::new(i64::from(demo.gender_id))?),
        birth_date: Some(BirthDate::parse(demo.birth_date)?),
        email: Email::parse(demo.email)?,
        email_confirmed: demo.email_verified,
        terms,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seeding instants that stress the calendar: the first minute of a month, the last of a
    /// year, Chile's changes of time (April and September), a leap day.
    fn awkward_nows() -> Vec<i64> {
        [
            "2026-11-21T17:00:00Z",
            "2026-12-01T03:00:30Z",
            "2026-12-31T23:59:00-03:00",
            "2026-04-05T03:30:00Z",
            "2026-09-06T04:30:00Z",
            "2028-02-29T12:00:00Z",
            "2027-03-01T03:00:00Z",
        ]
        .iter()
        .map(|raw| crate::domain::parse_instant("now", raw).unwrap())
        .collect()
    }

    #[test]
    fn every_demo_ledger_adds_up_to_the_demo_balance_and_never_dips_below_zero() {
        for now in awkward_nows() {
            for demo in MEMBERS {
                let mut plan = planned_movements(demo).to_vec();
                plan.sort_by_key(|p| p.when.instant(now));
                let mut running = 0;
                for movement in &plan {
                    if movement.status == Confirmed {
                        running += movement.amount;
                        assert!(running >= 0, "{} goes negative", demo.name);
                    }
                }
                assert_eq!(running, demo.balance, "{}", demo.name);
                assert!(plan.is_empty() || demo.has_club_account);
            }
        }
    }

    #[test]
    fn the_seeded_ledgers_cover_every_kind_and_a_pending_accrual() {
        for name in ["Ana", "Diego"] {
            let demo = MEMBERS.iter().find(|m| m.name == name).unwrap();
            let plan = planned_movements(demo);
            for kind in MovementKind::ALL {
                assert!(plan.iter().any(|p| p.kind == kind), "{name} lacks {kind:?}");
            }
            assert_eq!(plan.iter().filter(|p| p.status == Pending).count(), 1);
        }
    }

    #[test]
    fn anas_months_hold_two_pages_last_month_none_the_month_before_and_some_this_month() {
        let ana = MEMBERS.iter().find(|m| m.name == "Ana").unwrap();
        for now in awkward_nows() {
            let this_month = Month::containing(now);
            let in_month = |month: Month| {
                planned_movements(ana)
                    .iter()
                    .filter(|p| Month::containing(p.when.instant(now)) == month)
                    .count()
            };
            assert_eq!(in_month(this_month.months_before(1)), 13, "at {now}");
            assert_eq!(in_month(this_month.months_before(2)), 0, "at {now}");
            assert!(in_month(this_month) >= 1, "at {now}");
            for plan in planned_movements(ana) {
                assert!(plan.when.instant(now) <= now, "{plan:?} at {now}");
            }
        }
    }

    #[test]
    fn pending_accruals_are_inside_the_return_window_so_confirmation_leaves_them_pending() {
        let window = crate::config::AccrualSettings::default().return_window();
        for now in awkward_nows() {
            for demo in MEMBERS {
                for plan in planned_movements(demo)
                    .iter()
                    .filter(|p| p.status == Pending)
                {
                    let age = now - plan.when.instant(now);
                    assert!((0..window.as_millis() as i64).contains(&age));
                }
                for plan in planned_purchases(demo) {
                    let age = now - When::MinutesAgo(plan.minutes_ago).instant(now);
                    assert!((0..window.as_millis() as i64).contains(&age));
                    assert_eq!(Month::containing(now - age), Month::containing(now));
                }
            }
        }
    }

    #[test]
    fn every_demo_member_is_a_valid_member() {
        for demo in MEMBERS {
            let member = demo_member(demo, now_millis()).unwrap();
            assert_eq!(member.document.canonical(), demo.rut);
            assert_eq!(member.email_confirmed, demo.email_verified);
        }
    }
}
