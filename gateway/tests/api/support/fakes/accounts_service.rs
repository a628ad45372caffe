//! The stand-in accounts: the member, balance, movements, profile, terms and unsubscribing,
//! failing with the scripted `accounts_error` (and the fault drills' GetBalance knob).

use crate::support::*;

#[tonic::async_trait]
impl AccountsService for Fakes {
    async fn get_member(
        &self,
        request: Request<accounts::GetMemberRequest>,
    ) -> Result<Response<accounts::GetMemberResponse>, Status> {
        assert!(
            miclub_platform::tokens::bearer(request.metadata()).is_some(),
            "the member token is forwarded"
        );
        if let Some(body) = self.script.lock().unwrap().accounts_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(accounts::GetMemberResponse {
            member: Some(self.member()),
        }))
    }

    async fn get_balance(
        &self,
        _: Request<accounts::GetBalanceRequest>,
    ) -> Result<Response<accounts::GetBalanceResponse>, Status> {
        {
            let mut script = self.script.lock().unwrap();
            script.balance_calls += 1;
            if script.balance_unavailable > 0 {
                script.balance_unavailable -= 1;
                return Err(ErrorBody::new(ErrorCode::Unavailable).into_status());
            }
        }
        if let Some(body) = self.script.lock().unwrap().accounts_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(accounts::GetBalanceResponse {
            balance: 12_345,
            updated_at: "2026-11-01T10:00:00Z".into(),
        }))
    }

    /// Ana's card: the balance as `get_balance` answers it, the card number a valid one.
    async fn get_member_card(
        &self,
        request: Request<accounts::GetMemberCardRequest>,
    ) -> Result<Response<accounts::GetMemberCardResponse>, Status> {
        self.member_only(&request)?;
        self.script.lock().unwrap().card_calls += 1;
        self.accounts_fails()?;
        Ok(Response::new(accounts::GetMemberCardResponse {
            name: "Ana".into(),
            last_name: "González".into(),
            card_number: CARD_NUMBER.into(),
            balance: 12_345,
            balance_updated_at: "2026-11-01T10:00:00Z".into(),
            as_of: "2026-11-25T12:00:00Z".into(),
        }))
    }

    async fn open_club_account(
        &self,
        request: Request<accounts::OpenClubAccountRequest>,
    ) -> Result<Response<accounts::OpenClubAccountResponse>, Status> {
        self.member_only(&request)?;
        let asked = request.into_inner();
        let opened = {
            let mut script = self.script.lock().unwrap();
            script.club_account_opens.push(asked.clone());
            script.club_account_opens.len() == 1
        };
        self.accounts_fails()?;
        if !asked.accept_terms {
            return Err(ErrorBody::new(ErrorCode::TermsNotAccepted)
                .with_field("acceptTermsAndConditions")
                .into_status());
        }
        // The first call opens; every later one finds the account open (as accounts does).
        Ok(Response::new(accounts::OpenClubAccountResponse {
            balance: 0,
            updated_at: "2026-11-24T15:00:00Z".into(),
            opened,
            terms_agreement: Some(accounts::TermsAgreement {
                decision: accounts::TermsDecision::Accepted as i32,
                event_date: "2026-11-24T15:00:00Z".into(),
                version: asked.terms_version.clone(),
            }),
        }))
    }

    async fn list_genders(
        &self,
        _: Request<accounts::ListGendersRequest>,
    ) -> Result<Response<accounts::ListGendersResponse>, Status> {
        self.accounts_fails()?;
        let genders = [(1, "Femenino"), (2, "Masculino"), (3, "Prefiero no decir")]
            .into_iter()
            .map(|(id, label)| accounts::Gender {
                id,
                label: label.into(),
            })
            .collect();
        Ok(Response::new(accounts::ListGendersResponse { genders }))
    }

    async fn update_profile(
        &self,
        request: Request<accounts::UpdateProfileRequest>,
    ) -> Result<Response<accounts::UpdateProfileResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        let update = request.into_inner();
        {
            let mut script = self.script.lock().unwrap();
            script.last_profile_update = Some(update.clone());
            script.profile_updates += 1;
        }
        self.accounts_fails()?;
        let mut member = self.member();
        let email_changed = update.email != member.email;
        member.email = update.email;
        member.email_confirmed = !email_changed;
        member.name = update.name;
        member.phone_number = update.phone_number;
        Ok(Response::new(accounts::UpdateProfileResponse {
            member: Some(member),
            email_confirmation_sent: email_changed,
        }))
    }

    async fn resend_email_confirmation(
        &self,
        request: Request<accounts::ResendEmailConfirmationRequest>,
    ) -> Result<Response<accounts::ResendEmailConfirmationResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        self.accounts_fails()?;
        self.script.lock().unwrap().email_resends += 1;
        Ok(Response::new(accounts::ResendEmailConfirmationResponse {}))
    }

    async fn restore_email(
        &self,
        request: Request<accounts::RestoreEmailRequest>,
    ) -> Result<Response<accounts::RestoreEmailResponse>, Status> {
        if request.into_inner().token != "good-restore" {
            return Err(ErrorBody::new(ErrorCode::ConfirmationInvalid).into_status());
        }
        Ok(Response::new(accounts::RestoreEmailResponse {
            masked_email: "a***@example.cl".into(),
        }))
    }

    async fn confirm_email(
        &self,
        request: Request<accounts::ConfirmEmailRequest>,
    ) -> Result<Response<accounts::ConfirmEmailResponse>, Status> {
        match request.into_inner().token.as_str() {
            "good-token" => Ok(Response::new(accounts::ConfirmEmailResponse {
                masked_email: "n***@example.cl".into(),
                already_confirmed: false,
            })),
            "used-token" => Ok(Response::new(accounts::ConfirmEmailResponse {
                masked_email: String::new(),
                already_confirmed: true,
            })),
            _ => Err(ErrorBody::new(ErrorCode::ConfirmationInvalid).into_status()),
        }
    }

    async fn record_terms_decision(
        &self,
        request: Request<accounts::RecordTermsDecisionRequest>,
    ) -> Result<Response<accounts::RecordTermsDecisionResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        let decision = request.into_inner();
        self.script.lock().unwrap().last_terms_decision = Some(decision.clone());
        self.accounts_fails()?;
        let version = decision.terms_version.clone();
        let decision = if decision.accepted {
            accounts::TermsDecision::Accepted
        } else {
            accounts::TermsDecision::Rejected
        };
        Ok(Response::new(accounts::RecordTermsDecisionResponse {
            terms_agreement: Some(accounts::TermsAgreement {
                decision: decision as i32,
                event_date: "2026-11-21T15:00:00Z".into(),
                version,
            }),
        }))
    }

    async fn list_movements(
        &self,
        request: Request<accounts::ListMovementsRequest>,
    ) -> Result<Response<accounts::ListMovementsResponse>, Status> {
        assert!(miclub_platform::tokens::bearer(request.metadata()).is_some());
        let query = request.into_inner();
        self.script.lock().unwrap().last_movements_query = Some(query);
        self.accounts_fails()?;
        let movement =
            |id: &str, kind: accounts::MovementKind, status, amount| accounts::Movement {
                movement_id: id.into(),
                kind: kind as i32,
                status: status as i32,
                amount,
                description: format!("movimiento {id}"),
                occurred_at: "2026-10-15T15:00:00Z".into(),
            };
        Ok(Response::new(accounts::ListMovementsResponse {
            movements: vec![
                movement(
                    "m-2",
                    accounts::MovementKind::Redemption,
                    accounts::MovementStatus::Confirmed,
                    -2_000,
                ),
                movement(
                    "m-1",
                    accounts::MovementKind::Accrual,
                    accounts::MovementStatus::Pending,
                    1_250,
                ),
            ],
            page: 2,
            page_size: 10,
            total_count: 12,
            total_pages: 2,
        }))
    }

    /// `m-1`: a pending purchase accrual explained line by line; `m-2`: a redemption (no
    /// purchase); `m-old`: a purchase posted before explanations were stored; any other id is
    /// not the member's (NOT_FOUND, as accounts answers).
    async fn get_movement_detail(
        &self,
        request: Request<accounts::GetMovementDetailRequest>,
    ) -> Result<Response<accounts::GetMovementDetailResponse>, Status> {
        self.member_only(&request)?;
        let id = request.into_inner().movement_id;
        self.script.lock().unwrap().last_movement_detail = Some(id.clone());
        self.accounts_fails()?;
        let movement = |kind: accounts::MovementKind, status: accounts::MovementStatus, amount| {
            Some(accounts::Movement {
                movement_id: id.clone(),
                kind: kind as i32,
                status: status as i32,
                amount,
                description: "Compra en Lider Providencia".into(),
                occurred_at: "2026-11-03T15:00:00Z".into(),
            })
        };
        let line =
            |category: accounts::Category, amount, rate_bp, earned, rule_id: &str, rule: &str| {
                accounts::AccrualLine {
                    category: category as i32,
                    amount,
                    rate_bp,
                    earned,
                    rule_id: rule_id.into(),
                    rule: rule.into(),
                }
            };
        let purchase = |lines: Vec<accounts::AccrualLine>| accounts::PurchaseExplanation {
            purchase_id: "p-1".into(),
            store_name: "Lider Providencia".into(),
            purchased_at: "2026-11-03T15:00:00Z".into(),
            week_day: 2,
            payment_method: accounts::PaymentMethod::PartnerCard as i32,
            total: 33_333,
            accrued: 509,
            rules_version: "2026-11-2".into(),
            has_breakdown: !lines.is_empty(),
            lines,
        };
        let detail = match id.as_str() {
            "m-1" => accounts::MovementDetail {
                movement: movement(
                    accounts::MovementKind::Accrual,
                    accounts::MovementStatus::Pending,
                    509,
                ),
                confirmed_at: String::new(),
                confirms_at: "2026-11-17T15:00:00Z".into(),
                purchase: Some(purchase(vec![
                    line(
                        accounts::Category::FruitsAndVegetables,
                        10_000,
                        300,
                        300,
                        "martes-frutas-y-verduras",
                        "Martes 3% en frutas y verduras",
                    ),
                    line(
                        accounts::Category::Meat,
                        20_000,
                        90,
                        180,
                        "tarjeta-lider-bci",
                        "0,9% en todas tus compras con tarjeta Lider BCI",
                    ),
                    line(
                        accounts::Category::Drinks,
                        3_333,
                        90,
                        29,
                        "tarjeta-lider-bci",
                        "0,9% en todas tus compras con tarjeta Lider BCI",
                    ),
                ])),
            },
            "m-2" => accounts::MovementDetail {
                movement: movement(
                    accounts::MovementKind::Redemption,
                    accounts::MovementStatus::Confirmed,
                    -2_000,
                ),
                confirmed_at: "2026-11-03T15:00:00Z".into(),
                confirms_at: String::new(),
                purchase: None,
            },
            "m-old" => accounts::MovementDetail {
                movement: movement(
                    accounts::MovementKind::Accrual,
                    accounts::MovementStatus::Confirmed,
                    509,
                ),
                confirmed_at: "2026-11-17T15:05:00Z".into(),
                confirms_at: String::new(),
                purchase: Some(purchase(vec![])),
            },
            _ => return Err(ErrorBody::new(ErrorCode::NotFound).into_status()),
        };
        Ok(Response::new(accounts::GetMovementDetailResponse {
            detail: Some(detail),
        }))
    }

    /// Store systems' method: the gateway never calls it.
    async fn get_member_movement_detail(
        &self,
        _: Request<accounts::GetMemberMovementDetailRequest>,
    ) -> Result<Response<accounts::GetMovementDetailResponse>, Status> {
        Err(Status::unimplemented("not called by the gateway"))
    }

    async fn post_purchase(
        &self,
        _: Request<accounts::PostPurchaseRequest>,
    ) -> Result<Response<accounts::PostPurchaseResponse>, Status> {
        Err(Status::unimplemented(
            "store systems call accounts directly",
        ))
    }

    async fn record_movement(
        &self,
        _: Request<accounts::RecordMovementRequest>,
    ) -> Result<Response<accounts::RecordMovementResponse>, Status> {
        Err(Status::unimplemented("back office calls accounts directly"))
    }

    async fn grant_reward(
        &self,
        _: Request<accounts::GrantRewardRequest>,
    ) -> Result<Response<accounts::RecordMovementResponse>, Status> {
        Err(Status::unimplemented("missions calls accounts directly"))
    }

    async fn confirm_due_accruals(
        &self,
        _: Request<accounts::ConfirmDueAccrualsRequest>,
    ) -> Result<Response<accounts::ConfirmDueAccrualsResponse>, Status> {
        Err(Status::unimplemented("ops call accounts directly"))
    }

    async fn check_registration_identity(
        &self,
        _: Request<accounts::CheckRegistrationIdentityRequest>,
    ) -> Result<Response<accounts::CheckRegistrationIdentityResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn check_registration_profile(
        &self,
        _: Request<accounts::CheckRegistrationProfileRequest>,
    ) -> Result<Response<accounts::CheckRegistrationProfileResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn register_member(
        &self,
        _: Request<accounts::RegisterMemberRequest>,
    ) -> Result<Response<accounts::RegisterMemberResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn activate_member(
        &self,
        _: Request<accounts::ActivateMemberRequest>,
    ) -> Result<Response<accounts::ActivateMemberResponse>, Status> {
        Err(Status::unimplemented(
            "registration calls accounts directly",
        ))
    }

    async fn resend_verification_email(
        &self,
        request: Request<accounts::ResendVerificationEmailRequest>,
    ) -> Result<Response<accounts::ResendVerificationEmailResponse>, Status> {
        self.accounts_fails()?;
        self.script().last_verification_resend = Some(request.into_inner().user);
        Ok(Response::new(accounts::ResendVerificationEmailResponse {}))
    }

    async fn list_unsubscribe_reasons(
        &self,
        _: Request<accounts::ListUnsubscribeReasonsRequest>,
    ) -> Result<Response<accounts::ListUnsubscribeReasonsResponse>, Status> {
        self.accounts_fails()?;
        Ok(Response::new(accounts::ListUnsubscribeReasonsResponse {
            reasons: vec![
                accounts::UnsubscribeReason {
                    id: 1,
                    label: "No uso los beneficios del club".into(),
                    requires_text: false,
                },
                accounts::UnsubscribeReason {
                    id: 99,
                    label: "Otro motivo".into(),
                    requires_text: true,
                },
            ],
        }))
    }

    async fn validate_unsubscribe(
        &self,
        request: Request<accounts::ValidateUnsubscribeRequest>,
    ) -> Result<Response<accounts::ValidateUnsubscribeResponse>, Status> {
        self.member_only(&request)?;
        self.script().last_unsubscribe_validation = Some(request.get_ref().clone());
        self.accounts_fails()?;
        let at = self.script().unsubscribed_at.clone();
        Ok(Response::new(accounts::ValidateUnsubscribeResponse {
            already_unsubscribed: at.is_some(),
            unsubscribed_at: at.unwrap_or_default(),
        }))
    }

    async fn unsubscribe(
        &self,
        request: Request<accounts::UnsubscribeRequest>,
    ) -> Result<Response<accounts::UnsubscribeResponse>, Status> {
        self.member_only(&request)?;
        self.accounts_fails()?;
        self.script().last_unsubscribe = Some(request.into_inner());
        Ok(Response::new(accounts::UnsubscribeResponse {
            unsubscribed_at: "2026-11-21T15:04:05Z".into(),
        }))
    }
}
