//! The PostgreSQL reader: the tables of schema `public` from PostgreSQL's catalog, into the
//! neutral [`Schema`].

use sqlx::postgres::PgConnection;

use super::model::{Column, ForeignKey, Index, Schema, Table};
use super::sql_text::{normalise_expression, normalise_predicate};

/// A key of PostgreSQL's catalog: table, kind (`p`, `u`, `f`), columns, referenced table and
/// columns, `ON DELETE` and `ON UPDATE` codes.
type ConstraintRow = (
    String,
    String,
    Vec<String>,
    String,
    Vec<String>,
    String,
    String,
);

/// An index of PostgreSQL's catalog: table, name, unique, keys, predicate.
type IndexRow = (String, String, bool, Vec<String>, Option<String>);

/// Reads the tables of schema `public` from PostgreSQL's catalog.
pub async fn read_postgres(conn: &mut PgConnection) -> Result<Schema, sqlx::Error> {
    let mut schema = Schema::default();

    let tables: Vec<(String,)> = sqlx::query_as(
        "SELECT c.relname::text
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
           AND c.relname <> '_sqlx_migrations'",
    )
    .fetch_all(&mut *conn)
    .await?;
    for (table,) in tables {
        schema.tables.insert(table, Table::default());
    }

    let columns: Vec<(String, String, String, bool)> = sqlx::query_as(
        "SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod),
                a.attnotnull
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
           AND c.relname <> '_sqlx_migrations' AND a.attnum > 0 AND NOT a.attisdropped",
    )
    .fetch_all(&mut *conn)
    .await?;
    for (table, column, declared, not_null) in columns {
        if let Some(table) = schema.tables.get_mut(&table) {
            table
                .columns
                .insert(column, Column::new(&declared, !not_null));
        }
    }

    // Primary keys, unique constraints and foreign keys, columns in key order.
    let constraints: Vec<ConstraintRow> = sqlx::query_as(
        "SELECT c.relname::text, con.contype::text,
                ARRAY(SELECT a.attname::text
                      FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
                      ORDER BY k.ord),
                COALESCE(r.relname::text, ''),
                ARRAY(SELECT a.attname::text
                      FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
                      ORDER BY k.ord),
                con.confdeltype::text, con.confupdtype::text
         FROM pg_constraint con
         JOIN pg_class c ON c.oid = con.conrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_class r ON r.oid = con.confrelid
         WHERE n.nspname = 'public' AND con.contype IN ('p', 'u', 'f')
           AND c.relname <> '_sqlx_migrations'",
    )
    .fetch_all(&mut *conn)
    .await?;
    for (table, kind, columns, references, referenced_columns, on_delete, on_update) in constraints
    {
        let Some(table) = schema.tables.get_mut(&table) else {
            continue;
        };
        match kind.as_str() {
            "p" => table.primary_key = columns,
            "u" => {
                table.unique.insert(columns);
            }
            _ => {
                table.foreign_keys.insert(ForeignKey {
                    columns,
                    references,
                    referenced_columns,
                    on_delete: postgres_action(&on_delete),
                    on_update: postgres_action(&on_update),
                });
            }
        }
    }

    // Indexes that do not back a primary key, unique or exclusion constraint.
    let indexes: Vec<IndexRow> = sqlx::query_as(
        "SELECT t.relname::text, i.relname::text, x.indisunique,
                ARRAY(SELECT pg_get_indexdef(x.indexrelid, k, true)
                      FROM generate_series(1, x.indnkeyatts::int) AS k ORDER BY k),
                pg_get_expr(x.indpred, x.indrelid, true)
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         WHERE n.nspname = 'public' AND t.relname <> '_sqlx_migrations'
           AND NOT EXISTS (
               SELECT 1 FROM pg_constraint con
               WHERE con.conindid = x.indexrelid AND con.conrelid = x.indrelid
                 AND con.contype IN ('p', 'u', 'x'))",
    )
    .fetch_all(&mut *conn)
    .await?;
    for (table, name, unique, columns, predicate) in indexes {
        if let Some(table) = schema.tables.get_mut(&table) {
            table.indexes.insert(
                name,
                Index {
                    columns: columns.iter().map(|c| normalise_expression(c)).collect(),
                    unique,
                    predicate: predicate.as_deref().map(normalise_predicate),
                },
            );
        }
    }

    Ok(schema)
}

/// The action of `pg_constraint.confdeltype` / `confupdtype` in SQLite's words.
fn postgres_action(code: &str) -> String {
    match code {
        "a" => "NO ACTION",
        "r" => "RESTRICT",
        "c" => "CASCADE",
        "n" => "SET NULL",
        "d" => "SET DEFAULT",
        other => other,
    }
    .to_owned()
}
