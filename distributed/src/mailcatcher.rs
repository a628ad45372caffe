//! The local mail catcher: maildev (npm, pinned in `tools/mailcatcher/package-lock.json`)
//! receiving the services' SMTP over implicit TLS with a certificate of the local CA and the
//! generated user name and password, as a production relay would; its REST API serves the
//! captured messages as JSON at `GET /api/email`, which [`caught`] reads for the tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::process::Command;

use crate::pki::CertFiles;
use crate::processes::Child;
use crate::readiness;

/// A running maildev.
#[derive(Debug)]
pub struct MailCatcher {
    pub child: Child,
    pub smtp_port: u16,
    /// `http://127.0.0.1:<web port>/api/email`: every captured message, as JSON.
    pub json_url: String,
}

/// What the catcher is started with.
#[derive(Debug)]
pub struct MailCatcherOptions<'a> {
    /// `tools/mailcatcher`: its package.json and lockfile.
    pub package_dir: &'a Path,
    pub cert: &'a CertFiles,
    pub username: &'a str,
    pub password: &'a str,
    pub smtp_port: u16,
    pub web_port: u16,
    pub log: &'a Path,
}

/// Installs maildev from the lockfile when it is missing (`npm ci`).
pub async fn ensure_installed(package_dir: &Path, log: &Path) -> anyhow::Result<PathBuf> {
    let entry = package_dir.join("node_modules/maildev/dist/bin/maildev.js");
    if entry.exists() {
        return Ok(entry);
    }
    tracing::info!(dir = %package_dir.display(), "installing the mail catcher (npm ci)");
    let log_file = std::fs::File::create(log)?;
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(package_dir)
        .stdout(log_file.try_clone()?)
        .stderr(log_file)
        .status()
        .await
        .context("running npm ci for the mail catcher (are node and npm installed?)")?;
    if !status.success() || !entry.exists() {
        bail!(
            "npm ci in {} failed; see {}",
            package_dir.display(),
            log.display()
        );
    }
    Ok(entry)
}

impl MailCatcher {
    pub async fn start(options: MailCatcherOptions<'_>) -> anyhow::Result<Self> {
        let entry = ensure_installed(options.package_dir, options.log).await?;
        let mut command = Command::new("node");
        command
            .arg(entry)
            .args(["--ip", "127.0.0.1", "--web-ip", "127.0.0.1"])
            .args(["--smtp", &options.smtp_port.to_string()])
            .args(["--web", &options.web_port.to_string()])
            .arg("--incoming-secure")
            .arg("--incoming-cert")
            .arg(&options.cert.cert)
            .arg("--incoming-key")
            .arg(&options.cert.key)
            .args(["--incoming-user", options.username])
            .args(["--incoming-pass", options.password])
            .current_dir(options.package_dir);
        let mut child = Child::spawn("mailcatcher", command, options.log)?;
        let pid = child
            .pid()
            .context("a started mail catcher without a pid")?;
        let json_url = format!("http://127.0.0.1:{}/api/email", options.web_port);
        let client = reqwest::Client::new();
        // Both ports must be this node's own: another catcher that took the web port first
        // would answer the probe while this one exits on EADDRINUSE, and the run would read
        // (and lose) a stranger's mailbox.
        readiness::wait_until(&mut child, Duration::from_secs(60), || async {
            readiness::owns_listener(pid, options.smtp_port)
                && readiness::owns_listener(pid, options.web_port)
                && readiness::http_ok(&client, &json_url).await
        })
        .await?;
        Ok(Self {
            child,
            smtp_port: options.smtp_port,
            json_url,
        })
    }
}

/// One message the catcher holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaughtMail {
    pub to: Vec<String>,
    pub subject: String,
    pub text: String,
}

impl CaughtMail {
    /// The one-time code in the text, as auth writes it ("… es 012345. Vence en …").
    pub fn code(&self) -> Option<String> {
        let (_, after) = self.text.split_once(" es ")?;
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        ((6..=9).contains(&digits.len()) && after[digits.len()..].starts_with(". Vence"))
            .then_some(digits)
    }
}

/// Every message caught so far, newest first (maildev lists them oldest first).
pub async fn caught(client: &reqwest::Client, json_url: &str) -> anyhow::Result<Vec<CaughtMail>> {
    let listed: Vec<serde_json::Value> = client
        .get(json_url)
        .send()
        .await
        .with_context(|| format!("reading the caught mail at {json_url}"))?
        .error_for_status()?
        .json()
        .await?;
    Ok(listed
        .iter()
        .rev()
        .map(|mail| CaughtMail {
            to: mail["to"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|to| to["address"].as_str().map(str::to_owned))
                .collect(),
            subject: mail["subject"].as_str().unwrap_or_default().to_owned(),
            text: mail["text"].as_str().unwrap_or_default().to_owned(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::CaughtMail;

    fn mail(text: &str) -> CaughtMail {
        CaughtMail {
            to: vec!["ana@example.cl".into()],
            subject: "Tu código de acceso a Mi Club".into(),
            text: text.into(),
        }
    }

    #[test]
    fn the_code_is_the_digits_auth_writes_before_the_expiry_and_nothing_else() {
        let login = mail("Tu código para ingresar a Mi Club es 012345. Vence en 5 minutos.");
        assert_eq!(login.code().as_deref(), Some("012345"));
        let no_code = mail("Tu RUT 11111111 es tuyo. Gracias por ser parte de Mi Club.");
        assert_eq!(no_code.code(), None);
    }
}
