//! Tests of the model, the comparison and the entry points, and the fixtures the readers'
//! tests share: a diff line by line, the accepted equivalences, the type families, and the
//! same DDL migrated on both backends.

use sqlx::SqlSafeStr;
use sqlx::migrate::Migrator;

use super::{
    Column, ForeignKey, Index, Schema, Table, TypeFamily, assert_same_schema, compare,
    compare_migrations, normalise_expression, normalise_predicate,
};

fn table(columns: &[(&str, &str, bool)], primary_key: &[&str]) -> Table {
    Table {
        columns: columns
            .iter()
            .map(|(name, declared, nullable)| {
                ((*name).to_owned(), Column::new(declared, *nullable))
            })
            .collect(),
        primary_key: primary_key.iter().map(|c| (*c).to_owned()).collect(),
        ..Table::default()
    }
}

fn schema(tables: Vec<(&str, Table)>) -> Schema {
    Schema {
        tables: tables
            .into_iter()
            .map(|(name, table)| (name.to_owned(), table))
            .collect(),
    }
}

pub(super) fn index(columns: &[&str], unique: bool, predicate: Option<&str>) -> Index {
    Index {
        columns: columns.iter().map(|c| normalise_expression(c)).collect(),
        unique,
        predicate: predicate.map(normalise_predicate),
    }
}

#[test]
fn a_column_of_another_type_and_a_missing_index_are_reported_under_their_table() {
    let mut members = table(
        &[
            ("member_id", "text", false),
            ("created_at", "bigint", false),
        ],
        &["member_id"],
    );
    members.indexes.insert(
        "members_created_at".into(),
        index(&["created_at"], false, None),
    );
    let postgres = schema(vec![("members", members)]);
    let sqlite = schema(vec![(
        "members",
        table(
            &[("member_id", "TEXT", true), ("created_at", "TEXT", false)],
            &["member_id"],
        ),
    )]);

    let diff = compare(&postgres, &sqlite);

    assert_eq!(
        diff.tables["members"],
        vec![
            "column created_at: type integer (bigint) in postgresql, text (TEXT) in sqlite",
            "index members_created_at (created_at): only in postgresql",
        ],
        "{diff}"
    );
    let shown = diff.to_string();
    assert!(shown.contains("table members:"), "{shown}");
    assert!(
        shown.contains("- index members_created_at (created_at): only in postgresql"),
        "{shown}"
    );
}

#[test]
fn missing_tables_columns_keys_and_changed_indexes_are_each_one_line() {
    let mut pg_members = table(
        &[
            ("member_id", "text", false),
            ("email", "text", false),
            ("nickname", "text", true),
        ],
        &["member_id"],
    );
    pg_members.unique.insert(vec!["email".into()]);
    pg_members.indexes.insert(
        "members_email".into(),
        index(&["lower(email)"], false, Some("status = 'active'::text")),
    );
    let mut pg_tokens = table(
        &[("id", "text", false), ("member_id", "text", false)],
        &["id"],
    );
    pg_tokens.foreign_keys.insert(ForeignKey {
        columns: vec!["member_id".into()],
        references: "members".into(),
        referenced_columns: vec!["member_id".into()],
        on_delete: "CASCADE".into(),
        on_update: "NO ACTION".into(),
    });
    let postgres = schema(vec![
        ("members", pg_members),
        ("tokens", pg_tokens),
        ("audit", table(&[("id", "text", false)], &["id"])),
    ]);

    let mut lite_members = table(
        &[("member_id", "TEXT", true), ("email", "TEXT", true)],
        &["member_id"],
    );
    lite_members.indexes.insert(
        "members_email".into(),
        index(&["LOWER(email)"], false, None),
    );
    let mut lite_tokens = table(
        &[("id", "TEXT", true), ("member_id", "TEXT", false)],
        &["id"],
    );
    lite_tokens.foreign_keys.insert(ForeignKey {
        columns: vec!["member_id".into()],
        references: "members".into(),
        referenced_columns: vec!["member_id".into()],
        on_delete: "NO ACTION".into(),
        on_update: "NO ACTION".into(),
    });
    let sqlite = schema(vec![("members", lite_members), ("tokens", lite_tokens)]);

    let diff = compare(&postgres, &sqlite);

    assert_eq!(
        diff.tables["audit"],
        vec!["only in postgresql (columns id)"]
    );
    assert_eq!(
        diff.tables["members"],
        vec![
            "column email: NOT NULL in postgresql, nullable in sqlite",
            "column nickname text (text) NULL: only in postgresql",
            "unique (email): only in postgresql",
            "index members_email: (lower(email)) where status = 'active' in postgresql, \
             (lower(email)) in sqlite",
        ],
        "{diff}"
    );
    assert_eq!(
        diff.tables["tokens"],
        vec![
            "foreign key (member_id) references members (member_id) on delete cascade \
             on update no action: only in postgresql",
            "foreign key (member_id) references members (member_id) on delete no action \
             on update no action: only in sqlite",
        ],
        "{diff}"
    );
}

#[test]
fn a_postgresql_flag_kept_as_a_sqlite_integer_and_a_nullable_sqlite_key_are_the_only_allowances() {
    let postgres = schema(vec![(
        "flags",
        table(
            &[("name", "text", false), ("value", "boolean", false)],
            &["name"],
        ),
    )]);
    let sqlite = schema(vec![(
        "flags",
        table(
            &[("name", "TEXT", true), ("value", "INTEGER", false)],
            &["name"],
        ),
    )]);
    assert!(compare(&postgres, &sqlite).is_empty());

    // The other way round, or a nullable column outside the key, is a difference.
    let postgres = schema(vec![(
        "flags",
        table(
            &[
                ("name", "text", false),
                ("value", "bigint", false),
                ("note", "text", false),
            ],
            &["name"],
        ),
    )]);
    let sqlite = schema(vec![(
        "flags",
        table(
            &[
                ("name", "TEXT", true),
                ("value", "BOOLEAN", false),
                ("note", "TEXT", true),
            ],
            &["name"],
        ),
    )]);
    assert_eq!(
        compare(&postgres, &sqlite).tables["flags"],
        vec![
            "column note: NOT NULL in postgresql, nullable in sqlite",
            "column value: type integer (bigint) in postgresql, boolean (BOOLEAN) in sqlite",
        ]
    );
}

#[test]
fn type_names_of_both_backends_fall_into_the_documented_families() {
    for (name, family) in [
        ("bigint", TypeFamily::Integer),
        ("INTEGER", TypeFamily::Integer),
        ("smallint", TypeFamily::Integer),
        ("INT8", TypeFamily::Integer),
        ("text", TypeFamily::Text),
        ("character varying(255)", TypeFamily::Text),
        ("VARCHAR(20)", TypeFamily::Text),
        ("character(2)", TypeFamily::Text),
        ("boolean", TypeFamily::Boolean),
        ("BOOL", TypeFamily::Boolean),
        ("timestamp with time zone", TypeFamily::Timestamp),
        ("TIMESTAMPTZ", TypeFamily::Timestamp),
        ("bytea", TypeFamily::Bytes),
        ("BLOB", TypeFamily::Bytes),
        ("double precision", TypeFamily::Float),
        ("REAL", TypeFamily::Float),
        ("numeric(12,2)", TypeFamily::Numeric),
        ("jsonb", TypeFamily::Json),
        ("text[]", TypeFamily::Other("text[]".into())),
        ("", TypeFamily::Other(String::new())),
    ] {
        assert_eq!(TypeFamily::of(name), family, "{name}");
    }
    assert_eq!(TypeFamily::Other(String::new()).to_string(), "untyped");
}

/// DDL both backends accept, covering each part of the model; `{flag}` is the flag type.
const DDL: &str = "
    CREATE TABLE members (
        member_id TEXT PRIMARY KEY,
        document  TEXT NOT NULL UNIQUE,
        email     TEXT NOT NULL,
        status    TEXT NOT NULL,
        confirmed {flag} NOT NULL DEFAULT {false},
        UNIQUE (email, status)
    );
    CREATE TABLE grants (
        mission_id TEXT NOT NULL,
        member_id  TEXT NOT NULL REFERENCES members ON DELETE CASCADE,
        amount     BIGINT,
        PRIMARY KEY (mission_id, member_id)
    );
    CREATE INDEX members_active_email ON members (LOWER(email)) WHERE status = 'active';
    CREATE UNIQUE INDEX grants_member_amount ON grants (member_id, amount)
        WHERE amount IS NOT NULL AND (member_id <> '');
";

pub(super) fn ddl(flag: &str, false_value: &str) -> String {
    DDL.replace("{flag}", flag).replace("{false}", false_value)
}

fn migrator(sql: String) -> Migrator {
    Migrator::with_migrations(vec![sqlx::migrate::Migration::new(
        1,
        "schema".into(),
        sqlx::migrate::MigrationType::Simple,
        sqlx::AssertSqlSafe(sql).into_sql_str(),
        false,
    )])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_ddl_reads_as_the_same_schema_on_postgresql_and_sqlite() {
    let diff = compare_migrations(
        &migrator(ddl("BOOLEAN", "FALSE")),
        &migrator(ddl("INTEGER", "0")),
    )
    .await;
    assert!(diff.is_empty(), "{diff}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_migrations_that_drift_from_the_postgresql_ones_fail_with_each_drift_named() {
    let drifted = ddl("INTEGER", "0")
        .replace("amount     BIGINT,", "amount     TEXT,")
        .replace(" ON DELETE CASCADE", "")
        .replace(
            "CREATE INDEX members_active_email ON members (LOWER(email)) \
             WHERE status = 'active';",
            "",
        );
    let diff = compare_migrations(&migrator(ddl("BOOLEAN", "FALSE")), &migrator(drifted)).await;

    assert_eq!(
        diff.tables["grants"],
        vec![
            "column amount: type integer (bigint) in postgresql, text (TEXT) in sqlite",
            "foreign key (member_id) references members (member_id) on delete cascade \
             on update no action: only in postgresql",
            "foreign key (member_id) references members (member_id) on delete no action \
             on update no action: only in sqlite",
        ],
        "{diff}"
    );
    assert_eq!(
        diff.tables["members"],
        vec![
            "index members_active_email (lower(email)) where status = 'active': only in postgresql"
        ],
        "{diff}"
    );
    let panic = tokio::spawn(async move {
        assert_same_schema(
            &migrator(ddl("BOOLEAN", "FALSE")),
            &migrator(ddl("INTEGER", "0").replace("email     TEXT NOT NULL,", "email TEXT,")),
        )
        .await;
    })
    .await
    .unwrap_err();
    let message = panic
        .into_panic()
        .downcast::<String>()
        .map(|message| *message)
        .unwrap_or_default();
    assert!(
        message.contains("table members:")
            && message.contains("column email: NOT NULL in postgresql, nullable in sqlite"),
        "{message}"
    );
}
