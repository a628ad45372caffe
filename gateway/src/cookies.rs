//! The cookies the gateway owns. Tokens live only in httpOnly cookies; `is-logged` is the one
//! readable by the web app and carries no secret.

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

fn seconds(secs: i64) -> cookie::time::Duration {
    cookie::time::Duration::seconds(secs.max(0))
}

#[derive(Debug, Clone, Copy)]
pub struct CookiePolicy {
    pub secure: bool,
}

impl CookiePolicy {
    fn build(
        &self,
        name: &'static str,
        value: String,
        path: &'static str,
        max_age: i64,
        http_only: bool,
        same_site: SameSite,
    ) -> Cookie<'static> {
        Cookie::build((name, value))
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
                CHALLENGE_COOKIE,
                String::new(),
                "/api",
                0,
                true,
                SameSite::Strict,
            ))
    }
}
