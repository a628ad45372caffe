//! The portal's catalog: promotions, partner benefits (alianzas), campaign banners and FAQs.
//!
//! Each kind has a plain `…Fields` struct (what the seed files and the internal Upsert calls
//! carry) and a validated wrapper built only by `new`, which trims the texts, writes dates in
//! canonical ISO form and refuses what the portal cannot show: an empty title, an end before
//! the start, an image or link that is neither an absolute https URL nor a path under the
//! portal. The wrapper derefs to its fields for reading. Refusals name the field as the REST
//! API spells it (camelCase) with a Spanish message an operator can act on.

use std::ops::Deref;
use std::sync::LazyLock;

use chrono::NaiveDate;
use serde::Deserialize;

use crate::error::{ContentError, Result};

/// Longest id, in characters.
const MAX_ID_CHARS: usize = 64;
/// Longest one-line text (titles, partner names, badges, questions), in characters.
const MAX_LINE_CHARS: usize = 200;
/// Longest free text (descriptions, conditions, answers), in characters.
const MAX_TEXT_CHARS: usize = 4_000;
/// Longest URL, in characters.
const MAX_URL_CHARS: usize = 2_000;

/// Whether a text may be empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Presence {
    Required,
    Optional,
}

/// A catalog id: 1 to 64 lowercase ASCII letters, digits, `-` or `_` (it names image files).
fn id(raw: &str) -> Result<String> {
    let valid = !raw.is_empty()
        && raw.len() <= MAX_ID_CHARS
        && raw
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_'));
    if valid {
        Ok(raw.to_owned())
    } else {
        Err(ContentError::invalid_input(
            "id",
            "El identificador debe tener de 1 a 64 letras minúsculas, dígitos, guiones o guiones bajos.",
        ))
    }
}

/// One line of text, trimmed.
fn line(field: &'static str, raw: &str, presence: Presence) -> Result<String> {
    let value = raw.trim();
    if presence == Presence::Required && value.is_empty() {
        return Err(ContentError::invalid_input(
            field,
            "Este campo es obligatorio.",
        ));
    }
    if value.contains('\n') || value.contains('\r') {
        return Err(ContentError::invalid_input(
            field,
            "Este campo debe ser de una sola línea.",
        ));
    }
    if value.chars().count() > MAX_LINE_CHARS {
        return Err(ContentError::invalid_input(
            field,
            "Este campo admite hasta 200 caracteres.",
        ));
    }
    Ok(value.to_owned())
}

/// Free text, paragraphs separated by a blank line; `\n` line ends, trimmed.
fn text(field: &'static str, raw: &str, presence: Presence) -> Result<String> {
    let value = raw.replace("\r\n", "\n");
    let value = value.trim();
    if presence == Presence::Required && value.is_empty() {
        return Err(ContentError::invalid_input(
            field,
            "Este campo es obligatorio.",
        ));
    }
    if value.chars().count() > MAX_TEXT_CHARS {
        return Err(ContentError::invalid_input(
            field,
            "Este campo admite hasta 4000 caracteres.",
        ));
    }
    Ok(value.to_owned())
}

/// An absolute `https` URL, or a path under the portal (`/images/…`, not `//host`).
fn url(field: &'static str, raw: &str, presence: Presence) -> Result<String> {
    let value = raw.trim();
    if value.is_empty() {
        return match presence {
            Presence::Optional => Ok(String::new()),
            Presence::Required => Err(ContentError::invalid_input(
                field,
                "Este campo es obligatorio.",
            )),
        };
    }
    let valid = value.chars().count() <= MAX_URL_CHARS
        && !value.chars().any(char::is_whitespace)
        && (portal_path(value)
            || url::Url::parse(value)
                .is_ok_and(|parsed| parsed.scheme() == "https" && parsed.host().is_some()));
    if valid {
        Ok(value.to_owned())
    } else {
        Err(ContentError::invalid_input(
            field,
            "Usa una dirección https completa o una ruta del portal que empiece con «/».",
        ))
    }
}

/// Whether `value` is a path under the portal where a browser resolves it. One leading `/` is
/// not enough: the URL parser reads `\` as `/`, so `/\evil.example` is the protocol-relative
/// `//evil.example`, another host, which the web app would follow as one of its own routes. A
/// `\` anywhere is refused too: no route of the portal has one.
fn portal_path(value: &str) -> bool {
    static PORTAL: LazyLock<url::Url> =
        LazyLock::new(|| url::Url::parse("https://portal.invalid/").expect("a valid base"));
    value.starts_with('/')
        && !value.contains('\\')
        && PORTAL
            .join(value)
            .is_ok_and(|resolved| resolved.origin() == PORTAL.origin())
}

/// A real calendar date written in full, `YYYY-MM-DD`: that form orders correctly as text, and
/// the store compares dates so.
fn date(field: &'static str, raw: &str) -> Result<String> {
    let raw = raw.trim();
    NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .ok()
        .map(|date| date.format("%Y-%m-%d").to_string())
        .filter(|canonical| canonical == raw)
        .ok_or(ContentError::invalid_input(
            field,
            "Usa una fecha con el formato AAAA-MM-DD.",
        ))
}

/// Inclusive dates: the end may be the start, never before it.
fn ordered(starts_on: &str, ends_on: &str) -> Result<()> {
    if ends_on < starts_on {
        return Err(ContentError::invalid_input(
            "endsOn",
            "La fecha de término no puede ser anterior a la de inicio.",
        ));
    }
    Ok(())
}

/// A promotion as written in `data/promotions.toml` or sent to `UpsertPromotion`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromotionFields {
    pub id: String,
    pub title: String,
    pub description: String,
    pub image_url: String,
    /// Where "Ver promoción" leads; empty for none.
    #[serde(default)]
    pub link_url: String,
    /// Short label, e.g. "2x1"; may be empty.
    #[serde(default)]
    pub badge: String,
    pub starts_on: String,
    pub ends_on: String,
    pub position: i32,
}

/// A valid promotion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Promotion(PromotionFields);

impl Promotion {
    /// Checks the fields in form order, so the first bad one is the one named.
    pub fn new(fields: PromotionFields) -> Result<Self> {
        let valid = PromotionFields {
            id: id(&fields.id)?,
            title: line("title", &fields.title, Presence::Required)?,
            description: text("description", &fields.description, Presence::Required)?,
            image_url: url("imageUrl", &fields.image_url, Presence::Required)?,
            link_url: url("linkUrl", &fields.link_url, Presence::Optional)?,
            badge: line("badge", &fields.badge, Presence::Optional)?,
            starts_on: date("startsOn", &fields.starts_on)?,
            ends_on: date("endsOn", &fields.ends_on)?,
            position: fields.position,
        };
        ordered(&valid.starts_on, &valid.ends_on)?;
        Ok(Self(valid))
    }
}

impl Deref for Promotion {
    type Target = PromotionFields;

    fn deref(&self) -> &PromotionFields {
        &self.0
    }
}

/// A partner benefit as written in `data/alliances.toml` or sent to `UpsertAlliance`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllianceFields {
    pub id: String,
    /// e.g. "Tarjeta Lider BCI".
    pub partner: String,
    pub title: String,
    pub description: String,
    pub image_url: String,
    #[serde(default)]
    pub link_url: String,
    /// Small print; may be empty.
    #[serde(default)]
    pub conditions: String,
    pub starts_on: String,
    pub ends_on: String,
    pub position: i32,
}

/// A valid partner benefit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alliance(AllianceFields);

impl Alliance {
    /// Checks the fields in form order, so the first bad one is the one named.
    pub fn new(fields: AllianceFields) -> Result<Self> {
        let valid = AllianceFields {
            id: id(&fields.id)?,
            partner: line("partner", &fields.partner, Presence::Required)?,
            title: line("title", &fields.title, Presence::Required)?,
            description: text("description", &fields.description, Presence::Required)?,
            image_url: url("imageUrl", &fields.image_url, Presence::Required)?,
            link_url: url("linkUrl", &fields.link_url, Presence::Optional)?,
            conditions: text("conditions", &fields.conditions, Presence::Optional)?,
            starts_on: date("startsOn", &fields.starts_on)?,
            ends_on: date("endsOn", &fields.ends_on)?,
            position: fields.position,
        };
        ordered(&valid.starts_on, &valid.ends_on)?;
        Ok(Self(valid))
    }
}

impl Deref for Alliance {
    type Target = AllianceFields;

    fn deref(&self) -> &AllianceFields {
        &self.0
    }
}

/// A campaign banner as written in `data/banners.toml` or sent to `UpsertBanner`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BannerFields {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub subtitle: String,
    pub image_url: String,
    /// Alternative text of the image, required: the banner must make sense without it.
    pub image_alt: String,
    #[serde(default)]
    pub link_url: String,
    pub starts_on: String,
    pub ends_on: String,
    pub position: i32,
}

/// A valid banner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Banner(BannerFields);

impl Banner {
    /// Checks the fields in form order, so the first bad one is the one named.
    pub fn new(fields: BannerFields) -> Result<Self> {
        let valid = BannerFields {
            id: id(&fields.id)?,
            title: line("title", &fields.title, Presence::Required)?,
            subtitle: line("subtitle", &fields.subtitle, Presence::Optional)?,
            image_url: url("imageUrl", &fields.image_url, Presence::Required)?,
            image_alt: line("imageAlt", &fields.image_alt, Presence::Required)?,
            link_url: url("linkUrl", &fields.link_url, Presence::Optional)?,
            starts_on: date("startsOn", &fields.starts_on)?,
            ends_on: date("endsOn", &fields.ends_on)?,
            position: fields.position,
        };
        ordered(&valid.starts_on, &valid.ends_on)?;
        Ok(Self(valid))
    }
}

impl Deref for Banner {
    type Target = BannerFields;

    fn deref(&self) -> &BannerFields {
        &self.0
    }
}

/// Who a FAQ is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FaqAudience {
    /// The club's general FAQs.
    General,
    /// Shown at `/preguntas-login`.
    Login,
}

impl FaqAudience {
    /// The stored (and seed file) spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FaqAudience::General => "general",
            FaqAudience::Login => "login",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "general" => Some(FaqAudience::General),
            "login" => Some(FaqAudience::Login),
            _ => None,
        }
    }
}

/// A FAQ as written in `data/faqs.toml` or sent to `UpsertFaq`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaqFields {
    pub id: String,
    pub audience: FaqAudience,
    pub question: String,
    /// Plain text; paragraphs separated by a blank line.
    pub answer: String,
    pub position: i32,
}

/// A valid FAQ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Faq(FaqFields);

impl Faq {
    pub fn new(fields: FaqFields) -> Result<Self> {
        Ok(Self(FaqFields {
            id: id(&fields.id)?,
            audience: fields.audience,
            question: line("question", &fields.question, Presence::Required)?,
            answer: text("answer", &fields.answer, Presence::Required)?,
            position: fields.position,
        }))
    }
}

impl Deref for Faq {
    type Target = FaqFields;

    fn deref(&self) -> &FaqFields {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn promotion() -> PromotionFields {
        PromotionFields {
            id: "carnes-parrilla".into(),
            title: "  20% en carnes  ".into(),
            description: "Para la parrilla.\r\n\r\nTodo el mes.".into(),
            image_url: "/images/promociones/carnes-parrilla.svg".into(),
            link_url: "https://www.lider.cl/carnes".into(),
            badge: "20% dcto.".into(),
            starts_on: "2026-01-01".into(),
            ends_on: "2027-12-31".into(),
            position: 1,
        }
    }

    fn refusal(err: ContentError) -> &'static str {
        match err {
            ContentError::InvalidInput { field, .. } => field,
            other => panic!("expected an invalid input, got {other:?}"),
        }
    }

    #[test]
    fn a_valid_promotion_is_trimmed_and_normalised() {
        let promotion = Promotion::new(promotion()).unwrap();
        assert_eq!(promotion.title, "20% en carnes");
        assert_eq!(promotion.description, "Para la parrilla.\n\nTodo el mes.");
        assert_eq!(promotion.starts_on, "2026-01-01");
    }

    #[test]
    fn an_empty_title_is_refused_naming_the_field() {
        let fields = PromotionFields {
            title: "   ".into(),
            ..promotion()
        };
        assert_eq!(refusal(Promotion::new(fields).unwrap_err()), "title");
    }

    #[test]
    fn an_end_before_the_start_is_refused_and_a_one_day_range_is_accepted() {
        let backwards = PromotionFields {
            starts_on: "2026-05-02".into(),
            ends_on: "2026-05-01".into(),
            ..promotion()
        };
        assert_eq!(refusal(Promotion::new(backwards).unwrap_err()), "endsOn");
        let one_day = PromotionFields {
            starts_on: "2026-05-01".into(),
            ends_on: "2026-05-01".into(),
            ..promotion()
        };
        assert!(Promotion::new(one_day).is_ok());
    }

    #[test]
    fn dates_must_be_real_and_written_in_full() {
        for (starts_on, field) in [
            ("2026-02-30", "startsOn"),
            ("2026-1-01", "startsOn"),
            ("01-01-2026", "startsOn"),
            ("", "startsOn"),
        ] {
            let fields = PromotionFields {
                starts_on: starts_on.into(),
                ..promotion()
            };
            assert_eq!(
                refusal(Promotion::new(fields).unwrap_err()),
                field,
                "{starts_on:?}"
            );
        }
    }

    #[test]
    fn urls_are_absolute_https_or_portal_paths() {
        for good in [
            "/images/promociones/x.svg",
            "https://www.lider.cl/promociones?x=1",
        ] {
            let fields = PromotionFields {
                image_url: good.into(),
                ..promotion()
            };
            assert!(Promotion::new(fields).is_ok(), "{good}");
        }
        for bad in [
            "http://www.lider.cl/x.svg",
            "//evil.example/x.svg",
            "/\\evil.example/x.svg",
            "/\\/evil.example/x.svg",
            "/images\\x.svg",
            "images/x.svg",
            "javascript:alert(1)",
            "https://",
            "/images/con espacio.svg",
            "",
        ] {
            let fields = PromotionFields {
                image_url: bad.into(),
                ..promotion()
            };
            assert_eq!(
                refusal(Promotion::new(fields).unwrap_err()),
                "imageUrl",
                "{bad}"
            );
        }
        let without_link = PromotionFields {
            link_url: String::new(),
            ..promotion()
        };
        assert_eq!(Promotion::new(without_link).unwrap().link_url, "");
    }

    #[test]
    fn ids_are_plain_lowercase_slugs() {
        for bad in ["", "Carnes", "carnes parrilla", "../x", &"x".repeat(65)] {
            let fields = PromotionFields {
                id: bad.into(),
                ..promotion()
            };
            assert_eq!(refusal(Promotion::new(fields).unwrap_err()), "id", "{bad}");
        }
    }

    #[test]
    fn a_banner_needs_the_alternative_text_of_its_image() {
        let fields = BannerFields {
            id: "acumula".into(),
            title: "Acumula 0,8% en todas tus compras".into(),
            subtitle: String::new(),
            image_url: "/images/banners/acumula.svg".into(),
            image_alt: " ".into(),
            link_url: String::new(),
            starts_on: "2026-01-01".into(),
            ends_on: "2027-12-31".into(),
            position: 1,
        };
        assert_eq!(refusal(Banner::new(fields).unwrap_err()), "imageAlt");
    }

    #[test]
    fn a_faq_needs_a_one_line_question_and_an_answer() {
        let fields = FaqFields {
            id: "clave".into(),
            audience: FaqAudience::Login,
            question: "¿Cómo recupero\nmi contraseña?".into(),
            answer: "Así.".into(),
            position: 1,
        };
        assert_eq!(refusal(Faq::new(fields.clone()).unwrap_err()), "question");
        let no_answer = FaqFields {
            question: "¿Cómo recupero mi contraseña?".into(),
            answer: "".into(),
            ..fields
        };
        assert_eq!(refusal(Faq::new(no_answer).unwrap_err()), "answer");
    }

    #[test]
    fn audiences_round_trip_through_their_stored_spelling() {
        for audience in [FaqAudience::General, FaqAudience::Login] {
            assert_eq!(FaqAudience::parse(audience.as_str()), Some(audience));
        }
        assert_eq!(FaqAudience::parse("otro"), None);
    }
}
