//! What the standalone benchmarks share: Ana logging in through the portal's own API, as a
//! browser would, with the code the dev mailbox received.

use miclub_platform::demo::{DEMO_PASSWORD, MEMBERS};
use miclub_platform::notify::DevMailbox;
use serde_json::json;

/// Ana's password step and code step on the portal at `base`. `browser` must keep cookies (the
/// challenge cookie of the first step goes with the second). Returns the code step's answer,
/// whose `Set-Cookie` headers hold the session.
pub async fn log_in_ana(
    browser: &reqwest::Client,
    base: &str,
    mailbox: &DevMailbox,
) -> anyhow::Result<reqwest::Response> {
    let ana = &MEMBERS[0];
    let password = browser
        .post(format!("{base}/api/login"))
        .header("x-miclub-csrf", "1")
        .header("recaptcha-token", "bench")
        .json(&json!({"user": ana.rut, "password": DEMO_PASSWORD}))
        .send()
        .await?;
    anyhow::ensure!(
        password.status().is_success(),
        "Ana's password step: {}",
        password.status()
    );
    // Newest first: the code of the challenge just opened.
    let code = mailbox
        .list()
        .into_iter()
        .find(|mail| mail.to == ana.email)
        .and_then(|mail| mail.code)
        .ok_or_else(|| anyhow::anyhow!("no code was mailed to Ana"))?;
    let validated = browser
        .post(format!("{base}/api/validate-otp"))
        .header("x-miclub-csrf", "1")
        .json(&json!({"otp": code}))
        .send()
        .await?;
    anyhow::ensure!(
        validated.status().is_success(),
        "Ana's code step: {}",
        validated.status()
    );
    Ok(validated)
}
