//! Misiones: the member's missions with their progress. 409 (`ERR_MISSIONS_NOT_READY`) is the
//! spec's conflict state, while a migrated member's history is still being loaded.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use miclub_platform::error::ErrorBody;
use miclub_platform::tokens::with_bearer;
use miclub_proto::missions::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiResult;
use crate::extract::MemberToken;
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mission {
    pub mission_id: String,
    /// Product category 1-57; decides the icon.
    pub category_id: i32,
    pub title: String,
    pub description: String,
    /// `amount` (pesos) or `purchases` (a count).
    pub goal_kind: &'static str,
    pub goal: i64,
    pub progress: i64,
    /// Pesos granted once when the goal is reached.
    pub reward: i64,
    pub starts_on: String,
    pub ends_on: String,
    /// `in_progress`, `completed` or `expired`.
    pub status: &'static str,
    pub completed_at: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Missions {
    pub missions: Vec<Mission>,
}

fn goal_kind(kind: i32) -> &'static str {
    match pb::GoalKind::try_from(kind) {
        Ok(pb::GoalKind::Purchases) => "purchases",
        _ => "amount",
    }
}

fn status(status: i32) -> &'static str {
    match pb::MissionStatus::try_from(status) {
        Ok(pb::MissionStatus::Completed) => "completed",
        Ok(pb::MissionStatus::Expired) => "expired",
        _ => "in_progress",
    }
}

/// The member's missions with their progress.
#[utoipa::path(get, path = "/api/missions", tag = "missions", operation_id = "getMissions",
    responses(
        (status = 200, body = Missions),
        (status = 401, body = ErrorBody),
        (status = 409, description = "ERR_MISSIONS_NOT_READY: the member's history is still loading", body = ErrorBody),
    ))]
pub async fn list(
    State(state): State<AppState>,
    member: MemberToken,
) -> ApiResult<([(header::HeaderName, &'static str); 1], Json<Missions>)> {
    let answer = state
        .missions
        .clone()
        .list_my_missions(with_bearer(pb::ListMyMissionsRequest {}, &member.token))
        .await?
        .into_inner();
    let missions = answer
        .missions
        .into_iter()
        .map(|m| Mission {
            mission_id: m.mission_id,
            category_id: m.category_id,
            title: m.title,
            description: m.description,
            goal_kind: goal_kind(m.goal_kind),
            goal: m.goal,
            progress: m.progress,
            reward: m.reward,
            starts_on: m.starts_on,
            ends_on: m.ends_on,
            status: status(m.status),
            completed_at: Some(m.completed_at).filter(|at| !at.is_empty()),
        })
        .collect();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(Missions { missions }),
    ))
}
