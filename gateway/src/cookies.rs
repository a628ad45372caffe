//! The cookies the gateway owns. Tokens live only in httpOnly cookies; `is-logged` is the one
//! readable by the web app and carries no secret.
//!
//! Over TLS (`gateway.secure_cookies`) every credential cookie is `Secure`, takes the `__Host-`
//! prefix and so `Path=/` with no `Domain`: a sibling subdomain or a plain-http page can then
//! neither set nor overwrite it (no session fixation by cookie tossing). Handlers keep using the
//! bare names: [`normalise_request`] hands them the prefixed cookies under those names and
//! drops unprefixed copies, which anyone could have planted.

use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};

/// Access token (JWT).
pub const SESSION_COOKIE: &str = "mc_session";
/// Refresh token; sent only to `/api`.
pub const REFRESH_COOKIE: &str = "mc_refresh";
/// Pending login (password accepted, code not yet).
pub const CHALLENGE_COOKIE: &str = "mc_challenge";
/// Pending password recovery (code sent, new password not yet set).
pub const RESET_COOKIE: &str = "mc_reset";
/// The only routes that read [`RESET_COOKIE`].
const RESET_PATH: &str = "/api/password-recovery";
/// Registration flow in progress (its id is the flow's only credential).
pub const REGISTRATION_COOKIE: &str = "mc_registration";
/// The only routes that read [`REGISTRATION_COOKIE`].
const REGISTRATION_PATH: &str = "/api/registration";
/// "true" while the member has a session (spec section 1).
pub const IS_LOGGED_COOKIE: &str = "is-logged";
/// "true" while the access cookie has at least [`FRESH_MARGIN_SECS`] left. A reloaded page that
/// sees it asks for the member's data at once instead of renewing the session first: the
/// browser drops it before the access cookie, so its presence alone says the access cookie still
/// works, whatever the device's clock says.
pub const SESSION_FRESH_COOKIE: &str = "session-fresh";
/// How long before the access cookie [`SESSION_FRESH_COOKIE`] expires.
pub const FRESH_MARGIN_SECS: i64 = 60;

fn seconds(secs: i64) -> cookie::time::Duration {
    cookie::time::Duration::seconds(secs.max(0))
}

/// The prefix a browser only accepts on a `Secure`, `Path=/`, host-only cookie.
pub const HOST_PREFIX: &str = "__Host-";

/// The credential cookies, prefixed over TLS. `is-logged` (read by the web app, no secret)
/// keeps its name.
pub const CREDENTIAL_COOKIES: [&str; 5] = [
    SESSION_COOKIE,
    REFRESH_COOKIE,
    CHALLENGE_COOKIE,
    RESET_COOKIE,
    REGISTRATION_COOKIE,
];

#[derive(Debug, Clone, Copy)]
pub struct CookiePolicy {
    pub secure: bool,
}

impl CookiePolicy {
    /// The name a credential cookie has in the browser.
    pub fn browser_name(&self, name: &str) -> String {
        if self.secure && CREDENTIAL_COOKIES.contains(&name) {
            format!("{HOST_PREFIX}{name}")
        } else {
            name.to_owned()
        }
    }

    fn build(
        &self,
        name: &'static str,
        value: String,
        path: &'static str,
        max_age: i64,
        http_only: bool,
        same_site: SameSite,
    ) -> Cookie<'static> {
        // `__Host-` requires `Path=/`; without TLS the narrower paths still apply.
        let path = if self.secure { "/" } else { path };
        Cookie::build((self.browser_name(name), value))
            .path(path)
            .http_only(http_only)
            .secure(self.secure)
            .same_site(same_site)
            .max_age(seconds(max_age))
            .build()
    }

    pub fn challenge(&self, jar: CookieJar, id: String, ttl: i64) -> CookieJar {
        jar.add(self.build(CHALLENGE_COOKIE, id, "/api", ttl, true, SameSite::Strict))
    }

    pub fn reset(&self, jar: CookieJar, id: String, ttl: i64) -> CookieJar {
        jar.add(self.build(RESET_COOKIE, id, RESET_PATH, ttl, true, SameSite::Strict))
    }

    pub fn registration(&self, jar: CookieJar, id: String, ttl: i64) -> CookieJar {
        jar.add(self.build(
            REGISTRATION_COOKIE,
            id,
            REGISTRATION_PATH,
            ttl,
            true,
            SameSite::Strict,
        ))
    }

    pub fn clear_registration(&self, jar: CookieJar) -> CookieJar {
        jar.add(self.build(
            REGISTRATION_COOKIE,
            String::new(),
            REGISTRATION_PATH,
            0,
            true,
            SameSite::Strict,
        ))
    }

    /// Expires the recovery cookie and, since a reset revokes every session, the session ones.
    pub fn clear_reset(&self, jar: CookieJar) -> CookieJar {
        self.clear_session(jar).add(self.build(
            RESET_COOKIE,
            String::new(),
            RESET_PATH,
            0,
            true,
            SameSite::Strict,
        ))
    }

    /// Sets the session cookies after a login or a refresh.
    pub fn session(
        &self,
        jar: CookieJar,
        access: String,
        access_ttl: i64,
        refresh: String,
        refresh_ttl: i64,
    ) -> CookieJar {
        jar.add(self.build(SESSION_COOKIE, access, "/", access_ttl, true, SameSite::Lax))
            .add(self.build(
                REFRESH_COOKIE,
                refresh,
                "/api",
                refresh_ttl,
                true,
                SameSite::Strict,
            ))
            .add(self.build(
                IS_LOGGED_COOKIE,
                "true".into(),
                "/",
                refresh_ttl,
                false,
                SameSite::Lax,
            ))
            .add(self.build(
                SESSION_FRESH_COOKIE,
                "true".into(),
                "/",
                access_ttl - FRESH_MARGIN_SECS,
                false,
                SameSite::Lax,
            ))
            .add(self.build(
                CHALLENGE_COOKIE,
                String::new(),
                "/api",
                0,
                true,
                SameSite::Strict,
            ))
    }

    /// Expires every session cookie.
    pub fn clear_session(&self, jar: CookieJar) -> CookieJar {
        jar.add(self.build(SESSION_COOKIE, String::new(), "/", 0, true, SameSite::Lax))
            .add(self.build(
                REFRESH_COOKIE,
                String::new(),
                "/api",
                0,
                true,
                SameSite::Strict,
            ))
            .add(self.build(
                IS_LOGGED_COOKIE,
                String::new(),
                "/",
                0,
                false,
                SameSite::Lax,
            ))
            .add(self.build(
                SESSION_FRESH_COOKIE,
                String::new(),
                "/",
                0,
                false,
                SameSite::Lax,
            ))
            .add(self.build(
                CHALLENGE_COOKIE,
                String::new(),
                "/api",
                0,
                true,
                SameSite::Strict,
            ))
    }
}

/// The request's cookie `name` as a `CookieJar` of the request would give it (the last cookie of
/// that name wins; percent-decoded), without building the jar. The access cookie is read on every
/// member request, and the jar copies and percent-decodes every cookie of the header and hashes
/// it into a set to answer one value: about 10,500 of the 146,000 instructions the portal added
/// to a balance request (`bench/instructions.sh`). A JWT holds no `%`, so the cookie is decoded
/// only when it does.
pub fn request_cookie(headers: &axum::http::HeaderMap, name: &str) -> Option<String> {
    let found = headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|piece| {
            let parsed = if piece.contains('%') {
                Cookie::parse_encoded(piece)
            } else {
                Cookie::parse(piece)
            };
            parsed.ok().filter(|cookie| cookie.name() == name)
        })
        .next_back()?;
    Some(found.value().to_owned())
}

/// Over TLS, the `Cookie` header as the handlers expect it: `__Host-mc_x` read as `mc_x`, and
/// an unprefixed `mc_x` (planted by a subdomain or over http) ignored.
pub async fn normalise_request(
    axum::extract::State(policy): axum::extract::State<CookiePolicy>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if policy.secure {
        rewrite_cookie_header(request.headers_mut());
    }
    next.run(request).await
}

/// Builds the new header in one string, moved into the `HeaderValue` without another copy:
/// production sends the member's JWT through here on every request, and a `String` per cookie,
/// a join and `HeaderValue::from_str` copied it three times (about 3,700 instructions of a
/// balance request, `APP_GATEWAY__SECURE_COOKIES=true bench/instructions.sh`).
fn rewrite_cookie_header(headers: &mut axum::http::HeaderMap) {
    use axum::http::{HeaderValue, header};
    let values = headers.get_all(header::COOKIE);
    let mut values = values.iter().peekable();
    if values.peek().is_none() {
        return;
    }
    let capacity = headers
        .get_all(header::COOKIE)
        .iter()
        .map(|v| v.len() + 2)
        .sum();
    let mut rewritten = String::with_capacity(capacity);
    let pairs = values
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .map(str::trim)
        .filter(|p| !p.is_empty());
    for pair in pairs {
        let name = cookie_name(pair);
        if CREDENTIAL_COOKIES.contains(&name) {
            tracing::debug!(cookie = name, "unprefixed credential cookie ignored");
            continue;
        }
        let kept = match pair.strip_prefix(HOST_PREFIX) {
            Some(bare) if CREDENTIAL_COOKIES.contains(&cookie_name(bare)) => bare,
            _ => pair,
        };
        if !rewritten.is_empty() {
            rewritten.push_str("; ");
        }
        rewritten.push_str(kept);
    }
    headers.remove(header::COOKIE);
    if let Ok(value) = HeaderValue::try_from(rewritten) {
        headers.insert(header::COOKIE, value);
    }
}

/// The name of a `name=value` pair, trimmed (the whole pair when it has no `=`).
fn cookie_name(pair: &str) -> &str {
    pair.split_once('=').map_or(pair, |(name, _)| name).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_tls_only_prefixed_credential_cookies_reach_the_handlers() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(
            "cookie",
            "mc_session=planted; __Host-mc_session=real; is-logged=true; __Host-other=x"
                .parse()
                .unwrap(),
        );
        rewrite_cookie_header(&mut headers);
        assert_eq!(
            headers["cookie"],
            "mc_session=real; is-logged=true; __Host-other=x"
        );
    }

    #[test]
    fn cookies_over_several_headers_become_one_header_in_order_with_the_same_rules() {
        let mut headers = axum::http::HeaderMap::new();
        headers.append("cookie", " a=1 ;; __Host-mc_refresh=r".parse().unwrap());
        headers.append("cookie", "mc_refresh=planted".parse().unwrap());
        headers.append(
            "cookie",
            axum::http::HeaderValue::from_bytes(b"b=\xff").unwrap(),
        );
        headers.append("cookie", "__Host-mc_session =t; c".parse().unwrap());
        rewrite_cookie_header(&mut headers);
        assert_eq!(headers.get_all("cookie").iter().count(), 1);
        assert_eq!(headers["cookie"], "a=1; mc_refresh=r; mc_session =t; c");

        let mut only_planted = axum::http::HeaderMap::new();
        only_planted.insert("cookie", "mc_session=planted".parse().unwrap());
        rewrite_cookie_header(&mut only_planted);
        assert_eq!(only_planted["cookie"], "");

        let mut none = axum::http::HeaderMap::new();
        rewrite_cookie_header(&mut none);
        assert!(none.is_empty());
    }

    #[test]
    fn a_request_cookie_reads_as_the_request_jar_would_give_it() {
        let headers_of = |values: &[&str]| {
            let mut headers = axum::http::HeaderMap::new();
            for value in values {
                headers.append("cookie", value.parse().unwrap());
            }
            headers
        };
        let cases: [&[&str]; 9] = [
            &["mc_session=abc.def-ghi_jkl"],
            &["is-logged=true; mc_session=token; session-fresh=true"],
            &["mc_session=first; mc_session=second"],
            &["mc_session=first", "other=1; mc_session=second"],
            &["mc_session=; is-logged=true"],
            &["mc_session=a%2Eb%20c"],
            &["mc_session=\"quoted\""],
            &["is-logged=true", "mc_sessionx=no; xmc_session=no"],
            &["garbage; =; mc_session"],
        ];
        for values in cases {
            let headers = headers_of(values);
            let jar = CookieJar::from_headers(&headers);
            assert_eq!(
                request_cookie(&headers, SESSION_COOKIE),
                jar.get(SESSION_COOKIE).map(|c| c.value().to_owned()),
                "{values:?}"
            );
        }
        assert_eq!(
            request_cookie(&headers_of(&["mc_session=a%2Eb"]), SESSION_COOKIE).as_deref(),
            Some("a.b")
        );
    }

    #[test]
    fn a_secure_credential_cookie_is_host_prefixed_at_the_root_path() {
        let policy = CookiePolicy { secure: true };
        let jar = policy.reset(CookieJar::new(), "r".into(), 60);
        let cookie = jar.get("__Host-mc_reset").expect("prefixed");
        assert_eq!(cookie.path(), Some("/"));
        assert_eq!(cookie.domain(), None);
        assert_eq!(cookie.secure(), Some(true));
        let jar = policy.session(CookieJar::new(), "a".into(), 60, "r".into(), 60);
        assert!(
            jar.get("is-logged").is_some(),
            "the web app reads is-logged by name"
        );
    }
}
