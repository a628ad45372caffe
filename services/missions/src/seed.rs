//! Demo missions for standalone and development, dated around the day the seed runs (in
//! Chile) so the demo never goes stale: three missions in force and one that ended five days
//! ago, assigned to Ana and Diego only (Bruno and Carla have none, so no Misiones menu). Ana has
//! some progress already; Diego's history is marked as loading (the 409 path of the demo).
//!
//! Safe to run on every start: the definitions are rewritten with fresh dates, progress and
//! the history flag are only written when absent, so what a member reached since is kept.

use chrono::{Duration, NaiveDate};
use miclub_platform::demo::MEMBERS;
use miclub_platform::storage::now_millis;

use crate::domain::mission::format_date;
use crate::domain::{GoalKind, MemberId, Mission, MissionId, MissionInput};
use crate::error::Result;
use crate::store::Store;
use miclub_platform::calendar;

pub const DEMO_MEAT: &str = "demo-carnes";
pub const DEMO_OILS: &str = "demo-aceites";
pub const DEMO_LIQUORS: &str = "demo-licores";
pub const DEMO_CLOTHING: &str = "demo-vestuario";

/// Ana and Diego, the demo members with missions.
fn demo_members() -> (MemberId, MemberId) {
    let id = |index: usize| MemberId::parse(MEMBERS[index].member_id).expect("demo member id");
    (id(0), id(3))
}

/// The demo definitions for a seed on `today`.
pub fn demo_missions(today: NaiveDate) -> Vec<Mission> {
    let (ana, diego) = demo_members();
    let day = |offset: i64| format_date(today + Duration::days(offset));
    let mission = |id: &str,
                   category_id: i32,
                   title: &str,
                   description: &str,
                   goal_kind: GoalKind,
                   goal: i64,
                   reward: i64,
                   (starts, ends): (i64, i64)| {
        Mission::new(MissionInput {
            mission_id: id.into(),
            category_id,
            title: title.into(),
            description: description.into(),
            goal_kind: Some(goal_kind),
            goal,
            reward,
            starts_on: day(starts),
            ends_on: day(ends),
            member_ids: vec![ana.as_str().into(), diego.as_str().into()],
        })
        .expect("valid demo mission")
    };
    vec![
        mission(
            DEMO_MEAT,
            10,
            "Compra $20.000 en carnes",
            "Suma $20.000 en compras de carne de vacuno y gana $1.000.",
            GoalKind::Amount,
            20_000,
            1_000,
            (-7, 23),
        ),
        mission(
            DEMO_OILS,
            2,
            "Compra aceites 3 veces",
            "Lleva aceite en 3 compras distintas y gana $500.",
            GoalKind::Purchases,
            3,
            500,
            (-7, 23),
        ),
        mission(
            DEMO_LIQUORS,
            34,
            "Compra $15.000 en licores",
            "Suma $15.000 en licores antes del término y gana $800.",
            GoalKind::Amount,
            15_000,
            800,
            (-3, 10),
        ),
        mission(
            DEMO_CLOTHING,
            57,
            "Compra $25.000 en vestuario",
            "Suma $25.000 en vestuario y gana $1.500.",
            GoalKind::Amount,
            25_000,
            1_500,
            (-40, -5),
        ),
    ]
}

/// Seeds the demo missions, Ana's progress and Diego's loading history.
pub async fn seed_demo(store: &Store) -> Result<()> {
    let now = now_millis();
    let today = calendar::day_of_millis(now);
    let missions = demo_missions(today);
    for mission in &missions {
        store.upsert_mission(mission, now).await?;
    }
    let (ana, diego) = demo_members();
    let parse = |id: &str| MissionId::parse(id).expect("demo mission id");
    store.seed_progress(&parse(DEMO_OILS), &ana, 1, now).await?;
    store
        .seed_progress(&parse(DEMO_CLOTHING), &ana, 12_000, now)
        .await?;
    store.set_history_loading(&diego, true, now).await?;
    tracing::info!(missions = missions.len(), "demo missions seeded");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::mission::parse_date;

    #[test]
    fn the_demo_has_missions_in_force_and_one_ended_around_any_day() {
        let today = parse_date("2027-02-28").unwrap();
        let missions = demo_missions(today);
        let in_force = missions.iter().filter(|m| m.in_force_on(today)).count();
        assert_eq!(in_force, 3);
        assert!(missions.iter().any(|m| m.ends_on < today));
        let meat = missions
            .iter()
            .find(|m| m.id.as_str() == DEMO_MEAT)
            .unwrap();
        assert_eq!(
            (meat.category_id, meat.goal, meat.reward),
            (10, 20_000, 1_000)
        );
        for mission in &missions {
            assert_eq!(mission.member_ids.len(), 2, "Ana and Diego only");
            assert!(
                !mission
                    .member_ids
                    .iter()
                    .any(|m| m.as_str() == MEMBERS[1].member_id
                        || m.as_str() == MEMBERS[2].member_id)
            );
        }
    }
}
