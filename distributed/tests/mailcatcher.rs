//! The mail catcher against the real maildev: a catcher is ready only on its own ports, so a
//! run whose web port another catcher took first fails as a port collision (and is started
//! again on new ports) instead of reading the other run's mailbox.

mod support;

use std::net::TcpListener;

use miclub_distributed::mailcatcher::{MailCatcher, MailCatcherOptions};
use miclub_distributed::pki::Pki;
use miclub_distributed::readiness;

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn a_catcher_whose_web_port_another_catcher_holds_fails_as_a_taken_port_not_as_ready() {
    require!(false, true);
    let state = tempfile::tempdir().unwrap();
    let pki = Pki::load_or_create(&state.path().join("pki"), &["mailcatcher".into()]).unwrap();
    let package_dir = support::repo_root().join("tools/mailcatcher");
    let (first_log, second_log) = (
        state.path().join("first.log"),
        state.path().join("second.log"),
    );
    let options = |smtp_port, web_port, log| MailCatcherOptions {
        package_dir: &package_dir,
        cert: pki.cert("mailcatcher").unwrap(),
        username: "miclub",
        password: "secret",
        smtp_port,
        web_port,
        log,
    };

    let first = MailCatcher::start(options(free_port(), free_port(), &first_log))
        .await
        .expect("the first catcher starts on free ports");
    let taken_web_port = first.json_url.rsplit(':').next().unwrap();
    let taken_web_port: u16 = taken_web_port
        .trim_end_matches("/api/email")
        .parse()
        .unwrap();

    let second = MailCatcher::start(options(free_port(), taken_web_port, &second_log)).await;
    let err = second.expect_err("a catcher on a taken web port is never ready");
    assert!(
        readiness::port_taken(&err),
        "the failure names the collision, so the topology starts again on new ports: {err:#}"
    );

    // The first catcher still serves its own mailbox.
    let answer = reqwest::get(&first.json_url).await.unwrap();
    assert!(answer.status().is_success());
}
