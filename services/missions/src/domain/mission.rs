//! A mission's definition, validated on construction, and how a member sees it.
//!
//! Dates are calendar days in America/Santiago, inclusive at both ends, kept as ISO text
//! (`YYYY-MM-DD`) so they compare in date order on both backends.

use std::fmt;

use chrono::NaiveDate;
pub use miclub_platform::member::MemberId;

use crate::error::{MissionsError, Result};

/// Product categories run 1-57; 16 is not used.
pub const CATEGORY_RANGE: std::ops::RangeInclusive<i32> = 1..=57;
pub const UNUSED_CATEGORY: i32 = 16;
/// Longest title: the ledger description "Misión cumplida: <title>" must fit accounts' 200.
pub const MAX_TITLE_CHARS: usize = 120;
pub const MAX_DESCRIPTION_CHARS: usize = 300;
/// A mission is still listed this many days after it ended.
pub const LISTED_DAYS_AFTER_END: i64 = 30;
/// Upper bounds that keep sums far from overflow and catch typos.
pub const MAX_GOAL: i64 = 1_000_000_000;
/// The largest reward: what accounts grants one member in any 24 hours, so no mission offers a
/// reward the ledger would never grant.
pub const MAX_REWARD: i64 = miclub_platform::rewards::REWARD_PESOS_PER_DAY;

/// Opaque id of a mission, chosen by the back office: 1-64 letters, digits, `-_:.`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MissionId(String);

impl MissionId {
    pub fn parse(raw: &str) -> Result<Self> {
        let raw = raw.trim();
        if is_id(raw) {
            Ok(Self(raw.to_owned()))
        } else {
            Err(MissionsError::invalid(
                "missionId",
                "El identificador de la misión debe tener entre 1 y 64 letras, números o - _ : .",
            ))
        }
    }

    pub fn from_stored(raw: String) -> Self {
        Self(raw)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MissionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_id(raw: &str) -> bool {
    !raw.is_empty()
        && raw.len() <= 64
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalKind {
    /// Pesos spent in the category.
    Amount,
    /// Purchases with at least one line in the category.
    Purchases,
}

impl GoalKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GoalKind::Amount => "amount",
            GoalKind::Purchases => "purchases",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "amount" => Some(GoalKind::Amount),
            "purchases" => Some(GoalKind::Purchases),
            _ => None,
        }
    }
}

/// What the back office sends, before validation.
#[derive(Debug, Clone, Default)]
pub struct MissionInput {
    pub mission_id: String,
    pub category_id: i32,
    pub title: String,
    pub description: String,
    pub goal_kind: Option<GoalKind>,
    pub goal: i64,
    pub reward: i64,
    pub starts_on: String,
    pub ends_on: String,
    pub member_ids: Vec<String>,
}

/// A valid mission definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mission {
    pub id: MissionId,
    pub category_id: i32,
    pub title: String,
    pub description: String,
    pub goal_kind: GoalKind,
    pub goal: i64,
    pub reward: i64,
    pub starts_on: NaiveDate,
    pub ends_on: NaiveDate,
    /// Sorted, without duplicates; empty means every member.
    pub member_ids: Vec<MemberId>,
}

impl Mission {
    /// Validates `input`; the first invalid field is refused with a Spanish message.
    pub fn new(input: MissionInput) -> Result<Self> {
        let id = MissionId::parse(&input.mission_id)?;
        if !CATEGORY_RANGE.contains(&input.category_id) || input.category_id == UNUSED_CATEGORY {
            return Err(MissionsError::invalid(
                "categoryId",
                "La categoría debe ser un número entre 1 y 57 (la 16 no existe).",
            ));
        }
        let title = input.title.trim().to_owned();
        if title.is_empty() {
            return Err(MissionsError::invalid(
                "title",
                "Ingresa el título de la misión.",
            ));
        }
        if title.chars().count() > MAX_TITLE_CHARS || title.chars().any(char::is_control) {
            return Err(MissionsError::invalid(
                "title",
                "El título puede tener hasta 120 caracteres, sin saltos de línea.",
            ));
        }
        let description = input.description.trim().to_owned();
        if description.chars().count() > MAX_DESCRIPTION_CHARS {
            return Err(MissionsError::invalid(
                "description",
                "La descripción puede tener hasta 300 caracteres.",
            ));
        }
        let goal_kind = input.goal_kind.ok_or(MissionsError::invalid(
            "goalKind",
            "Indica si la meta es un monto o un número de compras.",
        ))?;
        if input.goal <= 0 || input.goal > MAX_GOAL {
            return Err(MissionsError::invalid(
                "goal",
                "La meta debe ser mayor que cero.",
            ));
        }
        if input.reward <= 0 || input.reward > MAX_REWARD {
            return Err(MissionsError::invalid(
                "reward",
                "El premio debe ser mayor que cero y no superar $100.000.",
            ));
        }
        let starts_on = parse_date(&input.starts_on).ok_or(MissionsError::invalid(
            "startsOn",
            "Ingresa la fecha de inicio en formato AAAA-MM-DD.",
        ))?;
        let ends_on = parse_date(&input.ends_on).ok_or(MissionsError::invalid(
            "endsOn",
            "Ingresa la fecha de término en formato AAAA-MM-DD.",
        ))?;
        if ends_on < starts_on {
            return Err(MissionsError::invalid(
                "endsOn",
                "La fecha de término no puede ser anterior a la de inicio.",
            ));
        }
        let mut member_ids = input
            .member_ids
            .iter()
            .map(|raw| {
                MemberId::parse(raw).map_err(|_| {
                    MissionsError::invalid(
                        "memberIds",
                        "Uno de los socios indicados no tiene un identificador válido.",
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?;
        member_ids.sort();
        member_ids.dedup();
        Ok(Self {
            id,
            category_id: input.category_id,
            title,
            description,
            goal_kind,
            goal: input.goal,
            reward: input.reward,
            starts_on,
            ends_on,
            member_ids,
        })
    }

    /// The ledger description of the reward.
    pub fn reward_description(&self) -> String {
        reward_description(&self.title)
    }

    /// Whether `day` (Santiago) is within the mission's period.
    pub fn in_force_on(&self, day: NaiveDate) -> bool {
        self.starts_on <= day && day <= self.ends_on
    }
}

/// "Misión cumplida: <title>", what the member reads in their movements.
pub fn reward_description(title: &str) -> String {
    format!("Misión cumplida: {title}")
}

/// `YYYY-MM-DD`, nothing else.
pub fn parse_date(raw: &str) -> Option<NaiveDate> {
    let raw = raw.trim();
    if raw.len() != 10 {
        return None;
    }
    NaiveDate::parse_from_str(raw, "%Y-%m-%d").ok()
}

/// The ISO text stored and sent for a date.
pub fn format_date(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

/// How a mission stands for a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissionStatus {
    InProgress,
    /// Goal reached; the reward is granted (or being granted) once.
    Completed,
    /// Ended without reaching the goal.
    Expired,
}

/// A mission with one member's progress, as listed to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberMission {
    pub mission: Mission,
    /// Never above the goal.
    pub progress: i64,
    pub completed_at: Option<i64>,
}

impl MemberMission {
    pub fn status(&self, today: NaiveDate) -> MissionStatus {
        if self.completed_at.is_some() {
            MissionStatus::Completed
        } else if self.mission.ends_on < today {
            MissionStatus::Expired
        } else {
            MissionStatus::InProgress
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> MissionInput {
        MissionInput {
            mission_id: "carnes-nov".into(),
            category_id: 10,
            title: "Compra $20.000 en carnes".into(),
            description: "Acumula $20.000 en carnes.".into(),
            goal_kind: Some(GoalKind::Amount),
            goal: 20_000,
            reward: 1_000,
            starts_on: "2026-11-01".into(),
            ends_on: "2026-11-30".into(),
            member_ids: vec!["b".into(), "a".into(), "b".into()],
        }
    }

    fn refused_field(input: MissionInput) -> &'static str {
        match Mission::new(input) {
            Err(MissionsError::Invalid { field, .. }) => field,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_valid_definition_keeps_its_fields_and_sorts_its_members() {
        let mission = Mission::new(input()).unwrap();
        assert_eq!(mission.id.as_str(), "carnes-nov");
        assert_eq!(
            mission
                .member_ids
                .iter()
                .map(MemberId::as_str)
                .collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(
            mission.reward_description(),
            "Misión cumplida: Compra $20.000 en carnes"
        );
    }

    #[test]
    fn each_invalid_field_is_named() {
        for (category, field) in [(0, "categoryId"), (16, "categoryId"), (58, "categoryId")] {
            let refused = refused_field(MissionInput {
                category_id: category,
                ..input()
            });
            assert_eq!(refused, field, "category {category}");
        }
        assert!(
            Mission::new(MissionInput {
                category_id: 57,
                ..input()
            })
            .is_ok()
        );
        let cases: Vec<(MissionInput, &str)> = vec![
            (
                MissionInput {
                    mission_id: " ".into(),
                    ..input()
                },
                "missionId",
            ),
            (
                MissionInput {
                    title: "  ".into(),
                    ..input()
                },
                "title",
            ),
            (
                MissionInput {
                    goal_kind: None,
                    ..input()
                },
                "goalKind",
            ),
            (MissionInput { goal: 0, ..input() }, "goal"),
            (
                MissionInput {
                    reward: -5,
                    ..input()
                },
                "reward",
            ),
            (
                MissionInput {
                    starts_on: "2026-13-01".into(),
                    ..input()
                },
                "startsOn",
            ),
            (
                MissionInput {
                    ends_on: "2026-10-31".into(),
                    ..input()
                },
                "endsOn",
            ),
            (
                MissionInput {
                    member_ids: vec!["not an id".into()],
                    ..input()
                },
                "memberIds",
            ),
        ];
        for (input, field) in cases {
            assert_eq!(refused_field(input), field);
        }
    }

    #[test]
    fn a_reward_is_at_most_what_the_ledger_grants_a_member_in_a_day_and_the_refusal_says_so() {
        let largest = MissionInput {
            reward: MAX_REWARD,
            ..input()
        };
        assert!(Mission::new(largest).is_ok());
        let above = MissionInput {
            reward: MAX_REWARD + 1,
            ..input()
        };
        let Err(MissionsError::Invalid { field, message }) = Mission::new(above) else {
            panic!("a reward above the ledger's daily limit was accepted");
        };
        assert_eq!(field, "reward");
        let pesos = MAX_REWARD.to_string();
        let (thousands, rest) = pesos.split_at(pesos.len() - 3);
        assert!(
            message.ends_with(&format!("${thousands}.{rest}.")),
            "{message}"
        );
    }

    #[test]
    fn a_purchase_late_at_night_in_chile_counts_on_the_chilean_day() {
        // 2026-11-21T02:30:00Z is 23:30 of 20 November in Santiago (UTC-3 in summer).
        let millis = chrono::DateTime::parse_from_rfc3339("2026-11-21T02:30:00Z")
            .unwrap()
            .timestamp_millis();
        assert_eq!(
            miclub_platform::calendar::day_of_millis(millis),
            parse_date("2026-11-20").unwrap()
        );
    }

    #[test]
    fn the_status_follows_completion_and_the_end_date() {
        let mission = Mission::new(input()).unwrap();
        let mut listed = MemberMission {
            mission,
            progress: 5_000,
            completed_at: None,
        };
        let during = parse_date("2026-11-30").unwrap();
        let after = parse_date("2026-12-01").unwrap();
        assert_eq!(listed.status(during), MissionStatus::InProgress);
        assert_eq!(listed.status(after), MissionStatus::Expired);
        listed.completed_at = Some(1);
        assert_eq!(listed.status(after), MissionStatus::Completed);
    }
}
