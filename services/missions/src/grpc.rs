//! The gRPC face of missions (`proto/missions/v1/missions.proto`).
//!
//! `ListMyMissions` and `HasMissions` take the member's access token (the member is its
//! subject); `UpsertMission` and `SetHistoryLoading` take a service token. Each call turns
//! proto messages into domain inputs, asks [`Missions`] with today's date in Chile, and answers
//! proto messages; errors become a `tonic::Status` with an `ErrorBody` through
//! [`MissionsError::into_status`].

use std::sync::Arc;

use miclub_platform::calendar;
use miclub_platform::error::ServiceError;
use miclub_platform::storage::{millis_to_rfc3339, now_millis};
use miclub_platform::tokens::TokenVerifier;
use miclub_proto::missions::v1 as pb;
use miclub_proto::missions::v1::missions_service_server::MissionsService;
use tonic::{Request, Response, Status};

use crate::domain::mission::format_date;
use crate::domain::{GoalKind, MemberId, MemberMission, MissionInput, MissionStatus, Missions};
use crate::error::MissionsError;

/// Implements `miclub.missions.v1.MissionsService`.
#[derive(Debug, Clone)]
pub struct MissionsGrpc {
    missions: Missions,
    verifier: Arc<TokenVerifier>,
}

impl MissionsGrpc {
    pub fn new(missions: Missions, verifier: Arc<TokenVerifier>) -> Self {
        Self { missions, verifier }
    }

    /// The calling member, from their access token.
    async fn caller<T>(&self, request: &Request<T>) -> Result<MemberId, Status> {
        let claims = self.verifier.member(request).await?;
        MemberId::parse(&claims.sub).map_err(|_| MissionsError::UnknownCaller.into_status("caller"))
    }
}

#[tonic::async_trait]
impl MissionsService for MissionsGrpc {
    #[tracing::instrument(name = "missions.list_my_missions", level = "debug", skip_all)]
    async fn list_my_missions(
        &self,
        request: Request<pb::ListMyMissionsRequest>,
    ) -> Result<Response<pb::ListMyMissionsResponse>, Status> {
        let member = self.caller(&request).await?;
        let today = calendar::day_of_millis(now_millis());
        let missions = self
            .missions
            .list(&member, today)
            .await
            .map_err(|err| err.into_status("list_my_missions"))?;
        Ok(Response::new(pb::ListMyMissionsResponse {
            missions: missions
                .iter()
                .map(|m| member_mission_to_proto(m, today))
                .collect(),
        }))
    }

    #[tracing::instrument(name = "missions.has_missions", level = "debug", skip_all)]
    async fn has_missions(
        &self,
        request: Request<pb::HasMissionsRequest>,
    ) -> Result<Response<pb::HasMissionsResponse>, Status> {
        let member = self.caller(&request).await?;
        let has_missions = self
            .missions
            .has_missions(&member, calendar::day_of_millis(now_millis()))
            .await
            .map_err(|err| err.into_status("has_missions"))?;
        Ok(Response::new(pb::HasMissionsResponse { has_missions }))
    }

    #[tracing::instrument(name = "missions.upsert_mission", level = "debug", skip_all)]
    async fn upsert_mission(
        &self,
        request: Request<pb::UpsertMissionRequest>,
    ) -> Result<Response<pb::UpsertMissionResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let input = request
            .into_inner()
            .mission
            .map(mission_input)
            .unwrap_or_default();
        let created = self
            .missions
            .upsert(input, now_millis())
            .await
            .map_err(|err| err.into_status("upsert_mission"))?;
        tracing::info!(client = %client.sub, created, "mission upserted");
        Ok(Response::new(pb::UpsertMissionResponse { created }))
    }

    #[tracing::instrument(name = "missions.set_history_loading", level = "debug", skip_all)]
    async fn set_history_loading(
        &self,
        request: Request<pb::SetHistoryLoadingRequest>,
    ) -> Result<Response<pb::SetHistoryLoadingResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let request = request.into_inner();
        let member = MemberId::parse(&request.member_id).map_err(|_| {
            MissionsError::invalid("memberId", "El identificador del socio no es válido.")
                .into_status("set_history_loading")
        })?;
        self.missions
            .set_history_loading(&member, request.loading, now_millis())
            .await
            .map_err(|err| err.into_status("set_history_loading"))?;
        tracing::info!(client = %client.sub, loading = request.loading, "history flag set on request");
        Ok(Response::new(pb::SetHistoryLoadingResponse {}))
    }
}

fn mission_input(mission: pb::Mission) -> MissionInput {
    let goal_kind = match pb::GoalKind::try_from(mission.goal_kind) {
        Ok(pb::GoalKind::Amount) => Some(GoalKind::Amount),
        Ok(pb::GoalKind::Purchases) => Some(GoalKind::Purchases),
        Ok(pb::GoalKind::Unspecified) | Err(_) => None,
    };
    MissionInput {
        mission_id: mission.mission_id,
        category_id: mission.category_id,
        title: mission.title,
        description: mission.description,
        goal_kind,
        goal: mission.goal,
        reward: mission.reward,
        starts_on: mission.starts_on,
        ends_on: mission.ends_on,
        member_ids: mission.member_ids,
    }
}

fn member_mission_to_proto(listed: &MemberMission, today: chrono::NaiveDate) -> pb::MemberMission {
    let mission = &listed.mission;
    pb::MemberMission {
        mission_id: mission.id.as_str().to_owned(),
        category_id: mission.category_id,
        title: mission.title.clone(),
        description: mission.description.clone(),
        goal_kind: match mission.goal_kind {
            GoalKind::Amount => pb::GoalKind::Amount,
            GoalKind::Purchases => pb::GoalKind::Purchases,
        } as i32,
        goal: mission.goal,
        progress: listed.progress,
        reward: mission.reward,
        starts_on: format_date(mission.starts_on),
        ends_on: format_date(mission.ends_on),
        status: match listed.status(today) {
            MissionStatus::InProgress => pb::MissionStatus::InProgress,
            MissionStatus::Completed => pb::MissionStatus::Completed,
            MissionStatus::Expired => pb::MissionStatus::Expired,
        } as i32,
        completed_at: listed
            .completed_at
            .map(millis_to_rfc3339)
            .unwrap_or_default(),
    }
}
