//! The neutral schema model: what both readers build from their backend's catalog and what
//! [`compare`](super::compare) holds side by side. Names are lowercased, index keys and
//! predicates normalised (`sql_text`), types kept both as declared and as a [`TypeFamily`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A database's schema, in terms both backends can express.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schema {
    pub tables: BTreeMap<String, Table>,
}

/// One table: its columns by name and its keys and indexes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    pub columns: BTreeMap<String, Column>,
    /// The primary key's columns in key order; empty without one.
    pub primary_key: Vec<String>,
    /// The column lists of the `UNIQUE` constraints (not of unique indexes).
    pub unique: BTreeSet<Vec<String>>,
    pub foreign_keys: BTreeSet<ForeignKey>,
    /// The indexes created with `CREATE INDEX`, by name (not those behind a key).
    pub indexes: BTreeMap<String, Index>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The type as the backend reports it, for the diff only.
    pub declared: String,
    pub family: TypeFamily,
    pub nullable: bool,
}

impl Column {
    pub fn new(declared: &str, nullable: bool) -> Self {
        Self {
            declared: declared.to_owned(),
            family: TypeFamily::of(declared),
            nullable,
        }
    }
}

/// What a column holds, whatever the backend calls it (the table in the header of [`super`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum TypeFamily {
    Integer,
    Text,
    Boolean,
    Timestamp,
    Date,
    Bytes,
    Float,
    Numeric,
    Json,
    Uuid,
    /// A type outside the families, by its normalised name (`""` for an untyped SQLite column).
    Other(String),
}

impl TypeFamily {
    /// The family of a declared type name of either backend.
    pub fn of(declared: &str) -> Self {
        // `varchar(255)` → `varchar`; `DOUBLE  PRECISION` → `double precision`.
        let base = declared.split('(').next().unwrap_or_default();
        let name = base
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_ascii_lowercase();
        match name.as_str() {
            "smallint" | "integer" | "int" | "bigint" | "int2" | "int4" | "int8" | "tinyint"
            | "mediumint" => Self::Integer,
            "text" | "varchar" | "character varying" | "char" | "character" | "bpchar" | "clob"
            | "citext" | "name" => Self::Text,
            "boolean" | "bool" => Self::Boolean,
            "timestamp"
            | "timestamptz"
            | "timestamp with time zone"
            | "timestamp without time zone"
            | "datetime" => Self::Timestamp,
            "date" => Self::Date,
            "bytea" | "blob" => Self::Bytes,
            "real" | "double precision" | "double" | "float" | "float4" | "float8" => Self::Float,
            "numeric" | "decimal" => Self::Numeric,
            "json" | "jsonb" => Self::Json,
            "uuid" => Self::Uuid,
            _ => Self::Other(name),
        }
    }
}

impl fmt::Display for TypeFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Self::Integer => "integer",
            Self::Text => "text",
            Self::Boolean => "boolean",
            Self::Timestamp => "timestamp",
            Self::Date => "date",
            Self::Bytes => "bytes",
            Self::Float => "float",
            Self::Numeric => "numeric",
            Self::Json => "json",
            Self::Uuid => "uuid",
            Self::Other(name) if name.is_empty() => "untyped",
            Self::Other(name) => name,
        };
        f.write_str(name)
    }
}

/// `columns` of the table reference `referenced_columns` of `references`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ForeignKey {
    pub columns: Vec<String>,
    pub references: String,
    pub referenced_columns: Vec<String>,
    /// `NO ACTION`, `RESTRICT`, `CASCADE`, `SET NULL` or `SET DEFAULT`.
    pub on_delete: String,
    pub on_update: String,
}

impl fmt::Display for ForeignKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "foreign key ({}) references {} ({}) on delete {} on update {}",
            self.columns.join(", "),
            self.references,
            self.referenced_columns.join(", "),
            self.on_delete.to_ascii_lowercase(),
            self.on_update.to_ascii_lowercase(),
        )
    }
}

/// An index made with `CREATE [UNIQUE] INDEX`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// Each key: a column name or an expression, normalised
    /// ([`normalise_expression`](super::normalise_expression)).
    pub columns: Vec<String>,
    pub unique: bool,
    /// The `WHERE` of a partial index, normalised
    /// ([`normalise_predicate`](super::normalise_predicate)).
    pub predicate: Option<String>,
}

impl fmt::Display for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.unique {
            f.write_str("unique ")?;
        }
        write!(f, "({})", self.columns.join(", "))?;
        if let Some(predicate) = &self.predicate {
            write!(f, " where {predicate}")?;
        }
        Ok(())
    }
}
