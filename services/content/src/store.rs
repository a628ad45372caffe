//! Storage of content (sqlx, portable SQL on PostgreSQL and SQLite; see `platform::storage`).
//!
//! Terms versions are only ever inserted, with `ON CONFLICT DO NOTHING`, so concurrent starts of
//! several replicas publish a shipped version exactly once and never overwrite a stored one.
//! Catalog rows and flags are seeded the same way (missing ids only) and replaced as a whole by
//! the internal calls (`ON CONFLICT … DO UPDATE`, which both backends speak). What is "in force"
//! is decided here, in SQL, on ISO date text, which orders like the dates it spells.

use miclub_platform::storage::{Database, DatabaseSettings, Migrations};
use sqlx::Row;
use sqlx::any::AnyRow;
use sqlx::migrate::Migrator;

use crate::error::{ContentError, Result};
use crate::model::{
    Alliance, AllianceFields, Banner, BannerFields, Faq, FaqAudience, FaqFields, FlagName,
    Promotion, PromotionFields, Terms, TermsVersion,
};

/// Schema migrations, embedded in the binary.
pub static POSTGRES_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/postgres");
pub static SQLITE_MIGRATIONS: Migrator = sqlx::sqlx_macros::migrate!("./migrations/sqlite");
pub static MIGRATIONS: Migrations = Migrations {
    postgres: &POSTGRES_MIGRATIONS,
    sqlite: &SQLITE_MIGRATIONS,
};

#[derive(Debug, Clone)]
pub struct Store {
    db: Database,
}

impl Store {
    pub fn new(db: Database) -> Self {
        Self { db }
    }

    /// Connects and applies the migrations of the backend the URL names.
    pub async fn connect(settings: &DatabaseSettings) -> anyhow::Result<Self> {
        Ok(Self::new(MIGRATIONS.open(settings).await?))
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Stores `terms` unless its version exists; true when this call stored it. `at` is the
    /// creation instant recorded.
    pub async fn insert_terms_if_missing(&self, terms: &Terms, at: i64) -> Result<bool> {
        let done = sqlx::query(
            "INSERT INTO terms_versions (version, title, body, published_at, created_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (version) DO NOTHING",
        )
        .bind(terms.version.as_str())
        .bind(terms.title.as_str())
        .bind(terms.body.as_str())
        .bind(terms.published_at)
        .bind(at)
        .execute(self.db.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The newest version published at or before `now`; between equal instants, the greatest
    /// label, so the answer never depends on row order.
    pub async fn current_terms(&self, now: i64) -> Result<Option<Terms>> {
        let row = sqlx::query(
            "SELECT version, title, body, published_at FROM terms_versions \
             WHERE published_at <= $1 ORDER BY published_at DESC, version DESC LIMIT 1",
        )
        .bind(now)
        .fetch_optional(self.db.pool())
        .await?;
        row.as_ref().map(terms_from_row).transpose()
    }

    pub async fn find_terms(&self, version: &TermsVersion) -> Result<Option<Terms>> {
        let row = sqlx::query(
            "SELECT version, title, body, published_at FROM terms_versions WHERE version = $1",
        )
        .bind(version.as_str())
        .fetch_optional(self.db.pool())
        .await?;
        row.as_ref().map(terms_from_row).transpose()
    }

    /// How many versions are stored, published or not.
    pub async fn count_terms(&self) -> Result<i64> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM terms_versions")
            .fetch_one(self.db.pool())
            .await?;
        Ok(row.try_get("n")?)
    }
}

/// How a catalog write treats an existing row with the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    /// Seeding: keep the stored row.
    IfMissing,
    /// The internal Upsert calls: replace it.
    Replace,
}

const PROMOTION_COLUMNS: &str =
    "id, title, description, image_url, link_url, badge, starts_on, ends_on, position";
const ALLIANCE_COLUMNS: &str = "id, partner, title, description, image_url, link_url, \
     conditions, starts_on, ends_on, position";
const BANNER_COLUMNS: &str =
    "id, title, subtitle, image_url, image_alt, link_url, starts_on, ends_on, position";
const FAQ_COLUMNS: &str = "id, audience, question, answer, position";

/// `INSERT INTO table (columns, updated_at) VALUES ($1 … $n)` with the conflict clause of
/// `write`. Built only from the constants above, never from input.
fn insert_sql(table: &str, columns: &str, write: Write) -> String {
    let names: Vec<&str> = columns
        .split(',')
        .map(str::trim)
        .chain(["updated_at"])
        .collect();
    let placeholders: Vec<String> = (1..=names.len()).map(|i| format!("${i}")).collect();
    let conflict = match write {
        Write::IfMissing => "DO NOTHING".to_owned(),
        Write::Replace => {
            let updates: Vec<String> = names[1..]
                .iter()
                .map(|name| format!("{name} = excluded.{name}"))
                .collect();
            format!("DO UPDATE SET {}", updates.join(", "))
        }
    };
    format!(
        "INSERT INTO {table} ({}) VALUES ({}) ON CONFLICT (id) {conflict}",
        names.join(", "),
        placeholders.join(", ")
    )
}

/// The rows of `table` in force on `today` (`YYYY-MM-DD`), in display order.
fn in_force_sql(table: &str, columns: &str) -> String {
    format!(
        "SELECT {columns} FROM {table} WHERE starts_on <= $1 AND ends_on >= $1 \
         ORDER BY position, id"
    )
}

impl Store {
    /// Writes `promotion` as `write` says; true when a row was written.
    pub async fn write_promotion(
        &self,
        promotion: &Promotion,
        write: Write,
        at: i64,
    ) -> Result<bool> {
        let sql = insert_sql("promotions", PROMOTION_COLUMNS, write);
        let done = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(promotion.id.as_str())
            .bind(promotion.title.as_str())
            .bind(promotion.description.as_str())
            .bind(promotion.image_url.as_str())
            .bind(promotion.link_url.as_str())
            .bind(promotion.badge.as_str())
            .bind(promotion.starts_on.as_str())
            .bind(promotion.ends_on.as_str())
            .bind(i64::from(promotion.position))
            .bind(at)
            .execute(self.db.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn promotions_in_force(&self, today: &str) -> Result<Vec<Promotion>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(in_force_sql(
            "promotions",
            PROMOTION_COLUMNS,
        )))
        .bind(today)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter().map(promotion_from_row).collect()
    }

    /// Writes `alliance` as `write` says; true when a row was written.
    pub async fn write_alliance(&self, alliance: &Alliance, write: Write, at: i64) -> Result<bool> {
        let sql = insert_sql("alliances", ALLIANCE_COLUMNS, write);
        let done = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(alliance.id.as_str())
            .bind(alliance.partner.as_str())
            .bind(alliance.title.as_str())
            .bind(alliance.description.as_str())
            .bind(alliance.image_url.as_str())
            .bind(alliance.link_url.as_str())
            .bind(alliance.conditions.as_str())
            .bind(alliance.starts_on.as_str())
            .bind(alliance.ends_on.as_str())
            .bind(i64::from(alliance.position))
            .bind(at)
            .execute(self.db.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn alliances_in_force(&self, today: &str) -> Result<Vec<Alliance>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(in_force_sql(
            "alliances",
            ALLIANCE_COLUMNS,
        )))
        .bind(today)
        .fetch_all(self.db.pool())
        .await?;
        rows.iter().map(alliance_from_row).collect()
    }

    /// Writes `banner` as `write` says; true when a row was written.
    pub async fn write_banner(&self, banner: &Banner, write: Write, at: i64) -> Result<bool> {
        let sql = insert_sql("banners", BANNER_COLUMNS, write);
        let done = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(banner.id.as_str())
            .bind(banner.title.as_str())
            .bind(banner.subtitle.as_str())
            .bind(banner.image_url.as_str())
            .bind(banner.image_alt.as_str())
            .bind(banner.link_url.as_str())
            .bind(banner.starts_on.as_str())
            .bind(banner.ends_on.as_str())
            .bind(i64::from(banner.position))
            .bind(at)
            .execute(self.db.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn banners_in_force(&self, today: &str) -> Result<Vec<Banner>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(in_force_sql("banners", BANNER_COLUMNS)))
            .bind(today)
            .fetch_all(self.db.pool())
            .await?;
        rows.iter().map(banner_from_row).collect()
    }

    /// Writes `faq` as `write` says; true when a row was written.
    pub async fn write_faq(&self, faq: &Faq, write: Write, at: i64) -> Result<bool> {
        let sql = insert_sql("faqs", FAQ_COLUMNS, write);
        let done = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(faq.id.as_str())
            .bind(faq.audience.as_str())
            .bind(faq.question.as_str())
            .bind(faq.answer.as_str())
            .bind(i64::from(faq.position))
            .bind(at)
            .execute(self.db.pool())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The FAQs of `audience`, in display order.
    pub async fn faqs(&self, audience: FaqAudience) -> Result<Vec<Faq>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {FAQ_COLUMNS} FROM faqs WHERE audience = $1 ORDER BY position, id"
        )))
        .bind(audience.as_str())
        .fetch_all(self.db.pool())
        .await?;
        rows.iter().map(faq_from_row).collect()
    }

    /// Stores a flag unless it exists; true when this call stored it.
    pub async fn insert_flag_if_missing(
        &self,
        name: FlagName,
        value: bool,
        at: i64,
    ) -> Result<bool> {
        let done = sqlx::query(
            "INSERT INTO flags (name, value, updated_at, updated_by) VALUES ($1, $2, $3, 'seed') \
             ON CONFLICT (name) DO NOTHING",
        )
        .bind(name.as_str())
        .bind(value)
        .bind(at)
        .execute(self.db.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Sets a flag, recording when and by whom.
    pub async fn set_flag(&self, name: FlagName, value: bool, at: i64, by: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO flags (name, value, updated_at, updated_by) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name) DO UPDATE SET value = excluded.value, \
             updated_at = excluded.updated_at, updated_by = excluded.updated_by",
        )
        .bind(name.as_str())
        .bind(value)
        .bind(at)
        .bind(by)
        .execute(self.db.pool())
        .await?;
        Ok(())
    }

    /// Every stored flag; names this version does not know are skipped.
    pub async fn flags(&self) -> Result<Vec<(FlagName, bool)>> {
        let rows = sqlx::query("SELECT name, value FROM flags")
            .fetch_all(self.db.pool())
            .await?;
        let mut flags = Vec::with_capacity(rows.len());
        for row in &rows {
            let name: String = row.try_get("name")?;
            if let Some(name) = FlagName::parse(&name) {
                flags.push((name, miclub_platform::storage::flag(row, "value")?));
            }
        }
        Ok(flags)
    }
}

fn position(row: &AnyRow) -> Result<i32> {
    let position: i64 = row.try_get("position")?;
    i32::try_from(position)
        .map_err(|_| ContentError::CorruptRecord(format!("position {position} out of range")))
}

fn corrupt(kind: &str, id: &str, err: ContentError) -> ContentError {
    ContentError::CorruptRecord(format!("{kind} {id:?}: {err}"))
}

fn promotion_from_row(row: &AnyRow) -> Result<Promotion> {
    let fields = PromotionFields {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        description: row.try_get("description")?,
        image_url: row.try_get("image_url")?,
        link_url: row.try_get("link_url")?,
        badge: row.try_get("badge")?,
        starts_on: row.try_get("starts_on")?,
        ends_on: row.try_get("ends_on")?,
        position: position(row)?,
    };
    let id = fields.id.clone();
    Promotion::new(fields).map_err(|err| corrupt("promotion", &id, err))
}

fn alliance_from_row(row: &AnyRow) -> Result<Alliance> {
    let fields = AllianceFields {
        id: row.try_get("id")?,
        partner: row.try_get("partner")?,
        title: row.try_get("title")?,
        description: row.try_get("description")?,
        image_url: row.try_get("image_url")?,
        link_url: row.try_get("link_url")?,
        conditions: row.try_get("conditions")?,
        starts_on: row.try_get("starts_on")?,
        ends_on: row.try_get("ends_on")?,
        position: position(row)?,
    };
    let id = fields.id.clone();
    Alliance::new(fields).map_err(|err| corrupt("alliance", &id, err))
}

fn banner_from_row(row: &AnyRow) -> Result<Banner> {
    let fields = BannerFields {
        id: row.try_get("id")?,
        title: row.try_get("title")?,
        subtitle: row.try_get("subtitle")?,
        image_url: row.try_get("image_url")?,
        image_alt: row.try_get("image_alt")?,
        link_url: row.try_get("link_url")?,
        starts_on: row.try_get("starts_on")?,
        ends_on: row.try_get("ends_on")?,
        position: position(row)?,
    };
    let id = fields.id.clone();
    Banner::new(fields).map_err(|err| corrupt("banner", &id, err))
}

fn faq_from_row(row: &AnyRow) -> Result<Faq> {
    let id: String = row.try_get("id")?;
    let audience: String = row.try_get("audience")?;
    let audience = FaqAudience::parse(&audience).ok_or_else(|| {
        ContentError::CorruptRecord(format!("faq {id:?}: unknown audience {audience:?}"))
    })?;
    let fields = FaqFields {
        id: id.clone(),
        audience,
        question: row.try_get("question")?,
        answer: row.try_get("answer")?,
        position: position(row)?,
    };
    Faq::new(fields).map_err(|err| corrupt("faq", &id, err))
}

fn terms_from_row(row: &AnyRow) -> Result<Terms> {
    let version: String = row.try_get("version")?;
    let title: String = row.try_get("title")?;
    let body: String = row.try_get("body")?;
    let published_at: i64 = row.try_get("published_at")?;
    TermsVersion::parse(&version)
        .and_then(|parsed| Terms::new(parsed, &title, &body, published_at))
        .map_err(|err| ContentError::CorruptRecord(format!("terms version {version:?}: {err}")))
}
