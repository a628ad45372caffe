//! The cookies the gateway owns. Tokens live only in httpOnly cookies; `is-logged` is the one
//! readable by the web app and carries no secret.
//!
//! Over TLS (`gateway.secure_cookies`) every credential cookie is `Secure`, takes the `__Host-`
//! prefix and so `Path=/` with no `Domain`: a sibling subdomain or a plain-http page can then
//! neither set nor overwrite it (no session fixation by cookie tossing). Handlers name cookies
//! by their bare names and read them through the policy ([`CookiePolicy::value`],
//! [`CookiePolicy::request_value`]), which then reads only the prefixed cookie: an unprefixed
//! copy, which anyone could have planted, is never read. (The request's `Cookie` header used to
//! be rewritten for the handlers instead, which copied and scanned it once more per request.)

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

/// [`CREDENTIAL_COOKIES`] with [`HOST_PREFIX`], in the same order.
static PREFIXED: std::sync::LazyLock<[String; 5]> =
    std::sync::LazyLock::new(|| CREDENTIAL_COOKIES.map(|name| format!("{HOST_PREFIX}{name}")));

impl CookiePolicy {
    /// The name a credential cookie has in the browser.
    pub fn browser_name<'a>(&self, name: &'a str) -> &'a str {
        match CREDENTIAL_COOKIES
            .iter()
            .position(|credential| *credential == name)
        {
            Some(index) if self.secure => &PREFIXED[index],
            _ => name,
        }
    }

    /// The value of the browser's cookie `name` (a bare name), when it is not empty.
    pub fn value(&self, jar: &CookieJar, name: &str) -> Option<String> {
        jar.get(self.browser_name(name))
            .map(|cookie| cookie.value().to_owned())
            .filter(|value| !value.is_empty())
    }

    /// [`Self::value`] read from the request's headers without building a jar: see
    /// [`request_cookie`].
    pub fn request_value(&self, headers: &axum::http::HeaderMap, name: &str) -> Option<String> {
        request_cookie(headers, self.browser_name(name)).filter(|value| !value.is_empty())
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
        Cookie::build((self.browser_name(name).to_owned(), value))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_tls_only_prefixed_credential_cookies_are_read() {
        let mut headers = axum::http::HeaderMap::new();
        headers.append(
            "cookie",
            "mc_session=planted; __Host-mc_session=real; is-logged=true"
                .parse()
                .unwrap(),
        );
        headers.append(
            "cookie",
            "mc_refresh=planted; mc_session=planted-later"
                .parse()
                .unwrap(),
        );
        let jar = CookieJar::from_headers(&headers);
        let tls = CookiePolicy { secure: true };
        assert_eq!(
            tls.request_value(&headers, SESSION_COOKIE).as_deref(),
            Some("real")
        );
        assert_eq!(tls.value(&jar, SESSION_COOKIE).as_deref(), Some("real"));
        assert_eq!(tls.value(&jar, REFRESH_COOKIE), None, "only a planted copy");
        assert_eq!(tls.value(&jar, IS_LOGGED_COOKIE).as_deref(), Some("true"));

        let plain = CookiePolicy { secure: false };
        assert_eq!(
            plain.request_value(&headers, SESSION_COOKIE).as_deref(),
            Some("planted-later")
        );
        assert_eq!(
            plain.value(&jar, REFRESH_COOKIE).as_deref(),
            Some("planted")
        );
    }

    #[test]
    fn an_empty_credential_cookie_reads_as_none() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert("cookie", "__Host-mc_challenge=; mc_reset=".parse().unwrap());
        let jar = CookieJar::from_headers(&headers);
        assert_eq!(
            CookiePolicy { secure: true }.value(&jar, CHALLENGE_COOKIE),
            None
        );
        assert_eq!(
            CookiePolicy { secure: false }.value(&jar, RESET_COOKIE),
            None
        );
        assert_eq!(
            CookiePolicy { secure: true }.request_value(&headers, CHALLENGE_COOKIE),
            None
        );
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
