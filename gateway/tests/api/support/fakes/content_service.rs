//! The stand-in content: one promotion, alliance, banner and FAQ each, the terms, the flags
//! and the simulator, failing with the scripted `content_error`.

use crate::support::*;

#[tonic::async_trait]
impl ContentService for Fakes {
    async fn get_current_terms(
        &self,
        _: Request<content::GetCurrentTermsRequest>,
    ) -> Result<Response<content::GetCurrentTermsResponse>, Status> {
        if let Some(body) = self.script.lock().unwrap().content_error.clone() {
            return Err(body.into_status());
        }
        Ok(Response::new(content::GetCurrentTermsResponse {
            terms: Some(content::Terms {
                version: "2026-11-01".into(),
                title: "Términos y condiciones de Mi Club".into(),
                body: "Primer párrafo.\n\nSegundo párrafo.".into(),
                published_at: "2026-11-01T03:00:00Z".into(),
            }),
        }))
    }

    async fn list_promotions(
        &self,
        _: Request<content::ListPromotionsRequest>,
    ) -> Result<Response<content::ListPromotionsResponse>, Status> {
        self.content_fails()?;
        Ok(Response::new(content::ListPromotionsResponse {
            promotions: vec![content::Promotion {
                id: "carnes-2x1".into(),
                title: "2x1 en carnes".into(),
                description: "Todos los martes.".into(),
                image_url: "/images/promociones/carnes-2x1.svg".into(),
                link_url: "https://www.lider.cl/".into(),
                badge: "2x1".into(),
                starts_on: "2026-01-01".into(),
                ends_on: "2027-12-31".into(),
                position: 1,
            }],
        }))
    }

    async fn list_alliances(
        &self,
        _: Request<content::ListAlliancesRequest>,
    ) -> Result<Response<content::ListAlliancesResponse>, Status> {
        self.content_fails()?;
        Ok(Response::new(content::ListAlliancesResponse {
            alliances: vec![content::Alliance {
                id: "bci".into(),
                partner: "Tarjeta Lider BCI".into(),
                title: "6% los lunes".into(),
                conditions: "Tope $10.000.".into(),
                ..Default::default()
            }],
        }))
    }

    async fn list_banners(
        &self,
        _: Request<content::ListBannersRequest>,
    ) -> Result<Response<content::ListBannersResponse>, Status> {
        self.content_fails()?;
        Ok(Response::new(content::ListBannersResponse {
            banners: vec![content::Banner {
                id: "base".into(),
                title: "Acumula 0,8% en todas tus compras".into(),
                image_alt: "Carro de compras".into(),
                ..Default::default()
            }],
        }))
    }

    async fn list_faqs(
        &self,
        request: Request<content::ListFaqsRequest>,
    ) -> Result<Response<content::ListFaqsResponse>, Status> {
        self.content_fails()?;
        let audience = request.into_inner().audience;
        let question = if audience == content::FaqAudience::Login as i32 {
            "¿Por qué me piden un código?"
        } else {
            "¿Qué es Mi Club?"
        };
        Ok(Response::new(content::ListFaqsResponse {
            faqs: vec![content::Faq {
                id: "q1".into(),
                audience,
                question: question.into(),
                answer: "Respuesta.".into(),
                position: 1,
            }],
        }))
    }

    async fn get_flags(
        &self,
        _: Request<content::GetFlagsRequest>,
    ) -> Result<Response<content::GetFlagsResponse>, Status> {
        let mut script = self.script();
        script.flag_reads += 1;
        match script.flags {
            Some(flags) => Ok(Response::new(content::GetFlagsResponse {
                flags: Some(flags),
            })),
            None => Err(Status::unimplemented("content is not reachable")),
        }
    }

    async fn simulate(
        &self,
        request: Request<content::SimulateRequest>,
    ) -> Result<Response<content::SimulateResponse>, Status> {
        self.content_fails()?;
        let request = request.into_inner();
        // The Monday bank-card offer, as content answers it: a discount apart from the pesos.
        let bank_card_discount =
            (request.week_day == 1 && request.partner_card).then(|| content::SimulatedDiscount {
                pesos: 600,
                rate_bp: 600,
                description: "Lunes 6% de descuento con Tarjeta Lider BCI".into(),
            });
        self.script().last_simulation = Some(request);
        Ok(Response::new(content::SimulateResponse {
            bank_card_discount,
            total_earned: 300,
            rules_version: "2026-11".into(),
            lines: vec![content::SimulatedLine {
                category: "fruits_and_vegetables".into(),
                amount: 10_000,
                earned: 300,
                rate_bp: 300,
                rule: "Martes de frutas y verduras".into(),
            }],
        }))
    }

    async fn publish_terms(
        &self,
        _: Request<content::PublishTermsRequest>,
    ) -> Result<Response<content::PublishTermsResponse>, Status> {
        Err(Status::unimplemented("ops call content directly"))
    }

    async fn set_flag(
        &self,
        _: Request<content::SetFlagRequest>,
    ) -> Result<Response<content::SetFlagResponse>, Status> {
        Err(Status::unimplemented("ops call content directly"))
    }

    async fn upsert_promotion(
        &self,
        _: Request<content::UpsertPromotionRequest>,
    ) -> Result<Response<content::UpsertPromotionResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }

    async fn upsert_alliance(
        &self,
        _: Request<content::UpsertAllianceRequest>,
    ) -> Result<Response<content::UpsertAllianceResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }

    async fn upsert_banner(
        &self,
        _: Request<content::UpsertBannerRequest>,
    ) -> Result<Response<content::UpsertBannerResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }

    async fn upsert_faq(
        &self,
        _: Request<content::UpsertFaqRequest>,
    ) -> Result<Response<content::UpsertFaqResponse>, Status> {
        Err(Status::unimplemented(
            "the back office calls content directly",
        ))
    }
}
