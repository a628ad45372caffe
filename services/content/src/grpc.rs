//! The gRPC face of content (`proto/content/v1/content.proto`).
//!
//! The reading calls and the simulator are anonymous (the content is public), so no token is
//! checked. The internal calls (SetFlag, Upsert*) first require a service token
//! ([`TokenVerifier::service`]): a member token is refused with `ERR_FORBIDDEN`, none with
//! `ERR_UNAUTHENTICATED`. Each call asks the domain and turns its answer into proto messages;
//! errors become a `tonic::Status` with an `ErrorBody` through
//! [`ContentError::into_status`](crate::error::ContentError::into_status).

use std::sync::Arc;

use miclub_accrual::{Accrual, Discount};
use miclub_platform::calendar;
use miclub_platform::error::ServiceError;
use miclub_platform::storage::{millis_to_rfc3339, now_millis};
use miclub_platform::tokens::TokenVerifier;
use miclub_proto::content::v1 as pb;
use miclub_proto::content::v1::content_service_server::ContentService;
use tonic::{Request, Response, Status};

use crate::domain::{Content, Simulation, category_name};
use crate::error::{ContentError, Result};
use crate::model::{
    Alliance, AllianceFields, Banner, BannerFields, Faq, FaqAudience, FaqFields, FlagName, Flags,
    Promotion, PromotionFields, Terms, TermsVersion,
};

/// Implements `miclub.content.v1.ContentService`.
#[derive(Debug, Clone)]
pub struct ContentGrpc {
    content: Content,
    verifier: Arc<TokenVerifier>,
}

impl ContentGrpc {
    pub fn new(content: Content, verifier: Arc<TokenVerifier>) -> Self {
        Self { content, verifier }
    }
}

#[tonic::async_trait]
impl ContentService for ContentGrpc {
    #[tracing::instrument(name = "content.get_current_terms", level = "debug", skip_all)]
    async fn get_current_terms(
        &self,
        _request: Request<pb::GetCurrentTermsRequest>,
    ) -> Result<Response<pb::GetCurrentTermsResponse>, Status> {
        let terms = self
            .content
            .current_terms(now_millis())
            .await
            .map_err(|err| err.into_status("get_current_terms"))?;
        Ok(Response::new(pb::GetCurrentTermsResponse {
            terms: Some(terms_to_proto(terms)),
        }))
    }

    #[tracing::instrument(name = "content.list_promotions", level = "debug", skip_all)]
    async fn list_promotions(
        &self,
        _request: Request<pb::ListPromotionsRequest>,
    ) -> Result<Response<pb::ListPromotionsResponse>, Status> {
        let promotions = self
            .content
            .promotions(calendar::day_of_millis(now_millis()))
            .await
            .map_err(|err| err.into_status("list_promotions"))?;
        Ok(Response::new(pb::ListPromotionsResponse {
            promotions: promotions.iter().map(promotion_to_proto).collect(),
        }))
    }

    #[tracing::instrument(name = "content.list_alliances", level = "debug", skip_all)]
    async fn list_alliances(
        &self,
        _request: Request<pb::ListAlliancesRequest>,
    ) -> Result<Response<pb::ListAlliancesResponse>, Status> {
        let alliances = self
            .content
            .alliances(calendar::day_of_millis(now_millis()))
            .await
            .map_err(|err| err.into_status("list_alliances"))?;
        Ok(Response::new(pb::ListAlliancesResponse {
            alliances: alliances.iter().map(alliance_to_proto).collect(),
        }))
    }

    #[tracing::instrument(name = "content.list_banners", level = "debug", skip_all)]
    async fn list_banners(
        &self,
        _request: Request<pb::ListBannersRequest>,
    ) -> Result<Response<pb::ListBannersResponse>, Status> {
        let banners = self
            .content
            .banners(calendar::day_of_millis(now_millis()))
            .await
            .map_err(|err| err.into_status("list_banners"))?;
        Ok(Response::new(pb::ListBannersResponse {
            banners: banners.iter().map(banner_to_proto).collect(),
        }))
    }

    #[tracing::instrument(name = "content.list_faqs", level = "debug", skip_all)]
    async fn list_faqs(
        &self,
        request: Request<pb::ListFaqsRequest>,
    ) -> Result<Response<pb::ListFaqsResponse>, Status> {
        let listed = async {
            let audience = audience_from_proto(request.into_inner().audience)?;
            self.content.faqs(audience).await
        };
        let faqs = listed.await.map_err(|err| err.into_status("list_faqs"))?;
        Ok(Response::new(pb::ListFaqsResponse {
            faqs: faqs.iter().map(faq_to_proto).collect(),
        }))
    }

    #[tracing::instrument(name = "content.get_flags", level = "debug", skip_all)]
    async fn get_flags(
        &self,
        _request: Request<pb::GetFlagsRequest>,
    ) -> Result<Response<pb::GetFlagsResponse>, Status> {
        let flags = self
            .content
            .flags()
            .await
            .map_err(|err| err.into_status("get_flags"))?;
        Ok(Response::new(pb::GetFlagsResponse {
            flags: Some(flags_to_proto(flags)),
        }))
    }

    #[tracing::instrument(name = "content.simulate", level = "debug", skip_all)]
    async fn simulate(
        &self,
        request: Request<pb::SimulateRequest>,
    ) -> Result<Response<pb::SimulateResponse>, Status> {
        let form = request.into_inner();
        let simulation = Simulation::new(
            form.week_day,
            [
                form.meat_amount,
                form.fruits_and_vegetables_amount,
                form.cleaning_amount,
                form.drinks_amount,
                form.other_amount,
            ],
            form.partner_card,
        )
        .map_err(|err| err.into_status("simulate"))?;
        let (accrual, discount) = self.content.simulate(&simulation);
        Ok(Response::new(accrual_to_proto(accrual, discount)))
    }

    #[tracing::instrument(name = "content.set_flag", level = "debug", skip_all)]
    async fn set_flag(
        &self,
        request: Request<pb::SetFlagRequest>,
    ) -> Result<Response<pb::SetFlagResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let message = request.into_inner();
        let set = async {
            let name = flag_from_proto(message.flag)?;
            let (flags, before) = self
                .content
                .set_flag(name, message.value, &client.sub, now_millis())
                .await?;
            tracing::info!(
                client = %client.sub,
                flag = name.as_str(),
                before,
                value = message.value,
                "flag set"
            );
            Ok::<_, ContentError>(flags)
        };
        let flags = set.await.map_err(|err| err.into_status("set_flag"))?;
        Ok(Response::new(pb::SetFlagResponse {
            flags: Some(flags_to_proto(flags)),
        }))
    }

    #[tracing::instrument(name = "content.publish_terms", level = "debug", skip_all)]
    async fn publish_terms(
        &self,
        request: Request<pb::PublishTermsRequest>,
    ) -> Result<Response<pb::PublishTermsResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let message = request.into_inner();
        let now = now_millis();
        let publish = async {
            let version = TermsVersion::parse(message.version.trim())?;
            let dated_now = message.published_at.trim().is_empty();
            let published_at = if dated_now {
                now
            } else {
                chrono::DateTime::parse_from_rfc3339(message.published_at.trim())
                    .map_err(|_| ContentError::invalid("published_at", "not an RFC 3339 instant"))?
                    .timestamp_millis()
            };
            let terms = Terms::new(version, &message.title, &message.body, published_at)?;
            let created = self.content.publish_terms(&terms, dated_now, now).await?;
            tracing::info!(client = %client.sub, version = %terms.version, created, "terms publish answered");
            Ok::<_, ContentError>((terms, created))
        };
        let (terms, created) = publish
            .await
            .map_err(|err| err.into_status("publish_terms"))?;
        Ok(Response::new(pb::PublishTermsResponse {
            terms: Some(terms_to_proto(terms)),
            created,
        }))
    }

    #[tracing::instrument(name = "content.upsert_promotion", level = "debug", skip_all)]
    async fn upsert_promotion(
        &self,
        request: Request<pb::UpsertPromotionRequest>,
    ) -> Result<Response<pb::UpsertPromotionResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let upserted = async {
            let promotion = Promotion::new(promotion_from_proto(
                request.into_inner().promotion.unwrap_or_default(),
            ))?;
            self.content
                .upsert_promotion(&promotion, now_millis())
                .await?;
            tracing::info!(client = %client.sub, promotion_id = %promotion.id, "promotion upserted");
            Ok::<_, ContentError>(())
        };
        upserted
            .await
            .map_err(|err| err.into_status("upsert_promotion"))?;
        Ok(Response::new(pb::UpsertPromotionResponse {}))
    }

    #[tracing::instrument(name = "content.upsert_alliance", level = "debug", skip_all)]
    async fn upsert_alliance(
        &self,
        request: Request<pb::UpsertAllianceRequest>,
    ) -> Result<Response<pb::UpsertAllianceResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let upserted = async {
            let alliance = Alliance::new(alliance_from_proto(
                request.into_inner().alliance.unwrap_or_default(),
            ))?;
            self.content
                .upsert_alliance(&alliance, now_millis())
                .await?;
            tracing::info!(client = %client.sub, alliance_id = %alliance.id, "alliance upserted");
            Ok::<_, ContentError>(())
        };
        upserted
            .await
            .map_err(|err| err.into_status("upsert_alliance"))?;
        Ok(Response::new(pb::UpsertAllianceResponse {}))
    }

    #[tracing::instrument(name = "content.upsert_banner", level = "debug", skip_all)]
    async fn upsert_banner(
        &self,
        request: Request<pb::UpsertBannerRequest>,
    ) -> Result<Response<pb::UpsertBannerResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let upserted = async {
            let banner = Banner::new(banner_from_proto(
                request.into_inner().banner.unwrap_or_default(),
            ))?;
            self.content.upsert_banner(&banner, now_millis()).await?;
            tracing::info!(client = %client.sub, banner_id = %banner.id, "banner upserted");
            Ok::<_, ContentError>(())
        };
        upserted
            .await
            .map_err(|err| err.into_status("upsert_banner"))?;
        Ok(Response::new(pb::UpsertBannerResponse {}))
    }

    #[tracing::instrument(name = "content.upsert_faq", level = "debug", skip_all)]
    async fn upsert_faq(
        &self,
        request: Request<pb::UpsertFaqRequest>,
    ) -> Result<Response<pb::UpsertFaqResponse>, Status> {
        let client = self.verifier.service(&request).await?;
        let upserted = async {
            let faq = Faq::new(faq_from_proto(
                request.into_inner().faq.unwrap_or_default(),
            )?)?;
            self.content.upsert_faq(&faq, now_millis()).await?;
            tracing::info!(client = %client.sub, faq_id = %faq.id, "faq upserted");
            Ok::<_, ContentError>(())
        };
        upserted
            .await
            .map_err(|err| err.into_status("upsert_faq"))?;
        Ok(Response::new(pb::UpsertFaqResponse {}))
    }
}

fn terms_to_proto(terms: Terms) -> pb::Terms {
    pb::Terms {
        version: terms.version.to_string(),
        title: terms.title,
        body: terms.body,
        published_at: millis_to_rfc3339(terms.published_at),
    }
}

fn promotion_to_proto(promotion: &Promotion) -> pb::Promotion {
    pb::Promotion {
        id: promotion.id.clone(),
        title: promotion.title.clone(),
        description: promotion.description.clone(),
        image_url: promotion.image_url.clone(),
        link_url: promotion.link_url.clone(),
        badge: promotion.badge.clone(),
        starts_on: promotion.starts_on.clone(),
        ends_on: promotion.ends_on.clone(),
        position: promotion.position,
    }
}

fn promotion_from_proto(promotion: pb::Promotion) -> PromotionFields {
    PromotionFields {
        id: promotion.id,
        title: promotion.title,
        description: promotion.description,
        image_url: promotion.image_url,
        link_url: promotion.link_url,
        badge: promotion.badge,
        starts_on: promotion.starts_on,
        ends_on: promotion.ends_on,
        position: promotion.position,
    }
}

fn alliance_to_proto(alliance: &Alliance) -> pb::Alliance {
    pb::Alliance {
        id: alliance.id.clone(),
        partner: alliance.partner.clone(),
        title: alliance.title.clone(),
        description: alliance.description.clone(),
        image_url: alliance.image_url.clone(),
        link_url: alliance.link_url.clone(),
        conditions: alliance.conditions.clone(),
        starts_on: alliance.starts_on.clone(),
        ends_on: alliance.ends_on.clone(),
        position: alliance.position,
    }
}

fn alliance_from_proto(alliance: pb::Alliance) -> AllianceFields {
    AllianceFields {
        id: alliance.id,
        partner: alliance.partner,
        title: alliance.title,
        description: alliance.description,
        image_url: alliance.image_url,
        link_url: alliance.link_url,
        conditions: alliance.conditions,
        starts_on: alliance.starts_on,
        ends_on: alliance.ends_on,
        position: alliance.position,
    }
}

fn banner_to_proto(banner: &Banner) -> pb::Banner {
    pb::Banner {
        id: banner.id.clone(),
        title: banner.title.clone(),
        subtitle: banner.subtitle.clone(),
        image_url: banner.image_url.clone(),
        image_alt: banner.image_alt.clone(),
        link_url: banner.link_url.clone(),
        starts_on: banner.starts_on.clone(),
        ends_on: banner.ends_on.clone(),
        position: banner.position,
    }
}

fn banner_from_proto(banner: pb::Banner) -> BannerFields {
    BannerFields {
        id: banner.id,
        title: banner.title,
        subtitle: banner.subtitle,
        image_url: banner.image_url,
        image_alt: banner.image_alt,
        link_url: banner.link_url,
        starts_on: banner.starts_on,
        ends_on: banner.ends_on,
        position: banner.position,
    }
}

fn faq_to_proto(faq: &Faq) -> pb::Faq {
    pb::Faq {
        id: faq.id.clone(),
        audience: match faq.audience {
            FaqAudience::General => pb::FaqAudience::General,
            FaqAudience::Login => pb::FaqAudience::Login,
        } as i32,
        question: faq.question.clone(),
        answer: faq.answer.clone(),
        position: faq.position,
    }
}

fn faq_from_proto(faq: pb::Faq) -> Result<FaqFields> {
    Ok(FaqFields {
        audience: audience_from_proto(faq.audience)?,
        id: faq.id,
        question: faq.question,
        answer: faq.answer,
        position: faq.position,
    })
}

fn audience_from_proto(audience: i32) -> Result<FaqAudience> {
    match pb::FaqAudience::try_from(audience) {
        Ok(pb::FaqAudience::General) => Ok(FaqAudience::General),
        Ok(pb::FaqAudience::Login) => Ok(FaqAudience::Login),
        Ok(pb::FaqAudience::Unspecified) | Err(_) => Err(ContentError::invalid_input(
            "audience",
            "Indica si la pregunta es general o de inicio de sesión.",
        )),
    }
}

fn flag_from_proto(flag: i32) -> Result<FlagName> {
    match pb::FlagName::try_from(flag) {
        Ok(pb::FlagName::PortalEnabled) => Ok(FlagName::PortalEnabled),
        Ok(pb::FlagName::ChangePasswordEnable) => Ok(FlagName::ChangePasswordEnable),
        Ok(pb::FlagName::IsLoginMaintenance) => Ok(FlagName::IsLoginMaintenance),
        Ok(pb::FlagName::Unspecified) | Err(_) => Err(ContentError::invalid_input(
            "flag",
            "Indica cuál indicador cambiar.",
        )),
    }
}

fn flags_to_proto(flags: Flags) -> pb::Flags {
    pb::Flags {
        portal_enabled: flags.portal_enabled,
        change_password_enable: flags.change_password_enable,
        is_login_maintenance: flags.is_login_maintenance,
    }
}

fn accrual_to_proto(accrual: Accrual, discount: Option<Discount>) -> pb::SimulateResponse {
    pb::SimulateResponse {
        total_earned: accrual.total,
        lines: accrual
            .lines
            .into_iter()
            .map(|line| pb::SimulatedLine {
                category: category_name(line.category).to_owned(),
                amount: line.amount,
                earned: line.pesos,
                // At most 10 000 (a 100% rate), checked when the rules were loaded.
                rate_bp: i32::try_from(line.rate_bp).unwrap_or(i32::MAX),
                rule: line.description,
            })
            .collect(),
        rules_version: accrual.rules_version,
        bank_card_discount: discount.map(|discount| pb::SimulatedDiscount {
            pesos: discount.pesos,
            rate_bp: i32::try_from(discount.rate_bp).unwrap_or(i32::MAX),
            description: discount.description,
        }),
    }
}
