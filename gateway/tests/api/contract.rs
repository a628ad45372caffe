//! The served router and its OpenAPI document are one declaration: every documented operation
//! is routed and answers only statuses its entry documents, and every `/api` path the docs
//! and the web app call is in the document.

use std::collections::BTreeSet;
use std::path::Path;

use miclub_platform::error::ErrorCode;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::support::{TestGateway, gateway};

/// `/api/profile/{id}` matches `/api/profile/x`.
fn matches(template: &str, path: &str) -> bool {
    let (template, path): (Vec<&str>, Vec<&str>) =
        (template.split('/').collect(), path.split('/').collect());
    template.len() == path.len()
        && template
            .iter()
            .zip(&path)
            .all(|(t, p)| t == p || (t.starts_with('{') && t.ends_with('}')))
}

/// The OpenAPI document the gateway serves.
async fn served_document(gw: &TestGateway) -> Value {
    gw.anonymous_get("/api/openapi.json")
        .await
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn every_documented_operation_is_served_and_answers_only_a_documented_status() {
    let gw = gateway().await;
    let document = served_document(&gw).await;
    let unrouted = gw.anonymous_get("/api/no-such-route").await;
    assert_eq!(unrouted.status(), StatusCode::NOT_FOUND);
    let unrouted: Value = unrouted.json().await.unwrap();

    let paths = document["paths"].as_object().unwrap();
    assert!(paths.len() >= 33, "{} paths", paths.len());
    // Generated clients name each operation by its id.
    let mut ids = BTreeSet::new();
    for operations in paths.values() {
        for operation in operations.as_object().unwrap().values() {
            let id = operation["operationId"].as_str().unwrap();
            assert!(ids.insert(id.to_owned()), "operation id {id} is used twice");
        }
    }
    let mut undocumented = Vec::new();
    for (path, operations) in paths {
        let concrete = path.replace(['{', '}'], "");
        for (method, operation) in operations.as_object().unwrap() {
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let mut request = gw
                .client
                .request(method.clone(), format!("{}{concrete}", gw.base))
                .header("x-miclub-csrf", "1");
            if method != Method::GET {
                request = request.json(&json!({}));
            }
            let answer = request.send().await.unwrap();
            let status = answer.status();
            let body: Value = answer.json().await.unwrap_or(Value::Null);
            assert_ne!(
                status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{method} {path} is documented but not routed"
            );
            assert!(
                !(status == StatusCode::NOT_FOUND && body == unrouted),
                "{method} {path} is documented but answered as an unknown route"
            );
            let documented = operation["responses"]
                .as_object()
                .unwrap()
                .contains_key(status.as_str());
            if !documented {
                undocumented.push(format!("{method} {path} answered {status}: {body}"));
            }
        }
    }
    assert!(
        undocumented.is_empty(),
        "statuses missing from the document:\n{}",
        undocumented.join("\n")
    );
}

#[tokio::test]
async fn every_api_path_the_docs_and_the_web_app_call_is_in_the_document() {
    let gw = gateway().await;
    let document = served_document(&gw).await;
    let documented: Vec<&String> = document["paths"].as_object().unwrap().keys().collect();

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut sources = vec![root.join("docs/api.md")];
    let mut folders = vec![root.join("web/src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "ts" || e == "tsx") {
                sources.push(path);
            }
        }
    }
    let mut used = BTreeSet::new();
    for source in &sources {
        let text = std::fs::read_to_string(source).unwrap();
        for (start, _) in text.match_indices("/api/") {
            // A path, not a module import such as `../api/get-balance`.
            if start > 0 && !" '\"`(".contains(text[..start].chars().last().unwrap()) {
                continue;
            }
            let path: String = text[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "/-_.{}".contains(*c))
                .collect();
            let path = path.trim_end_matches(['.', '/']).to_owned();
            // The dev mailbox is served only by the standalone binary's development profile.
            if path != "/api" && !path.starts_with("/api/dev/") {
                used.insert((
                    path,
                    source.strip_prefix(&root).unwrap().display().to_string(),
                ));
            }
        }
    }
    assert!(used.len() > 20, "found only {used:?}");
    let missing: Vec<String> = used
        .iter()
        .filter(|(path, _)| !documented.iter().any(|d| matches(d, path)))
        .map(|(path, source)| format!("{path} (in {source})"))
        .collect();
    assert!(
        missing.is_empty(),
        "paths used but not in the document:\n{}",
        missing.join("\n")
    );
}

#[tokio::test]
async fn every_failure_of_every_operation_carries_the_error_body_of_every_code() {
    let gw = gateway().await;
    let document = served_document(&gw).await;
    let schemas = &document["components"]["schemas"];
    let mut properties: Vec<&String> = schemas["Error"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    properties.sort();
    assert_eq!(properties, ["action", "code", "field", "message"]);
    assert_eq!(schemas["Error"]["required"], json!(["code", "message"]));
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(schemas["ErrorCode"]["enum"], json!(codes));

    for (path, operations) in document["paths"].as_object().unwrap() {
        for (method, operation) in operations.as_object().unwrap() {
            for (status, response) in operation["responses"].as_object().unwrap() {
                if status.starts_with('4') || status.starts_with('5') {
                    assert_eq!(
                        response["content"]["application/json"]["schema"]["$ref"],
                        "#/components/schemas/Error",
                        "{method} {path} {status}"
                    );
                }
            }
        }
    }
}

/// `docs/openapi.json`: the document the web app's types are generated from
/// (`npm run api:generate` in web/). Refreshed with `MICLUB_WRITE_OPENAPI=1` on this test.
#[tokio::test]
async fn the_committed_openapi_document_is_the_one_the_gateway_serves() {
    let gw = gateway().await;
    let served = served_document(&gw).await;
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/openapi.json");
    let text = serde_json::to_string_pretty(&served).unwrap() + "\n";
    if std::env::var_os("MICLUB_WRITE_OPENAPI").is_some() {
        std::fs::write(&file, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        committed == text,
        "docs/openapi.json differs from the served document: run \
         MICLUB_WRITE_OPENAPI=1 cargo test -p miclub-gateway --test api committed_openapi, \
         then npm run api:generate in web/"
    );
}

/// The JSON names the spec gives (portal-spec.md section 3, "User returned by login" and
/// "Profile"; section 7 for the login answer), kept as it writes them.
const SPEC_NAMES: &[&str] = &[
    "has_missions",
    "is_user_migrating",
    "last_name",
    "mother_surname",
    "phone_number",
    "gender_id",
    "birth_date",
    "email_confirmed",
    "terms_agreement",
    "event_date",
];

/// Every property name of every schema in `value`, with where it was found.
fn property_names(value: &Value, at: &str, names: &mut Vec<(String, String)>) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = object.get("properties") {
                for name in properties.keys() {
                    names.push((name.clone(), at.to_owned()));
                }
            }
            for (key, inner) in object {
                property_names(inner, &format!("{at}/{key}"), names);
            }
        }
        Value::Array(items) => {
            for item in items {
                property_names(item, at, names);
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn every_json_name_the_spec_does_not_give_is_camel_case() {
    let gw = gateway().await;
    let document = served_document(&gw).await;
    let mut names = Vec::new();
    property_names(&document, "", &mut names);
    for operations in document["paths"].as_object().unwrap().values() {
        for (method, operation) in operations.as_object().unwrap() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                if parameter["in"] == "query" {
                    let name = parameter["name"].as_str().unwrap().to_owned();
                    names.push((name, format!("{method} query")));
                }
            }
        }
    }
    assert!(names.len() > 50, "found only {} names", names.len());
    let camel_case = |name: &str| {
        name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric())
    };
    let strays: BTreeSet<String> = names
        .iter()
        .filter(|(name, _)| !camel_case(name) && !SPEC_NAMES.contains(&name.as_str()))
        .map(|(name, at)| format!("{name} (at {at})"))
        .collect();
    assert!(
        strays.is_empty(),
        "names neither the spec's nor camelCase:\n{}",
        strays.iter().cloned().collect::<Vec<_>>().join("\n")
    );
}
