//! The comparison of a PostgreSQL and a SQLite [`Schema`]: every difference as one line under
//! its table ([`SchemaDiff`]), with only the two equivalences the header of [`super`] accepts,
//! one-way (PostgreSQL side → SQLite side), and nowhere else in the check.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::model::{Column, Schema, Table, TypeFamily};

/// The differences between the PostgreSQL and the SQLite schema, one list per table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaDiff {
    pub tables: BTreeMap<String, Vec<String>>,
}

impl SchemaDiff {
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }
}

impl fmt::Display for SchemaDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("the postgresql and sqlite schemas are the same");
        }
        writeln!(
            f,
            "the postgresql and sqlite migrations build different schemas \
             (fix the wrong backend with a new migration):"
        )?;
        for (table, lines) in &self.tables {
            writeln!(f, "  table {table}:")?;
            for line in lines {
                writeln!(f, "    - {line}")?;
            }
        }
        Ok(())
    }
}

/// The differences between `postgres` and `sqlite`, allowing only the two equivalences of the
/// header of [`super`].
pub fn compare(postgres: &Schema, sqlite: &Schema) -> SchemaDiff {
    let mut diff = SchemaDiff::default();
    let names: BTreeSet<&String> = postgres.tables.keys().chain(sqlite.tables.keys()).collect();
    for name in names {
        let lines = match (postgres.tables.get(name), sqlite.tables.get(name)) {
            (Some(table), None) => vec![format!(
                "only in postgresql (columns {})",
                column_list(table)
            )],
            (None, Some(table)) => {
                vec![format!("only in sqlite (columns {})", column_list(table))]
            }
            (Some(pg), Some(lite)) => compare_tables(pg, lite),
            (None, None) => Vec::new(),
        };
        if !lines.is_empty() {
            diff.tables.insert(name.clone(), lines);
        }
    }
    diff
}

fn column_list(table: &Table) -> String {
    table.columns.keys().cloned().collect::<Vec<_>>().join(", ")
}

fn describe(column: &Column) -> String {
    let null = if column.nullable { "NULL" } else { "NOT NULL" };
    format!("{} ({}) {null}", column.family, column.declared)
}

/// Whether the families match: equal, or a PostgreSQL flag kept as a SQLite integer (the Any
/// driver cannot decode SQLite's BOOLEAN; see `platform::storage`).
fn same_family(postgres: &TypeFamily, sqlite: &TypeFamily) -> bool {
    postgres == sqlite || (*postgres == TypeFamily::Boolean && *sqlite == TypeFamily::Integer)
}

fn compare_tables(pg: &Table, lite: &Table) -> Vec<String> {
    let mut lines = Vec::new();

    let columns: BTreeSet<&String> = pg.columns.keys().chain(lite.columns.keys()).collect();
    for name in columns {
        match (pg.columns.get(name), lite.columns.get(name)) {
            (Some(column), None) => lines.push(format!(
                "column {name} {}: only in postgresql",
                describe(column)
            )),
            (None, Some(column)) => lines.push(format!(
                "column {name} {}: only in sqlite",
                describe(column)
            )),
            (Some(p), Some(s)) => {
                if !same_family(&p.family, &s.family) {
                    lines.push(format!(
                        "column {name}: type {} ({}) in postgresql, {} ({}) in sqlite",
                        p.family, p.declared, s.family, s.declared
                    ));
                }
                // SQLite reports a primary-key column nullable unless declared NOT NULL; the
                // key makes it NOT NULL in PostgreSQL (see the header of `schema`).
                let key_quirk = !p.nullable
                    && s.nullable
                    && pg.primary_key.contains(name)
                    && lite.primary_key.contains(name);
                if p.nullable != s.nullable && !key_quirk {
                    let null = |nullable: bool| if nullable { "nullable" } else { "NOT NULL" };
                    lines.push(format!(
                        "column {name}: {} in postgresql, {} in sqlite",
                        null(p.nullable),
                        null(s.nullable)
                    ));
                }
            }
            (None, None) => {}
        }
    }

    if pg.primary_key != lite.primary_key {
        let key = |columns: &[String]| {
            if columns.is_empty() {
                "none".to_owned()
            } else {
                format!("({})", columns.join(", "))
            }
        };
        lines.push(format!(
            "primary key: {} in postgresql, {} in sqlite",
            key(&pg.primary_key),
            key(&lite.primary_key)
        ));
    }

    for columns in pg.unique.difference(&lite.unique) {
        lines.push(format!(
            "unique ({}): only in postgresql",
            columns.join(", ")
        ));
    }
    for columns in lite.unique.difference(&pg.unique) {
        lines.push(format!("unique ({}): only in sqlite", columns.join(", ")));
    }

    for key in pg.foreign_keys.difference(&lite.foreign_keys) {
        lines.push(format!("{key}: only in postgresql"));
    }
    for key in lite.foreign_keys.difference(&pg.foreign_keys) {
        lines.push(format!("{key}: only in sqlite"));
    }

    let indexes: BTreeSet<&String> = pg.indexes.keys().chain(lite.indexes.keys()).collect();
    for name in indexes {
        match (pg.indexes.get(name), lite.indexes.get(name)) {
            (Some(index), None) => {
                let twin = lite
                    .indexes
                    .iter()
                    .find(|(other, twin)| *twin == index && !pg.indexes.contains_key(*other));
                lines.push(match twin {
                    Some((other, _)) => format!(
                        "index {name} {index}: only in postgresql (sqlite names it {other})"
                    ),
                    None => format!("index {name} {index}: only in postgresql"),
                });
            }
            (None, Some(index)) => {
                lines.push(format!("index {name} {index}: only in sqlite"));
            }
            (Some(p), Some(s)) if p != s => {
                lines.push(format!("index {name}: {p} in postgresql, {s} in sqlite"));
            }
            _ => {}
        }
    }

    lines
}
