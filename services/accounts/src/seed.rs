//! Demo data for standalone and development: the members of `platform::demo::MEMBERS`, their
//! club accounts, and for Ana and Diego a ledger across several months whose confirmed sum is
//! their demo balance.
//!
//! Idempotent and safe to interrupt: a member, club account or movement that exists is not
//! written again (each seeded movement has a fixed id), so a run that stopped halfway finishes
//! on the next start without writing anything twice, and a member's later movements are left
//! alone.

use miclub_platform::demo::{DemoMember, MEMBERS};
use miclub_platform::storage::now_millis;

use crate::domain::{
    BirthDate, Document, DocumentType, Email, GenderId, Member, MemberId, Movement, MovementId,
    MovementKind, MovementStatus, PersonName, PhoneNumber, Reason, TermsAgreement, TermsDecision,
};
use crate::error::{AccountsError, Result};
use crate::store::Store;

const DAY_MS: i64 = 24 * 60 * 60 * 1_000;

/// Version of the terms the demo members decided on.
pub const DEMO_TERMS_VERSION: &str = "2025-01";

/// One seeded movement: days before the seeding, kind, status, pesos, reason.
#[derive(Debug, Clone, Copy)]
pub struct PlannedMovement {
    pub days_ago: i64,
    pub kind: MovementKind,
    pub status: MovementStatus,
    pub amount: i64,
    pub reason: &'static str,
}

const fn planned(
    days_ago: i64,
    kind: MovementKind,
    status: MovementStatus,
    amount: i64,
    reason: &'static str,
) -> PlannedMovement {
    PlannedMovement {
        days_ago,
        kind,
        status,
        amount,
        reason,
    }
}

use MovementKind::{Accrual, Adjustment, Expiration, Redemption};
use MovementStatus::{Confirmed, Pending};

/// Ana: confirmed sum 12.345, one accrual still pending.
const ANA: &[PlannedMovement] = &[
    planned(
        160,
        Accrual,
        Confirmed,
        4_120,
        "Compra en Lider Providencia",
    ),
    planned(131, Accrual, Confirmed, 3_870, "Compra en Lider Ñuñoa"),
    planned(118, Redemption, Confirmed, -2_000, "Canje en caja"),
    planned(95, Expiration, Confirmed, -315, "Vencimiento de pesos"),
    planned(64, Adjustment, Confirmed, 500, "Ajuste por reclamo"),
    planned(
        37,
        Accrual,
        Confirmed,
        2_980,
        "Compra en Express de Lider Las Condes",
    ),
    planned(9, Accrual, Confirmed, 3_190, "Compra en Lider.cl"),
    planned(2, Accrual, Pending, 1_250, "Compra en Lider Providencia"),
];

/// Diego: confirmed sum 4.560, one accrual still pending.
const DIEGO: &[PlannedMovement] = &[
    planned(185, Accrual, Confirmed, 2_400, "Compra en Lider Maipú"),
    planned(150, Accrual, Confirmed, 1_980, "Compra en Lider La Florida"),
    planned(121, Redemption, Confirmed, -1_500, "Canje en caja"),
    planned(90, Expiration, Confirmed, -120, "Vencimiento de pesos"),
    planned(58, Adjustment, Confirmed, 300, "Ajuste por reclamo"),
    planned(26, Accrual, Confirmed, 1_500, "Compra en Lider Maipú"),
    planned(3, Accrual, Pending, 890, "Compra en Lider La Florida"),
];

/// The ledger seeded for a demo member (empty for those without movements).
pub fn planned_movements(demo: &DemoMember) -> &'static [PlannedMovement] {
    match demo.name {
        "Ana" => ANA,
        "Diego" => DIEGO,
        _ => &[],
    }
}

/// What a seeding run wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeedReport {
    pub members: usize,
    pub movements: usize,
}

/// Seeds every demo member that is not there yet, and whatever of their ledger is missing.
pub async fn seed_demo(store: &Store) -> anyhow::Result<SeedReport> {
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
                Ok(()) | Err(AccountsError::AccountExists) => {}
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
                now - plan.days_ago * DAY_MS,
            )?;
            // Replaying history: the balance changed when the movement happened.
            match store
                .record_movement(&movement, movement.occurred_at())
                .await
            {
                Ok(()) => report.movements += 1,
                Err(AccountsError::DuplicateMovement) => {}
                Err(err) => return Err(err.into()),
            }
        }
    }
    tracing::info!(
        members = report.members,
        movements = report.movements,
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

    #[test]
    fn every_demo_ledger_adds_up_to_the_demo_balance_and_never_dips_below_zero() {
        for demo in MEMBERS {
            let mut plan = planned_movements(demo).to_vec();
            plan.sort_by_key(|p| std::cmp::Reverse(p.days_ago));
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
    fn every_demo_member_is_a_valid_member() {
        for demo in MEMBERS {
            let member = demo_member(demo, now_millis()).unwrap();
            assert_eq!(member.document.canonical(), demo.rut);
            assert_eq!(member.email_confirmed, demo.email_verified);
        }
    }
}
