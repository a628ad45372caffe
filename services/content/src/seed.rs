//! The catalog and flags shipped with the service, from `data/*.toml` compiled into the binary,
//! or from the same files in `content.seed_dir` (a ConfigMap in Kubernetes).
//!
//! Start-up stores every shipped row whose id the database lacks (see
//! [`Content::seed_shipped`](crate::domain::Content::seed_shipped)); rows that exist are never
//! rewritten, so an operator's change through the internal API survives a restart and a new
//! release. A shipped file that does not parse or validate is a bug caught by this module's
//! tests, never a start-up surprise.

use std::borrow::Cow;
use std::path::Path;

use serde::Deserialize;

use crate::error::Result;
use crate::model::{
    Alliance, AllianceFields, Banner, BannerFields, Faq, FaqFields, Flags, Promotion,
    PromotionFields,
};

const PROMOTIONS: &str = include_str!("../data/promotions.toml");
const ALLIANCES: &str = include_str!("../data/alliances.toml");
const BANNERS: &str = include_str!("../data/banners.toml");
const FAQS: &str = include_str!("../data/faqs.toml");
const FLAGS: &str = include_str!("../data/flags.toml");

/// Everything shipped in `data/`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shipped {
    pub promotions: Vec<Promotion>,
    pub alliances: Vec<Alliance>,
    pub banners: Vec<Banner>,
    pub faqs: Vec<Faq>,
    /// The values a fresh database starts with.
    pub flags: Flags,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PromotionsFile {
    promotions: Vec<PromotionFields>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AlliancesFile {
    alliances: Vec<AllianceFields>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BannersFile {
    banners: Vec<BannerFields>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FaqsFile {
    faqs: Vec<FaqFields>,
}

/// The shipped files, parsed and validated.
pub fn shipped() -> anyhow::Result<Shipped> {
    shipped_from(None)
}

/// The seed files read from `dir` (`content.seed_dir`, the `content-seed` ConfigMap in
/// Kubernetes, so ops change the catalog's seed without a new image), or the compiled-in ones
/// without it. A file that is missing, does not parse or does not validate stops the start.
pub fn shipped_from(dir: Option<&Path>) -> anyhow::Result<Shipped> {
    let read = |file: &str, builtin: &'static str| -> anyhow::Result<Cow<'static, str>> {
        match dir {
            None => Ok(Cow::Borrowed(builtin)),
            Some(dir) => std::fs::read_to_string(dir.join(file))
                .map(Cow::Owned)
                .map_err(|err| anyhow::anyhow!("reading {}: {err}", dir.join(file).display())),
        }
    };
    let promotions: PromotionsFile =
        parse("promotions.toml", &read("promotions.toml", PROMOTIONS)?)?;
    let alliances: AlliancesFile = parse("alliances.toml", &read("alliances.toml", ALLIANCES)?)?;
    let banners: BannersFile = parse("banners.toml", &read("banners.toml", BANNERS)?)?;
    let faqs: FaqsFile = parse("faqs.toml", &read("faqs.toml", FAQS)?)?;
    let flags = read("flags.toml", FLAGS)?;
    Ok(Shipped {
        promotions: validate("promotions.toml", promotions.promotions, Promotion::new)?,
        alliances: validate("alliances.toml", alliances.alliances, Alliance::new)?,
        banners: validate("banners.toml", banners.banners, Banner::new)?,
        faqs: validate("faqs.toml", faqs.faqs, Faq::new)?,
        flags: parse("flags.toml", &flags)?,
    })
}

fn parse<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> anyhow::Result<T> {
    toml::from_str(text).map_err(|err| anyhow::anyhow!("data/{file}: {err}"))
}

fn validate<F, T>(
    file: &str,
    rows: Vec<F>,
    new: impl Fn(F) -> Result<T>,
) -> anyhow::Result<Vec<T>> {
    rows.into_iter()
        .enumerate()
        .map(|(index, row)| {
            new(row).map_err(|err| anyhow::anyhow!("data/{file} entry {index}: {err}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::model::FaqAudience;

    #[test]
    fn the_seed_folder_of_the_config_map_reads_as_the_compiled_in_files() {
        let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
        assert_eq!(shipped_from(Some(&data)).unwrap(), shipped().unwrap());
        let missing = shipped_from(Some(Path::new("/nonexistent"))).unwrap_err();
        assert!(missing.to_string().contains("promotions.toml"), "{missing}");
    }

    fn unique<'a>(ids: impl Iterator<Item = &'a str>) -> bool {
        let ids: Vec<&str> = ids.collect();
        ids.iter().collect::<HashSet<_>>().len() == ids.len()
    }

    #[test]
    fn the_shipped_files_parse_and_validate_with_unique_ids() {
        let shipped = shipped().unwrap();
        assert!((4..=6).contains(&shipped.promotions.len()));
        assert!((3..=4).contains(&shipped.alliances.len()));
        assert!(unique(shipped.promotions.iter().map(|p| p.id.as_str())));
        assert!(unique(shipped.alliances.iter().map(|a| a.id.as_str())));
        assert!(unique(shipped.banners.iter().map(|b| b.id.as_str())));
        assert!(unique(shipped.faqs.iter().map(|f| f.id.as_str())));
    }

    #[test]
    fn shipped_images_live_under_the_portal_folder_of_their_kind_named_by_id() {
        let shipped = shipped().unwrap();
        for p in &shipped.promotions {
            assert_eq!(p.image_url, format!("/images/promociones/{}.svg", p.id));
        }
        for a in &shipped.alliances {
            assert_eq!(a.image_url, format!("/images/alianzas/{}.svg", a.id));
        }
        for b in &shipped.banners {
            assert_eq!(b.image_url, format!("/images/banners/{}.svg", b.id));
        }
    }

    #[test]
    fn the_banners_name_the_club_figures_and_each_special_day() {
        let titles: Vec<String> = shipped()
            .unwrap()
            .banners
            .iter()
            .map(|b| b.title.clone())
            .collect();
        for needle in [
            "Acumula 0,8% en todas tus compras",
            "0,9% pagando con tu Tarjeta Lider BCI",
            "Lunes 6% de descuento con Tarjeta Lider BCI",
            "Martes",
            "Miércoles",
            "Viernes",
            "Sábado",
        ] {
            assert!(
                titles.iter().any(|title| title.starts_with(needle)),
                "no banner titled {needle:?}"
            );
        }
    }

    #[test]
    fn the_copy_tells_one_truth_about_the_monday_discount_and_the_recovery_code() {
        let shipped = shipped().unwrap();
        // The rule file makes the Monday bank-card offer a discount, never accumulation ...
        let rules = miclub_accrual::RuleSet::builtin();
        let monday = rules
            .discounts()
            .iter()
            .find(|d| d.weekdays() == Some(&[chrono::Weekday::Mon][..]))
            .expect("the monday discount");
        assert_eq!(monday.rate_bp(), 600);
        assert!(rules.rules().iter().all(|r| r.rate_bp() < 600));
        // ... and so does every text a member reads.
        let mut texts: Vec<String> = Vec::new();
        for b in &shipped.banners {
            texts.extend([b.title.clone(), b.subtitle.clone(), b.image_alt.clone()]);
        }
        for a in &shipped.alliances {
            texts.extend([a.title.clone(), a.description.clone(), a.conditions.clone()]);
        }
        for f in &shipped.faqs {
            texts.extend([f.question.clone(), f.answer.clone()]);
        }
        for text in &texts {
            let lower = text.to_lowercase();
            if lower.contains("6%") {
                assert!(
                    lower.contains("6% de descuento"),
                    "6% not called a discount: {text:?}"
                );
            }
            assert!(
                !lower.contains("acumulas 6%") && !lower.contains("acumula 6%"),
                "{text:?}"
            );
        }
        let recovery = shipped
            .faqs
            .iter()
            .find(|f| f.id == "recuperar-contrasena")
            .unwrap();
        assert!(recovery.answer.contains("código de 6 dígitos"));
        assert!(
            !recovery.answer.contains("enlace"),
            "recovery sends a code, not a link"
        );
    }

    #[test]
    fn there_are_general_and_login_faqs_including_password_recovery_and_the_code() {
        let faqs = shipped().unwrap().faqs;
        let general = faqs
            .iter()
            .filter(|f| f.audience == FaqAudience::General)
            .count();
        let login: Vec<&str> = faqs
            .iter()
            .filter(|f| f.audience == FaqAudience::Login)
            .map(|f| f.question.as_str())
            .collect();
        assert!((6..=8).contains(&general), "{general} general faqs");
        assert!((4..=6).contains(&login.len()), "{} login faqs", login.len());
        assert!(login.contains(&"¿Cómo recupero mi contraseña?"));
        assert!(login.contains(&"¿Por qué me piden un código?"));
    }

    #[test]
    fn shipped_content_stays_in_force_for_years_from_the_start_of_2026() {
        let shipped = shipped().unwrap();
        let ranges = shipped
            .promotions
            .iter()
            .map(|p| (&p.starts_on, &p.ends_on))
            .chain(shipped.alliances.iter().map(|a| (&a.starts_on, &a.ends_on)))
            .chain(shipped.banners.iter().map(|b| (&b.starts_on, &b.ends_on)));
        for (starts_on, ends_on) in ranges {
            assert!(starts_on.as_str() <= "2026-01-01", "{starts_on}");
            assert!(ends_on.as_str() >= "2027-12-31", "{ends_on}");
        }
    }

    #[test]
    fn a_fresh_database_starts_with_the_portal_on_password_change_on_and_no_login_maintenance() {
        let flags = shipped().unwrap().flags;
        assert!(flags.portal_enabled);
        assert!(flags.change_password_enable);
        assert!(!flags.is_login_maintenance);
    }
}
