//! The OpenAPI document's frame: its title, and the answers every operation shares. The paths,
//! their bodies and the statuses particular to each come from the handlers' `#[utoipa::path]`
//! through the router that serves them ([`crate::routes::api_router`]), so a route cannot
//! exist without its contract.

use utoipa::openapi::path::{HttpMethod, Operation};
use utoipa::openapi::{OpenApi as Document, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Mi Club API",
        description = "REST API of the Mi Club member portal gateway. State-changing requests need the header `x-miclub-csrf: 1`. Every failure answers with the `Error` body."
    ),
    components(schemas(miclub_platform::error::ErrorBody))
)]
pub struct ApiDoc;

/// The statuses the gateway's shared layers can answer on any operation, added where the
/// handler's own entry does not already say more: the CSRF check on state-changing methods,
/// the JSON decoder on bodies, and a failing or slow service behind every operation.
#[derive(Debug)]
pub struct SharedAnswers;

impl SharedAnswers {
    fn add(operation: &mut Operation, status: &str, description: &str) {
        operation
            .responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| {
                ResponseBuilder::new()
                    .description(description)
                    .content(
                        "application/json",
                        utoipa::openapi::ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("Error")))
                            .build(),
                    )
                    .build()
                    .into()
            });
    }
}

impl Modify for SharedAnswers {
    fn modify(&self, document: &mut Document) {
        for item in document.paths.paths.values_mut() {
            let operations = [
                (HttpMethod::Get, item.get.as_mut()),
                (HttpMethod::Put, item.put.as_mut()),
                (HttpMethod::Post, item.post.as_mut()),
                (HttpMethod::Delete, item.delete.as_mut()),
                (HttpMethod::Patch, item.patch.as_mut()),
            ];
            for (method, operation) in operations {
                let Some(operation) = operation else { continue };
                if method != HttpMethod::Get {
                    Self::add(
                        operation,
                        "403",
                        "ERR_CSRF: the x-miclub-csrf header is missing or the origin is not allowed",
                    );
                }
                if operation.request_body.is_some() {
                    Self::add(
                        operation,
                        "400",
                        "ERR_INVALID_JSON or ERR_INVALID_ARGUMENT: the body is not the documented JSON",
                    );
                    Self::add(
                        operation,
                        "408",
                        "ERR_REQUEST_TIMEOUT: the body was not whole in time after its head",
                    );
                    Self::add(operation, "413", "ERR_PAYLOAD_TOO_LARGE");
                    Self::add(
                        operation,
                        "415",
                        "ERR_UNSUPPORTED_MEDIA_TYPE: the body is not application/json",
                    );
                }
                Self::add(operation, "500", "ERR_INTERNAL");
                Self::add(
                    operation,
                    "503",
                    "ERR_UNAVAILABLE: a service behind the gateway is down",
                );
                Self::add(
                    operation,
                    "504",
                    "ERR_TIMEOUT: a service behind the gateway did not answer in time",
                );
            }
        }
    }
}
