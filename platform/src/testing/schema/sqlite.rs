//! The SQLite reader: the tables of a SQLite database from `sqlite_master` and the pragmas,
//! into the neutral [`Schema`], names lowercased.

use std::collections::BTreeMap;

use sqlx::sqlite::SqliteConnection;

use super::model::{Column, ForeignKey, Index, Schema, Table};
use super::sql_text::{normalise_expression, parse_create_index};

/// A row of SQLite's `foreign_key_list`: id, table, from, to, on update, on delete.
type ForeignKeyRow = (i64, String, String, Option<String>, String, String);

/// Reads the tables of a SQLite database from `sqlite_master` and the pragmas.
pub async fn read_sqlite(conn: &mut SqliteConnection) -> Result<Schema, sqlx::Error> {
    let mut schema = Schema::default();
    let tables: Vec<(String,)> = sqlx::query_as(
        "SELECT name FROM sqlite_master
         WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
           AND name <> '_sqlx_migrations'",
    )
    .fetch_all(&mut *conn)
    .await?;
    for (name,) in &tables {
        let table = read_sqlite_table(conn, name).await?;
        schema.tables.insert(name.to_lowercase(), table);
    }
    Ok(schema)
}

async fn read_sqlite_table(conn: &mut SqliteConnection, name: &str) -> Result<Table, sqlx::Error> {
    let mut table = Table::default();

    let columns: Vec<(String, String, i64, i64)> =
        sqlx::query_as(r#"SELECT name, type, "notnull", pk FROM pragma_table_info(?1)"#)
            .bind(name)
            .fetch_all(&mut *conn)
            .await?;
    let mut key = Vec::new();
    for (column, declared, not_null, pk) in columns {
        let column = column.to_lowercase();
        if pk > 0 {
            key.push((pk, column.clone()));
        }
        table
            .columns
            .insert(column, Column::new(&declared, not_null == 0));
    }
    key.sort();
    table.primary_key = key.into_iter().map(|(_, column)| column).collect();

    let indexes: Vec<(String, i64, String)> =
        sqlx::query_as(r#"SELECT name, "unique", origin FROM pragma_index_list(?1)"#)
            .bind(name)
            .fetch_all(&mut *conn)
            .await?;
    for (index, unique, origin) in indexes {
        // `cid` -2 is an expression, whose text only the index's SQL holds.
        let keys: Vec<(i64, Option<String>)> =
            sqlx::query_as("SELECT cid, name FROM pragma_index_info(?1) ORDER BY seqno")
                .bind(&index)
                .fetch_all(&mut *conn)
                .await?;
        match origin.as_str() {
            // The primary key comes from table_info (a rowid key has no index).
            "pk" => {}
            "u" => {
                table.unique.insert(
                    keys.into_iter()
                        .map(|(_, column)| column.unwrap_or_default().to_lowercase())
                        .collect(),
                );
            }
            _ => {
                let sql: Option<String> = sqlx::query_scalar::<_, Option<String>>(
                    "SELECT sql FROM sqlite_master WHERE name = ?1",
                )
                .bind(&index)
                .fetch_optional(&mut *conn)
                .await?
                .flatten();
                let (expressions, predicate) = parse_create_index(sql.as_deref().unwrap_or(""));
                let columns = keys
                    .iter()
                    .enumerate()
                    .map(|(position, (_, column))| match column {
                        Some(column) => normalise_expression(column),
                        None => expressions.get(position).cloned().unwrap_or_default(),
                    })
                    .collect();
                table.indexes.insert(
                    index.to_lowercase(),
                    Index {
                        columns,
                        unique: unique != 0,
                        predicate,
                    },
                );
            }
        }
    }

    let references: Vec<ForeignKeyRow> = sqlx::query_as(
        r#"SELECT id, "table", "from", "to", on_update, on_delete
           FROM pragma_foreign_key_list(?1) ORDER BY id, seq"#,
    )
    .bind(name)
    .fetch_all(&mut *conn)
    .await?;
    let mut by_id: BTreeMap<i64, ForeignKey> = BTreeMap::new();
    for (id, references, from, to, on_update, on_delete) in references {
        let key = by_id.entry(id).or_insert_with(|| ForeignKey {
            columns: Vec::new(),
            references: references.to_lowercase(),
            referenced_columns: Vec::new(),
            on_delete,
            on_update,
        });
        key.columns.push(from.to_lowercase());
        if let Some(to) = to {
            key.referenced_columns.push(to.to_lowercase());
        }
    }
    for mut key in by_id.into_values() {
        // `REFERENCES t` without columns means t's primary key.
        if key.referenced_columns.is_empty() {
            let mut referenced: Vec<(i64, String)> = sqlx::query_as(
                "SELECT pk, name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk",
            )
            .bind(&key.references)
            .fetch_all(&mut *conn)
            .await?;
            referenced.sort();
            key.referenced_columns = referenced
                .into_iter()
                .map(|(_, column)| column.to_lowercase())
                .collect();
        }
        table.foreign_keys.insert(key);
    }

    Ok(table)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use sqlx::Connection;

    use super::*;
    use crate::testing::schema::model::TypeFamily;
    use crate::testing::schema::tests::{ddl, index};

    #[tokio::test]
    async fn the_sqlite_reader_sees_keys_uniques_foreign_keys_and_expression_indexes() {
        let mut conn = SqliteConnection::connect("sqlite::memory:").await.unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(ddl("INTEGER", "0")))
            .execute(&mut conn)
            .await
            .unwrap();

        let schema = read_sqlite(&mut conn).await.unwrap();

        let members = &schema.tables["members"];
        assert_eq!(members.primary_key, vec!["member_id"]);
        assert_eq!(
            members.unique,
            BTreeSet::from([
                vec!["document".to_owned()],
                vec!["email".to_owned(), "status".to_owned()]
            ])
        );
        assert_eq!(
            members.indexes["members_active_email"],
            index(&["lower(email)"], false, Some("status = 'active'"))
        );
        assert_eq!(members.columns["confirmed"].family, TypeFamily::Integer);
        let grants = &schema.tables["grants"];
        assert_eq!(grants.primary_key, vec!["mission_id", "member_id"]);
        assert!(grants.columns["amount"].nullable);
        assert_eq!(
            grants.foreign_keys,
            BTreeSet::from([ForeignKey {
                columns: vec!["member_id".into()],
                references: "members".into(),
                referenced_columns: vec!["member_id".into()],
                on_delete: "CASCADE".into(),
                on_update: "NO ACTION".into(),
            }])
        );
        assert_eq!(
            grants.indexes["grants_member_amount"],
            index(
                &["member_id", "amount"],
                true,
                Some("amount IS NOT NULL AND member_id <> ''")
            )
        );
    }
}
