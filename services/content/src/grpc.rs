//! The gRPC face of content (`proto/content/v1/content.proto`).
//!
//! Every call here is anonymous (the content is public), so no token is checked. Each call
//! asks the domain and turns its answer into proto messages; errors become a `tonic::Status`
//! with an `ErrorBody` through [`ContentError::into_status`](crate::error::ContentError::into_status).

use miclub_platform::storage::{millis_to_rfc3339, now_millis};
use miclub_proto::content::v1 as pb;
use miclub_proto::content::v1::content_service_server::ContentService;
use tonic::{Request, Response, Status};

use crate::domain::{Content, Terms};

/// Implements `miclub.content.v1.ContentService`.
#[derive(Debug, Clone)]
pub struct ContentGrpc {
    content: Content,
}

impl ContentGrpc {
    pub fn new(content: Content) -> Self {
        Self { content }
    }
}

#[tonic::async_trait]
impl ContentService for ContentGrpc {
    #[tracing::instrument(name = "content.get_current_terms", skip_all)]
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
}

fn terms_to_proto(terms: Terms) -> pb::Terms {
    pb::Terms {
        version: terms.version.to_string(),
        title: terms.title,
        body: terms.body,
        published_at: millis_to_rfc3339(terms.published_at),
    }
}
