//! The browser and operating system of a `User-Agent` header, as a member recognises them in
//! the list of their sessions ("Chrome", "Android").
//!
//! A small parser of our own rather than a crate: the tree has no user-agent crate, the ones
//! published carry a regex database of hundreds of kilobytes (uap-core) for device and version
//! detail the view does not show, and the view only needs the family names of the browsers and
//! systems members use. The order of the checks matters: many browsers claim to be others
//! ("Chrome … Safari", "Edg/ … Chrome"), so the most specific token is looked for first.
//! Anything unrecognised is `None`, which the web app shows as an unknown browser or system;
//! the header is the client's word and is never trusted beyond display.

/// Browser and system families of a user agent; `None` when not recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    pub browser: Option<&'static str>,
    pub os: Option<&'static str>,
}

/// The client's `User-Agent` as auth keeps it with sessions and security events: at most 512
/// bytes of it (auth keeps 256 characters), empty when absent or not text.
pub fn header(headers: &axum::http::HeaderMap) -> String {
    let value = headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let mut end = value.len().min(512);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    value[..end].to_owned()
}

/// Tokens that name a browser, the most specific first.
const BROWSERS: &[(&str, &str)] = &[
    ("EdgA/", "Edge"),
    ("EdgiOS/", "Edge"),
    ("Edg/", "Edge"),
    ("Edge/", "Edge"),
    ("OPR/", "Opera"),
    ("Opera", "Opera"),
    ("SamsungBrowser/", "Samsung Internet"),
    ("YaBrowser/", "Yandex"),
    ("Vivaldi/", "Vivaldi"),
    ("FxiOS/", "Firefox"),
    ("Firefox/", "Firefox"),
    ("CriOS/", "Chrome"),
    ("Chromium/", "Chromium"),
    ("HeadlessChrome/", "Chrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
    ("MSIE ", "Internet Explorer"),
    ("Trident/", "Internet Explorer"),
];

/// Tokens that name a system, the most specific first.
const SYSTEMS: &[(&str, &str)] = &[
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("iPod", "iOS"),
    ("Android", "Android"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Macintosh", "macOS"),
    ("Mac OS X", "macOS"),
    ("Linux", "Linux"),
];

/// The longest header read; the rest is ignored.
const MAX_LEN: usize = 512;

/// Parses a `User-Agent` header value.
pub fn parse(header: &str) -> Client {
    let header = match header.char_indices().nth(MAX_LEN) {
        Some((end, _)) => &header[..end],
        None => header,
    };
    let find = |table: &[(&str, &'static str)]| {
        table
            .iter()
            .find(|(token, _)| header.contains(token))
            .map(|(_, name)| *name)
    };
    Client {
        browser: find(BROWSERS),
        os: find(SYSTEMS),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(header: &str) -> (Option<&'static str>, Option<&'static str>) {
        let client = parse(header);
        (client.browser, client.os)
    }

    #[test]
    fn the_browsers_members_use_are_named_with_their_system() {
        let cases = [
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
                ("Chrome", "Windows"),
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
                ("Edge", "Windows"),
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
                ("Safari", "macOS"),
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
                ("Safari", "iOS"),
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
                ("Chrome", "iOS"),
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
                ("Samsung Internet", "Android"),
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
                ("Chrome", "Android"),
            ),
            (
                "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
                ("Firefox", "Linux"),
            ),
            (
                "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
                ("Chrome", "Linux"),
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0",
                ("Opera", "Windows"),
            ),
            (
                "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
                ("Chrome", "ChromeOS"),
            ),
        ];
        for (header, (browser, os)) in cases {
            assert_eq!(both(header), (Some(browser), Some(os)), "{header}");
        }
    }

    #[test]
    fn an_unknown_or_empty_header_names_nothing() {
        assert_eq!(both(""), (None, None));
        assert_eq!(both("curl/8.5.0"), (None, None));
        assert_eq!(both("okhttp/4.12.0"), (None, None));
    }

    #[test]
    fn a_huge_header_is_read_only_up_to_its_limit() {
        let header = format!("{}Firefox/1.0", "ñ".repeat(10_000));
        assert_eq!(both(&header), (None, None));
    }
}
