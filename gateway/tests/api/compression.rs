//! Compressed answers: JSON of 1 KiB or more in gzip when the client accepts it, byte for byte
//! the uncompressed answer once inflated and with the same security headers; small JSON as is.

use std::io::Read;

use crate::support::*;

async fn get_with(gw: &TestGateway, path: &str, encoding: Option<&str>) -> reqwest::Response {
    let mut request = gw.get(path);
    if let Some(encoding) = encoding {
        request = request.header("accept-encoding", encoding);
    }
    request.send().await.unwrap()
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> Option<&'a str> {
    response.headers().get(name).map(|v| v.to_str().unwrap())
}

#[tokio::test]
async fn the_openapi_document_is_sent_in_gzip_and_inflates_to_the_plain_answer() {
    let gw = gateway().await;
    let plain = get_with(&gw, "/api/openapi.json", None).await;
    assert_eq!(plain.status(), StatusCode::OK);
    assert_eq!(header(&plain, "content-encoding"), None);
    let plain_csp = header(&plain, "content-security-policy").map(str::to_owned);
    let plain_cache = header(&plain, "cache-control").map(str::to_owned);
    let plain_body = plain.bytes().await.unwrap();
    assert!(plain_body.len() > 10 * 1024, "{} bytes", plain_body.len());

    let zipped = get_with(&gw, "/api/openapi.json", Some("gzip")).await;
    assert_eq!(zipped.status(), StatusCode::OK);
    assert_eq!(header(&zipped, "content-encoding"), Some("gzip"));
    assert!(
        header(&zipped, "vary").is_some_and(|v| v.to_ascii_lowercase().contains("accept-encoding")),
        "caches must key on Accept-Encoding"
    );
    assert_eq!(
        header(&zipped, "content-security-policy").map(str::to_owned),
        plain_csp
    );
    assert_eq!(
        header(&zipped, "cache-control").map(str::to_owned),
        plain_cache
    );
    assert_eq!(header(&zipped, "x-content-type-options"), Some("nosniff"));
    let compressed = zipped.bytes().await.unwrap();
    assert!(
        compressed.len() < plain_body.len() / 3,
        "{} bytes",
        compressed.len()
    );
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut inflated)
        .unwrap();
    assert_eq!(inflated, plain_body);
}

#[tokio::test]
async fn brotli_is_chosen_when_the_browser_prefers_it() {
    let gw = gateway().await;
    let answer = get_with(&gw, "/api/openapi.json", Some("br;q=1.0, gzip;q=0.5")).await;
    assert_eq!(header(&answer, "content-encoding"), Some("br"));
}

#[tokio::test]
async fn json_under_a_kilobyte_is_sent_as_is() {
    let gw = gateway().await;
    let answer = get_with(&gw, "/api/health", Some("gzip, br")).await;
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(header(&answer, "content-encoding"), None);
    let body = answer.bytes().await.unwrap();
    assert!(body.len() < 1024);
    let _: serde_json::Value = serde_json::from_slice(&body).unwrap();
}

#[tokio::test]
async fn a_member_answer_keeps_no_store_whether_compressed_or_not() {
    let gw = gateway().await;
    let answer = gw
        .as_member(gw.get("/api/balance").header("accept-encoding", "gzip"))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    assert_eq!(header(&answer, "cache-control"), Some("no-store"));
}
