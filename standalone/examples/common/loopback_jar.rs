//! A cookie store for test and bench clients of a portal on `http://127.0.0.1`: reqwest's jar,
//! with loopback treated as a secure origin as browsers treat it, so the production gateway's
//! `Secure`, `__Host-` cookies are kept and sent back as Chromium would send them.

/// reqwest's jar, with loopback as a secure origin.
#[derive(Default)]
pub struct LoopbackJar(reqwest::cookie::Jar);

fn as_secure(url: &reqwest::Url) -> reqwest::Url {
    let mut secure = url.clone();
    if secure.scheme() == "http" && matches!(secure.host_str(), Some("127.0.0.1" | "localhost")) {
        let _ = secure.set_scheme("https");
    }
    secure
}

impl reqwest::cookie::CookieStore for LoopbackJar {
    fn set_cookies(
        &self,
        cookie_headers: &mut dyn Iterator<Item = &reqwest::header::HeaderValue>,
        url: &reqwest::Url,
    ) {
        self.0.set_cookies(cookie_headers, &as_secure(url));
    }

    fn cookies(&self, url: &reqwest::Url) -> Option<reqwest::header::HeaderValue> {
        self.0.cookies(&as_secure(url))
    }
}
