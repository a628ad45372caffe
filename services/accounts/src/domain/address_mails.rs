//! The mails anyone can make accounts send to an address just by typing it: the confirmation
//! and verification links, and the notices that an address is already in use. Registration
//! needs no account, a valid RUT is easy to make up, and each new registration is a new member
//! id, so the limits per member and per client address did not bound what one mailbox could be
//! sent: a stranger with a few addresses could flood a member's inbox with Mi Club's own mail,
//! and a flood of unwanted mail from the club's domain is what lands the login codes of every
//! member in spam.
//!
//! So each address may be sent at most [`MAILS_PER_ADDRESS`] of them per
//! [`ADDRESS_MAIL_WINDOW`], counted under the SHA-256 of the mailbox it reaches (never the
//! address itself; `+tags` and Gmail's dots do not make a new one) in the ephemeral store. Past
//! that nothing is mailed and the caller's answer does not change: registration answers as it
//! always does (it must not tell whether an address is a member's), and the member can ask for
//! the link again the next day. A mail the relay refused is given back: an outage does not
//! spend an address's day. What a member's own account sends (codes, the notices of a change)
//! is not counted here: auth's daily code caps and the account's own actions bound those, and a
//! security notice is never held back.

use std::time::Duration;

use miclub_platform::ephemeral::SharedStore;

use super::{Email, left_email_digest};

/// Links and in-use notices one address may be sent per [`ADDRESS_MAIL_WINDOW`]: a member who
/// registers, asks again a few times and changes the address later stays well inside it.
pub const MAILS_PER_ADDRESS: i64 = 10;
pub const ADDRESS_MAIL_WINDOW: Duration = Duration::from_secs(24 * 60 * 60);

/// The per-address budget of the module header.
#[derive(Debug, Clone)]
pub struct AddressMails {
    counters: SharedStore,
}

impl AddressMails {
    pub fn new(counters: SharedStore) -> Self {
        Self { counters }
    }

    /// Takes one mail of `email`'s budget: false once it is spent. Fails open, with a warning:
    /// the store being down must not cost a member their verification link, and the limits per
    /// client address still bound a flood meanwhile.
    pub async fn take(&self, email: &Email) -> bool {
        match self.counters.incr(&key(email), ADDRESS_MAIL_WINDOW).await {
            Ok(sent) => sent <= MAILS_PER_ADDRESS,
            Err(err) => {
                tracing::warn!(error = %err, "address mail budget not counted; mailing anyway");
                true
            }
        }
    }

    /// Gives back the mail [`Self::take`] took when the relay did not take it: an outage must
    /// not spend an address's day.
    pub async fn give_back(&self, email: &Email) {
        if let Err(err) = self.counters.give_back(&key(email)).await {
            tracing::warn!(error = %err, "address mail budget not given back");
        }
    }
}

fn key(email: &Email) -> String {
    let mut key = String::from("accounts:address-mails:");
    key.push_str(&left_email_digest(&mailbox(email)));
    key
}

/// The mailbox `email` reaches, as far as the address tells: a `+tag` reaches the same inbox
/// at most providers, and Gmail ignores dots (and answers at googlemail.com too), so
/// `ana+1@…`, `ana+2@…` and `a.n.a@gmail.com` would otherwise each get a budget of their own.
/// Two real mailboxes that only differ there share one, a stricter limit and nothing more.
fn mailbox(email: &Email) -> String {
    let (local, domain) = email.as_str().split_once('@').expect("an email has an @");
    let local = local.split('+').next().unwrap_or_default();
    match domain {
        "gmail.com" | "googlemail.com" => format!("{}@gmail.com", local.replace('.', "")),
        _ => format!("{local}@{domain}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mailbox_of(address: &str) -> String {
        mailbox(&Email::parse(address).unwrap())
    }

    #[test]
    fn tagged_addresses_and_gmail_s_dots_count_as_the_mailbox_they_reach() {
        assert_eq!(mailbox_of("Ana+Registro@Correo.cl"), "ana@correo.cl");
        assert_eq!(mailbox_of("ana+1+2@correo.cl"), "ana@correo.cl");
        assert_eq!(mailbox_of("a.n.a+x@googlemail.com"), "ana@gmail.com");
        assert_eq!(mailbox_of("a.na@gmail.com"), "ana@gmail.com");
        // Dots matter elsewhere.
        assert_eq!(mailbox_of("a.na@correo.cl"), "a.na@correo.cl");
        assert_eq!(mailbox_of("+tag@correo.cl"), "@correo.cl");
    }
}
