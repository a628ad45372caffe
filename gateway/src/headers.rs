//! The security headers on every answer of the gateway: what the browser may load and from
//! where (CSP), no framing, no content sniffing, no referrer to other sites, HSTS over TLS. The
//! web app's documents and files get the app's policy and deny powerful browser features; an
//! `/api` answer is data, never a page, so it gets a policy that loads nothing ([`API_CSP`]) and
//! `no-store` unless a route chose a cache policy of its own (only public content does).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::config::{RecaptchaKind, Settings};

/// Where Google's reCAPTCHA v3 loads its script (api.js, then recaptcha__*.js from gstatic).
const RECAPTCHA_SCRIPTS: &str =
    "https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/";
/// reCAPTCHA's invisible iframe (its badge and its challenge).
const RECAPTCHA_FRAMES: &str =
    "https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/";

/// Browser features the portal never uses, all denied to it and to any frame it embeds.
pub const PERMISSIONS_POLICY: &str = "accelerometer=(), autoplay=(), bluetooth=(), camera=(), \
     display-capture=(), geolocation=(), gyroscope=(), hid=(), magnetometer=(), microphone=(), \
     midi=(), payment=(), publickey-credentials-get=(), screen-wake-lock=(), serial=(), usb=(), \
     xr-spatial-tracking=()";

/// The policy of every `/api` answer: JSON is never a page, so a browser that renders one (a
/// member opening the URL, a response sniffed as HTML despite `nosniff`) may load and run
/// nothing, and no page may frame it. OWASP's REST Security Cheat Sheet asks this of APIs; the
/// app's longer policy and `Permissions-Policy` govern documents and would only add 435
/// bytes to each answer the balance path writes and every client reads.
pub const API_CSP: &str = "default-src 'none'; base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors 'none'";

/// One year, subdomains included (`gateway.secure_cookies` says the portal is on TLS).
pub const HSTS: &str = "max-age=31536000; includeSubDomains";

/// The headers, computed once from the settings.
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    csp: HeaderValue,
    hsts: bool,
}

impl SecurityHeaders {
    pub fn new(settings: &Settings) -> Self {
        let recaptcha = settings.recaptcha.kind == RecaptchaKind::Google
            && settings
                .recaptcha
                .site_key
                .as_deref()
                .is_some_and(|k| !k.trim().is_empty());
        Self {
            csp: HeaderValue::from_str(&content_security_policy(recaptcha))
                .expect("the policy is ascii"),
            hsts: settings.secure_cookies,
        }
    }

    fn apply(&self, headers: &mut HeaderMap, api: bool) {
        let csp = if api {
            HeaderValue::from_static(API_CSP)
        } else {
            self.csp.clone()
        };
        headers.insert(header::CONTENT_SECURITY_POLICY, csp);
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        // For browsers that predate CSP's frame-ancestors.
        headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        headers.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        );
        if !api {
            headers.insert(
                HeaderName::from_static("permissions-policy"),
                HeaderValue::from_static(PERMISSIONS_POLICY),
            );
        }
        if self.hsts {
            headers.insert(
                header::STRICT_TRANSPORT_SECURITY,
                HeaderValue::from_static(HSTS),
            );
        }
        if api && !headers.contains_key(header::CACHE_CONTROL) {
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
    }
}

/// The policy of the built web app: everything from the portal itself. Images may also be
/// `data:` (Vite inlines small ones). With a reCAPTCHA site key, Google's script and frame
/// origins are added, and inline styles, which Google's widget sets and documents as needed.
pub fn content_security_policy(recaptcha: bool) -> String {
    let (scripts, styles, frames) = if recaptcha {
        (
            format!("'self' {RECAPTCHA_SCRIPTS}"),
            "'self' 'unsafe-inline'",
            RECAPTCHA_FRAMES.to_owned(),
        )
    } else {
        ("'self'".to_owned(), "'self'", "'none'".to_owned())
    };
    format!(
        "default-src 'self'; script-src {scripts}; style-src {styles}; img-src 'self' data:; \
         font-src 'self'; connect-src 'self'; frame-src {frames}; frame-ancestors 'none'; \
         base-uri 'none'; form-action 'self'; object-src 'none'; manifest-src 'self'; \
         worker-src 'self'"
    )
}

/// Middleware: the headers on whatever the inner service answered.
pub async fn apply(
    State(headers): State<Arc<SecurityHeaders>>,
    request: Request,
    next: Next,
) -> Response {
    let api = request.uri().path() == "/api" || request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    headers.apply(response.headers_mut(), api);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn google_origins_are_in_the_policy_only_with_a_site_key() {
        let plain = content_security_policy(false);
        assert!(!plain.contains("google") && !plain.contains("unsafe-inline"));
        assert!(plain.contains("frame-src 'none'"));
        let with = content_security_policy(true);
        assert!(with.contains("script-src 'self' https://www.google.com/recaptcha/"));
        assert!(with.contains("frame-src https://www.google.com/recaptcha/"));
        assert!(!with.contains("script-src 'self' 'unsafe-inline'"));
    }
}
