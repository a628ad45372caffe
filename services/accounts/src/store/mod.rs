//! Storage of accounts (sqlx, portable SQL on PostgreSQL and SQLite; see `platform::storage`).
//!
//! [`Store`] keeps its `impl` blocks spread over files: members and club accounts here, the
//! ledger in [`ledger`], purchase posting in [`purchases`], the outbox relay's side in
//! [`outbox`], profile updates, email confirmations and the terms decision in [`profile`],
//! registration (pending members, their activation) and unsubscribing in [`registration`],
//! joining in place (opening the club account of a member who has none) in [`joining`], card
//! numbers (and the one function that opens a club account, [`card::open_account_in`]) in
//! [`card`].

use miclub_platform::storage::{Database, DatabaseSettings, Migrations, flag, is_unique_violation};
use sqlx::Row;
use sqlx::any::AnyRow;
use sqlx::migrate::Migrator;

use crate::domain::{
    Balance, BirthDate, CardNumber, Document, DocumentType, Email, GenderId, Member, MemberId,
    MemberRecord, MemberState, MemberStatus, PersonName, PhoneNumber, TermsAgreement,
    TermsDecision, UnsubscribedMember,
};
use crate::error::{AccountsError, Result};

mod card;
mod change_notices;
mod joining;
mod ledger;
mod outbox;
mod profile;
mod purchases;
mod registration;

pub use card::{Assignment, CARD_DRAWS, StoredCard};
pub use joining::Joined;
pub use outbox::ClaimedEvent;
pub use registration::Registered;

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

    /// Adds an active member; [`AccountsError::MemberExists`] when the id or document is taken.
    pub async fn insert_member(&self, member: &Member, at: i64) -> Result<()> {
        let terms = member.terms.as_ref();
        let result = sqlx::query(
            "INSERT INTO members (member_id, document_type, document_number, name, last_name, \
             mother_surname, phone_number, gender_id, birth_date, email, email_confirmed, \
             terms_decision, terms_version, terms_event_at, created_at, updated_at, \
             confirmed_email) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16)",
        )
        .bind(member.id.as_str())
        .bind(member.document.document_type().as_str())
        .bind(member.document.canonical())
        .bind(member.name.as_str())
        .bind(member.last_name.as_str())
        .bind(
            member
                .mother_surname
                .as_ref()
                .map(|n| n.as_str())
                .unwrap_or_default(),
        )
        .bind(
            member
                .phone_number
                .as_ref()
                .map(|p| p.as_str())
                .unwrap_or_default(),
        )
        .bind(member.gender_id.map(|g| i64::from(g.get())))
        .bind(member.birth_date.map(|d| d.iso()))
        .bind(member.email.as_str())
        .bind(member.email_confirmed)
        .bind(terms.map(|t| t.decision.as_str()))
        .bind(terms.and_then(|t| t.version.clone()))
        .bind(terms.map(|t| t.decided_at))
        .bind(at)
        // The address auth starts with, when it is already confirmed.
        .bind(member.email_confirmed.then(|| member.email.as_str()))
        .execute(self.db.pool())
        .await;
        match result {
            Ok(_) => Ok(()),
            Err(err) if is_unique_violation(&err) => Err(AccountsError::MemberExists),
            Err(err) => Err(err.into()),
        }
    }

    pub async fn member_exists(&self, member_id: &MemberId) -> Result<bool> {
        let row = sqlx::query("SELECT 1 AS one FROM members WHERE member_id = $1")
            .bind(member_id.as_str())
            .fetch_optional(self.db.pool())
            .await?;
        Ok(row.is_some())
    }

    /// The pending or active member (an unsubscribed one reads as `None`; see
    /// [`Store::member_state`]).
    pub async fn find_member(&self, member_id: &MemberId) -> Result<Option<MemberRecord>> {
        Ok(match self.member_state(member_id).await? {
            Some(MemberState::Live(record)) => Some(record),
            _ => None,
        })
    }

    /// The member row under `member_id`, whatever its status.
    pub async fn member_state(&self, member_id: &MemberId) -> Result<Option<MemberState>> {
        let row = sqlx::query(concat!(select_member!(), " WHERE m.member_id = $1"))
            .bind(member_id.as_str())
            .fetch_optional(self.db.pool())
            .await?;
        row.as_ref().map(member_from_row).transpose()
    }

    /// The member row holding `document` (canonical form), whatever its status.
    pub async fn member_state_by_document(&self, document: &str) -> Result<Option<MemberState>> {
        let row = sqlx::query(concat!(select_member!(), " WHERE m.document_number = $1"))
            .bind(document)
            .fetch_optional(self.db.pool())
            .await?;
        row.as_ref().map(member_from_row).transpose()
    }

    /// Opens the member's club account with a zero balance and a card number (the seed's way;
    /// members who join or register open theirs inside their own transaction, through the same
    /// [`card::open_account_in`]).
    pub async fn open_club_account(&self, member_id: &MemberId, at: i64) -> Result<CardNumber> {
        let mut conn = self.db.pool().acquire().await?;
        match card::open_account_in(&mut conn, member_id, at, card::Eligible::AnyStatus).await? {
            card::Opening::Opened(card) => Ok(card),
            card::Opening::AlreadyOpen => Err(AccountsError::AccountExists),
            card::Opening::NoSuchMember => Err(AccountsError::MemberNotFound),
        }
    }

    /// The balance; `None` when the member has no club account.
    pub async fn balance(&self, member_id: &MemberId) -> Result<Option<Balance>> {
        let row = sqlx::query("SELECT balance, updated_at FROM club_accounts WHERE member_id = $1")
            .bind(member_id.as_str())
            .fetch_optional(self.db.pool())
            .await?;
        row.map(|row| -> Result<Balance> {
            let balance = Balance::new(row.try_get("balance")?, row.try_get("updated_at")?);
            balance.map_err(|err| AccountsError::CorruptRecord(format!("club account: {err}")))
        })
        .transpose()
    }
}

/// Every column [`member_from_row`] reads; callers add the `WHERE` (a macro, so the query
/// stays a literal).
macro_rules! select_member {
    () => {
        "SELECT m.member_id, m.document_type, m.document_number, m.name, \
     m.last_name, m.mother_surname, m.phone_number, m.gender_id, m.birth_date, m.email, \
     m.email_confirmed, m.terms_decision, m.terms_version, m.terms_event_at, m.status, \
     m.unsubscribed_at, (a.member_id IS NOT NULL) AS has_club_account \
     FROM members m LEFT JOIN club_accounts a ON a.member_id = m.member_id"
    };
}
use select_member;

fn corrupt(what: &str, err: AccountsError) -> AccountsError {
    AccountsError::CorruptRecord(format!("{what}: {err}"))
}

/// A member row; an unsubscribed one has its personal data erased, so it is read apart.
fn member_from_row(row: &AnyRow) -> Result<MemberState> {
    let member_id: String = row.try_get("member_id")?;
    let read = || -> Result<MemberState> {
        let status = MemberStatus::parse(&row.try_get::<String, _>("status")?)?;
        let document_type = DocumentType::parse(&row.try_get::<String, _>("document_type")?)?;
        let gender_id: Option<i64> = row.try_get("gender_id")?;
        let birth_date: Option<String> = row.try_get("birth_date")?;
        let terms_decision: Option<String> = row.try_get("terms_decision")?;
        let terms_event_at: Option<i64> = row.try_get("terms_event_at")?;
        let terms = match (terms_decision, terms_event_at) {
            (Some(decision), Some(decided_at)) => Some(TermsAgreement {
                decision: TermsDecision::parse(&decision)?,
                version: row.try_get("terms_version")?,
                decided_at,
            }),
            _ => None,
        };
        let document =
            Document::parse(document_type, &row.try_get::<String, _>("document_number")?)?;
        let has_club_account = flag(row, "has_club_account")?;
        if status == MemberStatus::Unsubscribed {
            let unsubscribed_at: Option<i64> = row.try_get("unsubscribed_at")?;
            return Ok(MemberState::Unsubscribed(UnsubscribedMember {
                id: MemberId::parse(&member_id)?,
                document,
                terms,
                has_club_account,
                unsubscribed_at: unsubscribed_at
                    .ok_or_else(|| AccountsError::invalid("unsubscribed_at", "missing"))?,
            }));
        }
        let member = Member {
            id: MemberId::parse(&member_id)?,
            document,
            name: PersonName::parse("name", &row.try_get::<String, _>("name")?)?,
            last_name: PersonName::parse("last_name", &row.try_get::<String, _>("last_name")?)?,
            mother_surname: PersonName::parse_optional(
                "mother_surname",
                &row.try_get::<String, _>("mother_surname")?,
            )?,
            phone_number: PhoneNumber::parse_optional(&row.try_get::<String, _>("phone_number")?)?,
            gender_id: gender_id.map(GenderId::new).transpose()?,
            birth_date: birth_date
                .as_deref()
                .map(BirthDate::from_stored)
                .transpose()?,
            email: Email::parse(&row.try_get::<String, _>("email")?)?,
            email_confirmed: flag(row, "email_confirmed")?,
            terms,
        };
        Ok(MemberState::Live(MemberRecord {
            member,
            has_club_account,
            status,
        }))
    };
    read().map_err(|err| match err {
        AccountsError::Database(err) => AccountsError::Database(err),
        other => corrupt(&format!("member {member_id}"), other),
    })
}
