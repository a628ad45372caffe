//! The stand-in missions: one mission in progress, failing with the scripted `missions_error`.

use crate::support::*;

#[tonic::async_trait]
impl MissionsService for Fakes {
    async fn list_my_missions(
        &self,
        request: Request<missions::ListMyMissionsRequest>,
    ) -> Result<Response<missions::ListMyMissionsResponse>, Status> {
        self.member_only(&request)?;
        if let Some(body) = self.script().missions_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(missions::ListMyMissionsResponse {
            missions: vec![missions::MemberMission {
                mission_id: "m-carnes".into(),
                category_id: 10,
                title: "Carnes del mes".into(),
                description: "Compra $20.000 en carnes".into(),
                goal_kind: missions::GoalKind::Amount as i32,
                goal: 20_000,
                progress: 12_000,
                reward: 1_000,
                starts_on: "2026-11-01".into(),
                ends_on: "2026-11-30".into(),
                status: missions::MissionStatus::InProgress as i32,
                completed_at: String::new(),
            }],
        }))
    }

    async fn has_missions(
        &self,
        request: Request<missions::HasMissionsRequest>,
    ) -> Result<Response<missions::HasMissionsResponse>, Status> {
        self.member_only(&request)?;
        if let Some(body) = self.script().missions_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(missions::HasMissionsResponse {
            has_missions: self.script().has_missions,
        }))
    }

    async fn upsert_mission(
        &self,
        _: Request<missions::UpsertMissionRequest>,
    ) -> Result<Response<missions::UpsertMissionResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls missions directly",
        ))
    }

    async fn set_history_loading(
        &self,
        _: Request<missions::SetHistoryLoadingRequest>,
    ) -> Result<Response<missions::SetHistoryLoadingResponse>, Status> {
        Err(Status::unimplemented(
            "the migration tool calls missions directly",
        ))
    }
}
