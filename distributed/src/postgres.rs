//! One database and one role per service on the local PostgreSQL, as production has them: the
//! role `<prefix><service>` logs in with a generated password, owns its database and its
//! `public` schema, and may connect to nothing else (CONNECT is revoked from PUBLIC on each
//! database and granted to its role only).

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use sqlx::{Connection, Executor, PgConnection};

/// The provisioned databases.
#[derive(Debug, Clone)]
pub struct Databases {
    admin_url: String,
    /// Service → its database (and role) name.
    pub names: BTreeMap<String, String>,
    /// Service → the URL its process connects with.
    pub urls: BTreeMap<String, String>,
}

/// Creates (or updates) the role and database of each service; `password` gives each role's.
pub async fn provision(
    admin_url: &str,
    prefix: &str,
    services: &[String],
    mut password: impl FnMut(&str) -> anyhow::Result<String>,
) -> anyhow::Result<Databases> {
    let mut admin = PgConnection::connect(admin_url).await.with_context(|| {
        format!(
            "connecting to PostgreSQL as the admin ({})",
            redact(admin_url)
        )
    })?;
    let mut databases = Databases {
        admin_url: admin_url.to_owned(),
        names: BTreeMap::new(),
        urls: BTreeMap::new(),
    };
    for service in services {
        let name = format!("{prefix}{service}");
        if name.is_empty()
            || name.len() > 63
            || !name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        {
            bail!("{name:?} is not a plain PostgreSQL name (lowercase letters, digits, _)");
        }
        let secret = password(service)?;
        let literal = secret.replace('\'', "''");
        let role_exists = sqlx::query("SELECT 1 FROM pg_roles WHERE rolname = $1")
            .bind(&name)
            .fetch_optional(&mut admin)
            .await?
            .is_some();
        let verb = if role_exists { "ALTER" } else { "CREATE" };
        admin
            .execute(sqlx::AssertSqlSafe(format!(
                    "{verb} ROLE {name} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '{literal}'"
                )))
            .await
            .with_context(|| format!("{verb} ROLE {name}"))?;
        let database_exists = sqlx::query("SELECT 1 FROM pg_database WHERE datname = $1")
            .bind(&name)
            .fetch_optional(&mut admin)
            .await?
            .is_some();
        if !database_exists {
            admin
                .execute(sqlx::AssertSqlSafe(format!(
                    "CREATE DATABASE {name} OWNER {name}"
                )))
                .await
                .with_context(|| format!("CREATE DATABASE {name}"))?;
        }
        admin
            .execute(sqlx::AssertSqlSafe(format!(
                "REVOKE ALL ON DATABASE {name} FROM PUBLIC"
            )))
            .await?;
        admin
            .execute(sqlx::AssertSqlSafe(format!(
                "GRANT CONNECT, TEMPORARY ON DATABASE {name} TO {name}"
            )))
            .await?;
        let mut inside = PgConnection::connect(&with_database(admin_url, &name, None)?).await?;
        inside
            .execute(sqlx::AssertSqlSafe(format!(
                "ALTER SCHEMA public OWNER TO {name}"
            )))
            .await?;
        inside
            .execute("REVOKE ALL ON SCHEMA public FROM PUBLIC")
            .await?;
        inside.close().await?;
        databases.urls.insert(
            service.clone(),
            with_database(admin_url, &name, Some((&name, &secret)))?,
        );
        databases.names.insert(service.clone(), name);
    }
    admin.close().await?;
    Ok(databases)
}

impl Databases {
    /// Drops every database and role (tests).
    pub async fn drop_all(&self) -> anyhow::Result<()> {
        let mut admin = PgConnection::connect(&self.admin_url).await?;
        for name in self.names.values() {
            admin
                .execute(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .await?;
            admin
                .execute(sqlx::AssertSqlSafe(format!("DROP ROLE IF EXISTS {name}")))
                .await?;
        }
        admin.close().await?;
        Ok(())
    }
}

/// `admin_url` with another database and, when given, another user and password.
pub fn with_database(
    admin_url: &str,
    database: &str,
    credentials: Option<(&str, &str)>,
) -> anyhow::Result<String> {
    let mut url = url::Url::parse(admin_url).context("the PostgreSQL admin url")?;
    url.set_path(&format!("/{database}"));
    if let Some((user, password)) = credentials {
        url.set_username(user)
            .map_err(|()| anyhow::anyhow!("cannot set the user of the url"))?;
        url.set_password(Some(password))
            .map_err(|()| anyhow::anyhow!("cannot set the password of the url"))?;
    }
    Ok(url.to_string())
}

/// The url without its password, for messages.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}
