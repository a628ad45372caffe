//! A transaction on the service's database, whichever pool holds its connection: on PostgreSQL
//! a connection of [`super::statements`] (handed back without a ping), on SQLite sqlx's own
//! transaction. Statements run on `&mut *tx`, as on sqlx's `Transaction`; ending it takes
//! [`Transaction::commit`] or [`Transaction::rollback`], and one dropped open is rolled back.

use std::ops::{Deref, DerefMut};

use sqlx::AnyConnection;
use sqlx::any::Any;

use super::statements::Open;

pub struct Transaction {
    inner: Inner,
}

enum Inner {
    Held(Open),
    Pooled(sqlx::Transaction<'static, Any>),
}

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let on = match self.inner {
            Inner::Held(_) => "statements pool",
            Inner::Pooled(_) => "sqlx pool",
        };
        f.debug_struct("Transaction").field("on", &on).finish()
    }
}

impl Transaction {
    pub(super) fn held(open: Open) -> Self {
        Self {
            inner: Inner::Held(open),
        }
    }

    pub(super) fn pooled(tx: sqlx::Transaction<'static, Any>) -> Self {
        Self {
            inner: Inner::Pooled(tx),
        }
    }

    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self.inner {
            Inner::Held(open) => open.end("COMMIT").await,
            Inner::Pooled(tx) => tx.commit().await,
        }
    }

    pub async fn rollback(self) -> Result<(), sqlx::Error> {
        match self.inner {
            Inner::Held(open) => open.end("ROLLBACK").await,
            Inner::Pooled(tx) => tx.rollback().await,
        }
    }
}

impl Deref for Transaction {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        match &self.inner {
            Inner::Held(open) => open.connection_ref(),
            Inner::Pooled(tx) => tx,
        }
    }
}

impl DerefMut for Transaction {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        match &mut self.inner {
            Inner::Held(open) => open.connection(),
            Inner::Pooled(tx) => tx,
        }
    }
}
