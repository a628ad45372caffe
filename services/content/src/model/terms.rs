//! Terms and conditions: a version label, a title, a plain-text body and the instant the
//! version comes into force.
//!
//! Versions are immutable once published: a change is a new version with a later
//! `published_at`, and the current terms are the newest version already in force. The texts
//! shipped with the service live in `data/terms/<version>.md` (first line `# Title`, then the
//! body, paragraphs separated by a blank line) and are listed in [`shipped_terms`].

use std::fmt;

use chrono::DateTime;

use crate::error::{ContentError, Result};

/// The longest title accepted, in characters.
const MAX_TITLE_CHARS: usize = 200;
/// The longest body accepted, in characters: several times any real terms text.
const MAX_BODY_CHARS: usize = 100_000;

/// The versions shipped with the service: (version, in force from, text).
const SHIPPED: &[(&str, &str, &str)] = &[(
    "2026-11-01",
    "2026-11-01T00:00:00-03:00",
    include_str!("../../data/terms/2026-11-01.md"),
)];

/// An opaque version label such as `2026-11-01`: 1 to 64 ASCII letters, digits, `-`, `_` or
/// `.`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TermsVersion(String);

impl TermsVersion {
    pub fn parse(raw: &str) -> Result<Self> {
        let valid = !raw.is_empty()
            && raw.len() <= 64
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
        if valid {
            Ok(Self(raw.to_owned()))
        } else {
            Err(ContentError::invalid(
                "version",
                "not a valid version label",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TermsVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One version of the terms and conditions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Terms {
    pub version: TermsVersion,
    /// One line, 1 to 200 characters, trimmed.
    pub title: String,
    /// Plain text, paragraphs separated by a blank line; `\n` line ends, trimmed, non-empty.
    pub body: String,
    /// When the version comes into force, Unix milliseconds.
    pub published_at: i64,
}

impl Terms {
    /// Validates and normalises a version: line ends become `\n`, title and body are trimmed.
    pub fn new(version: TermsVersion, title: &str, body: &str, published_at: i64) -> Result<Self> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS || title.contains('\n') {
            return Err(ContentError::invalid(
                "title",
                "must be one line of 1 to 200 characters",
            ));
        }
        let body = body.replace("\r\n", "\n");
        let body = body.trim();
        if body.is_empty() || body.chars().count() > MAX_BODY_CHARS {
            return Err(ContentError::invalid(
                "body",
                "must have 1 to 100000 characters",
            ));
        }
        Ok(Self {
            version,
            title: title.to_owned(),
            body: body.to_owned(),
            published_at,
        })
    }

    /// Reads a text in the `data/terms/` format: `# Title` on the first line, then the body.
    pub fn from_text(version: TermsVersion, published_at: i64, text: &str) -> Result<Self> {
        let text = text.trim_start_matches('\u{feff}');
        let (first, body) = text.split_once('\n').unwrap_or((text, ""));
        let title =
            first
                .trim_end_matches('\r')
                .strip_prefix("# ")
                .ok_or(ContentError::invalid(
                    "title",
                    "first line must be `# Title`",
                ))?;
        Self::new(version, title, body, published_at)
    }
}

/// The versions shipped in `data/terms/`, oldest first.
pub fn shipped_terms() -> Vec<Terms> {
    SHIPPED
        .iter()
        .map(|(version, published_at, text)| {
            let version = TermsVersion::parse(version).expect("shipped version label is valid");
            let published_at = DateTime::parse_from_rfc3339(published_at)
                .expect("shipped publication instant is RFC 3339")
                .timestamp_millis();
            Terms::from_text(version, published_at, text).expect("shipped terms are valid")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(raw: &str) -> TermsVersion {
        TermsVersion::parse(raw).unwrap()
    }

    #[test]
    fn the_shipped_terms_are_the_november_2026_version_in_force_from_chilean_midnight() {
        let shipped = shipped_terms();
        assert_eq!(shipped.len(), 1);
        let terms = &shipped[0];
        assert_eq!(terms.version.as_str(), "2026-11-01");
        assert_eq!(terms.title, "Términos y condiciones de Mi Club");
        // 2026-11-01T00:00:00-03:00 is 03:00 UTC.
        assert_eq!(terms.published_at, 1_793_502_000_000);
    }

    #[test]
    fn the_shipped_body_is_plain_paragraphs_covering_what_members_must_know() {
        let body = &shipped_terms()[0].body;
        let paragraphs: Vec<&str> = body.split("\n\n").collect();
        assert!(
            (8..=12).contains(&paragraphs.len()),
            "{} paragraphs",
            paragraphs.len()
        );
        for paragraph in &paragraphs {
            assert!(!paragraph.trim().is_empty());
            assert!(!paragraph.starts_with('#'), "markdown heading in the body");
            assert!(!paragraph.contains('\n'), "a paragraph is one line");
        }
        for needle in ["18 años", "pendientes", "12 meses", "19.628", "Contacto"] {
            assert!(body.contains(needle), "body does not mention {needle:?}");
        }
    }

    #[test]
    fn a_text_without_a_title_line_is_refused() {
        let err = Terms::from_text(version("v1"), 0, "Sin título\n\nCuerpo").unwrap_err();
        assert!(matches!(err, ContentError::Invalid { field: "title", .. }));
    }

    #[test]
    fn windows_line_ends_are_normalised_and_the_text_trimmed() {
        let terms =
            Terms::from_text(version("v1"), 0, "# Título\r\n\r\nUno.\r\n\r\nDos.\r\n").unwrap();
        assert_eq!(terms.title, "Título");
        assert_eq!(terms.body, "Uno.\n\nDos.");
    }

    #[test]
    fn an_empty_body_or_title_is_refused() {
        assert!(Terms::new(version("v1"), "Título", "  \n ", 0).is_err());
        assert!(Terms::new(version("v1"), " ", "Cuerpo", 0).is_err());
        assert!(Terms::new(version("v1"), &"x".repeat(201), "Cuerpo", 0).is_err());
    }

    #[test]
    fn a_version_label_is_short_and_plain() {
        assert_eq!(version("2026-11-01").to_string(), "2026-11-01");
        assert!(TermsVersion::parse("").is_err());
        assert!(TermsVersion::parse("2026 11").is_err());
        assert!(TermsVersion::parse(&"9".repeat(65)).is_err());
    }
}
