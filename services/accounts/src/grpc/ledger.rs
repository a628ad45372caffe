//! Ledger calls: the member's movements by month and one movement explained, and the internal
//! calls of store systems and back office (purchase posting, a member's movement explained,
//! other movements, missions' rewards, confirmation of due accruals), which need a service token
//! ([`TokenVerifier::service`](miclub_platform::tokens::TokenVerifier::service)).

use miclub_accrual::{Category, PaymentMethod};
use miclub_platform::error::ServiceError;
use miclub_platform::storage::{millis_to_rfc3339, now_millis};
use miclub_proto::accounts::v1 as pb;
use tonic::{Request, Response, Status};

use super::AccountsGrpc;
use crate::domain::{
    IdempotencyKey, ManualMovement, MemberId, MemberKey, Movement, MovementDetail, MovementId,
    MovementKind, MovementStatus, OrderLine, PageRequest, ProductCategoryId, PurchaseExplanation,
    PurchaseOrder, Reason, RecordedMovement, StoreId, StoreName, parse_instant, requested_month,
};
use crate::error::{AccountsError, Result};

impl AccountsGrpc {
    #[tracing::instrument(name = "accounts.list_movements", level = "debug", skip_all)]
    pub(super) async fn ledger_list_movements(
        &self,
        request: Request<pb::ListMovementsRequest>,
    ) -> Result<Response<pb::ListMovementsResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let message = request.into_inner();
        let listed = async {
            let month = requested_month(message.year, message.month, now_millis())?;
            let page = PageRequest::parse(message.page, message.page_size)?;
            self.ledger.movements(&member_id, month, page).await
        };
        let page = listed
            .await
            .map_err(|err| err.into_status("list_movements"))?;
        Ok(Response::new(pb::ListMovementsResponse {
            total_pages: saturating_i32(page.total_pages()),
            page: saturating_i32(i64::from(page.request.page())),
            page_size: saturating_i32(i64::from(page.request.size())),
            total_count: page.total_count,
            movements: page.movements.iter().map(movement_to_proto).collect(),
        }))
    }

    #[tracing::instrument(name = "accounts.get_movement_detail", level = "debug", skip_all)]
    pub(super) async fn ledger_get_movement_detail(
        &self,
        request: Request<pb::GetMovementDetailRequest>,
    ) -> Result<Response<pb::GetMovementDetailResponse>, Status> {
        let member_id = self.caller(&request).await?;
        let detail = self
            .ledger
            .movement_detail(&member_id, &request.into_inner().movement_id)
            .await
            .map_err(|err| err.into_status("get_movement_detail"))?;
        Ok(Response::new(pb::GetMovementDetailResponse {
            detail: Some(detail_to_proto(&detail)),
        }))
    }

    #[tracing::instrument(
        name = "accounts.get_member_movement_detail",
        level = "debug",
        skip_all
    )]
    pub(super) async fn ledger_get_member_movement_detail(
        &self,
        request: Request<pb::GetMemberMovementDetailRequest>,
    ) -> Result<Response<pb::GetMovementDetailResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let message = request.into_inner();
        let detail = async {
            let member = MemberKey::parse(&message.member_document, &message.member_card)?;
            self.ledger
                .movement_detail_of_member(&member, &message.movement_id)
                .await
        };
        let detail = detail
            .await
            .map_err(|err| err.into_status("get_member_movement_detail"))?;
        tracing::debug!(client = %client.sub, "movement detail answered to a store system");
        Ok(Response::new(pb::GetMovementDetailResponse {
            detail: Some(detail_to_proto(&detail)),
        }))
    }

    #[tracing::instrument(name = "accounts.post_purchase", level = "debug", skip_all)]
    pub(super) async fn ledger_post_purchase(
        &self,
        request: Request<pb::PostPurchaseRequest>,
    ) -> Result<Response<pb::PostPurchaseResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let now = now_millis();
        let posted = async {
            let order = purchase_order(request.into_inner(), now)?;
            self.ledger.post_purchase(&order, now).await
        };
        let posted = posted
            .await
            .map_err(|err| err.into_status("post_purchase"))?;
        tracing::debug!(client = %client.sub, replayed = posted.replayed, "purchase post answered");
        Ok(Response::new(pb::PostPurchaseResponse {
            purchase_id: posted.purchase_id,
            movement_id: posted
                .movement_id
                .map(|id| id.as_str().to_owned())
                .unwrap_or_default(),
            accrued: posted.accrued,
            rules_version: posted.rules_version,
            replayed: posted.replayed,
        }))
    }

    #[tracing::instrument(name = "accounts.record_movement", level = "debug", skip_all)]
    pub(super) async fn ledger_record_movement(
        &self,
        request: Request<pb::RecordMovementRequest>,
    ) -> Result<Response<pb::RecordMovementResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let now = now_millis();
        let recorded = async {
            let movement = manual_movement(request.into_inner(), now)?;
            self.ledger.record_movement(&movement, now).await
        };
        let recorded = recorded
            .await
            .map_err(|err| err.into_status("record_movement"))?;
        tracing::info!(
            client = %client.sub,
            movement_id = %recorded.movement.id(),
            replayed = recorded.replayed,
            "movement recorded"
        );
        Ok(Response::new(recorded_to_proto(&recorded)))
    }

    #[tracing::instrument(name = "accounts.grant_reward", level = "debug", skip_all)]
    pub(super) async fn ledger_grant_reward(
        &self,
        request: Request<pb::GrantRewardRequest>,
    ) -> Result<Response<pb::RecordMovementResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let now = now_millis();
        let granted = async {
            let message = request.into_inner();
            let reward = ManualMovement::reward(
                MovementId::parse(&message.movement_id)?,
                MemberId::parse(&message.member_id)?,
                message.amount,
                description(&message.description)?,
                now,
            )?;
            self.ledger.grant_reward(&reward, now).await
        };
        let granted = granted
            .await
            .map_err(|err| err.into_status("grant_reward"))?;
        tracing::info!(
            client = %client.sub,
            movement_id = %granted.movement.id(),
            replayed = granted.replayed,
            "reward granted"
        );
        Ok(Response::new(recorded_to_proto(&granted)))
    }

    #[tracing::instrument(name = "accounts.confirm_due_accruals", level = "debug", skip_all)]
    pub(super) async fn ledger_confirm_due_accruals(
        &self,
        request: Request<pb::ConfirmDueAccrualsRequest>,
    ) -> Result<Response<pb::ConfirmDueAccrualsResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let now = now_millis();
        let confirmed = async {
            let up_to = parse_instant("up_to", &request.into_inner().up_to)?;
            self.ledger.confirm_due(up_to, now).await
        };
        let confirmed = confirmed
            .await
            .map_err(|err| err.into_status("confirm_due_accruals"))?;
        tracing::info!(client = %client.sub, confirmed, "due accruals confirmed on request");
        Ok(Response::new(pb::ConfirmDueAccrualsResponse {
            confirmed: i64::try_from(confirmed).unwrap_or(i64::MAX),
        }))
    }
}

fn saturating_i32(value: i64) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}

/// The domain's purchase from the proto message; the first invalid field is refused.
fn purchase_order(message: pb::PostPurchaseRequest, now: i64) -> Result<PurchaseOrder> {
    let payment = match pb::PaymentMethod::try_from(message.payment_method) {
        Ok(pb::PaymentMethod::PartnerCard) => PaymentMethod::PartnerCard,
        Ok(pb::PaymentMethod::OtherCard) => PaymentMethod::OtherCard,
        Ok(pb::PaymentMethod::Cash) => PaymentMethod::Cash,
        Ok(pb::PaymentMethod::Unspecified) | Err(_) => {
            return Err(AccountsError::invalid(
                "payment_method",
                "not a payment method",
            ));
        }
    };
    let lines = message
        .lines
        .iter()
        .map(|line| {
            let category = match pb::Category::try_from(line.category) {
                Ok(pb::Category::Meat) => Category::Meat,
                Ok(pb::Category::FruitsAndVegetables) => Category::FruitsAndVegetables,
                Ok(pb::Category::Cleaning) => Category::Cleaning,
                Ok(pb::Category::Drinks) => Category::Drinks,
                Ok(pb::Category::Other) => Category::Other,
                Ok(pb::Category::Unspecified) | Err(_) => {
                    return Err(AccountsError::invalid("lines", "a line without category"));
                }
            };
            Ok(OrderLine {
                category,
                amount: line.amount,
                product_category_id: ProductCategoryId::parse(i64::from(line.product_category_id))?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    PurchaseOrder::new(
        IdempotencyKey::parse(&message.idempotency_key)?,
        MemberKey::parse(&message.member_document, &message.member_card)?,
        StoreId::parse(&message.store_id)?,
        StoreName::parse(&message.store_name)?,
        parse_instant("purchased_at", &message.purchased_at)?,
        payment,
        lines,
        now,
    )
}

/// What `RecordMovement` and `GrantReward` answer.
fn recorded_to_proto(recorded: &RecordedMovement) -> pb::RecordMovementResponse {
    pb::RecordMovementResponse {
        movement: Some(movement_to_proto(&recorded.movement)),
        balance: recorded.balance.pesos(),
        replayed: recorded.replayed,
    }
}

/// The domain's back-office movement from the proto message.
fn manual_movement(message: pb::RecordMovementRequest, now: i64) -> Result<ManualMovement> {
    let kind = match pb::MovementKind::try_from(message.kind) {
        Ok(pb::MovementKind::Redemption) => MovementKind::Redemption,
        Ok(pb::MovementKind::Expiration) => MovementKind::Expiration,
        Ok(pb::MovementKind::Adjustment) => MovementKind::Adjustment,
        Ok(pb::MovementKind::Accrual | pb::MovementKind::Unspecified) | Err(_) => {
            return Err(AccountsError::invalid(
                "kind",
                "redemption, expiration or adjustment",
            ));
        }
    };
    let occurred_at = match message.occurred_at.trim() {
        "" => None,
        raw => Some(parse_instant("occurred_at", raw)?),
    };
    ManualMovement::new(
        MovementId::parse(&message.movement_id)?,
        MemberId::parse(&message.member_id)?,
        kind,
        message.amount,
        description(&message.description)?,
        occurred_at,
        now,
    )
}

/// What the member reads of a back-office movement or a reward.
fn description(raw: &str) -> Result<Reason> {
    Reason::parse(raw)
        .map_err(|_| AccountsError::invalid("description", "1 to 200 characters of text"))
}

fn detail_to_proto(detail: &MovementDetail) -> pb::MovementDetail {
    pb::MovementDetail {
        movement: Some(movement_to_proto(&detail.movement)),
        confirmed_at: detail
            .confirmed_at
            .map(millis_to_rfc3339)
            .unwrap_or_default(),
        confirms_at: detail
            .confirms_at
            .map(millis_to_rfc3339)
            .unwrap_or_default(),
        purchase: detail.purchase.as_ref().map(purchase_to_proto),
    }
}

fn purchase_to_proto(purchase: &PurchaseExplanation) -> pb::PurchaseExplanation {
    let lines = purchase
        .accrual
        .as_ref()
        .map(|accrual| {
            accrual
                .lines
                .iter()
                .map(|line| pb::AccrualLine {
                    category: category_to_proto(line.category) as i32,
                    amount: line.amount,
                    rate_bp: i32::try_from(line.rate_bp).unwrap_or(i32::MAX),
                    earned: line.pesos,
                    rule_id: line.rule_id.clone().unwrap_or_default(),
                    rule: line.description.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    pb::PurchaseExplanation {
        purchase_id: purchase.purchase_id.clone(),
        store_name: purchase.store_name.clone(),
        purchased_at: millis_to_rfc3339(purchase.purchased_at),
        week_day: i32::try_from(purchase.weekday().number_from_monday()).unwrap_or(0),
        payment_method: match purchase.payment {
            PaymentMethod::PartnerCard => pb::PaymentMethod::PartnerCard,
            PaymentMethod::OtherCard => pb::PaymentMethod::OtherCard,
            PaymentMethod::Cash => pb::PaymentMethod::Cash,
        } as i32,
        total: purchase.total,
        accrued: purchase.accrued,
        rules_version: purchase.rules_version.clone(),
        has_breakdown: purchase.accrual.is_some(),
        lines,
    }
}

fn category_to_proto(category: Category) -> pb::Category {
    match category {
        Category::Meat => pb::Category::Meat,
        Category::FruitsAndVegetables => pb::Category::FruitsAndVegetables,
        Category::Cleaning => pb::Category::Cleaning,
        Category::Drinks => pb::Category::Drinks,
        Category::Other => pb::Category::Other,
    }
}

fn movement_to_proto(movement: &Movement) -> pb::Movement {
    pb::Movement {
        movement_id: movement.id().as_str().to_owned(),
        kind: match movement.kind() {
            MovementKind::Accrual => pb::MovementKind::Accrual,
            MovementKind::Redemption => pb::MovementKind::Redemption,
            MovementKind::Expiration => pb::MovementKind::Expiration,
            MovementKind::Adjustment => pb::MovementKind::Adjustment,
        } as i32,
        status: match movement.status() {
            MovementStatus::Pending => pb::MovementStatus::Pending,
            MovementStatus::Confirmed => pb::MovementStatus::Confirmed,
        } as i32,
        amount: movement.amount(),
        description: movement.reason().as_str().to_owned(),
        occurred_at: millis_to_rfc3339(movement.occurred_at()),
    }
}
