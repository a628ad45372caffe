//! Which methods each internal client may call: the scope auth signs into its service tokens
//! (`platform::access` checks it on every port).
//!
//! The club's own services and the two outside clients it ships with have a default grant,
//! [`DEFAULT_GRANTS`], each method one their code calls (the gateway's anonymous calls made on a
//! visitor's behalf, accounts' calls into auth, registration's joining calls, missions' rewards)
//! or their role needs (`pos`, the store systems: posting purchases and reading what one earned;
//! `ops`, the operator tools: content, missions and due accruals). `auth.client_methods.<client>` replaces one client's
//! grant (`APP_AUTH__CLIENT_METHODS__POS="miclub.accounts.v1.AccountsService/PostPurchase"`,
//! comma-separated from the environment) and adds clients. docs/api.md lists who may call each
//! method; a test holds it to this table.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One client's methods, as a TOML list or one comma-separated string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct MethodList(
    #[serde(deserialize_with = "miclub_platform::config::list_or_csv")] pub Vec<String>,
);

const AUTH: &str = "miclub.auth.v1.AuthService";
const ACCOUNTS: &str = "miclub.accounts.v1.AccountsService";
const CONTENT: &str = "miclub.content.v1.ContentService";
const MISSIONS: &str = "miclub.missions.v1.MissionsService";
const REGISTRATION: &str = "miclub.registration.v1.RegistrationService";

/// A gRPC service's full name and some of its method names.
pub type ServiceMethods = (&'static str, &'static [&'static str]);

/// Client id → (service, methods) of its default grant.
pub const DEFAULT_GRANTS: &[(&str, &[ServiceMethods])] = &[
    (
        "gateway",
        &[
            (
                AUTH,
                &[
                    "StartLogin",
                    "ResendOtp",
                    "VerifyOtp",
                    "RefreshSession",
                    "Logout",
                    "StartPasswordReset",
                    "ResendPasswordReset",
                    "CompletePasswordReset",
                ],
            ),
            (
                ACCOUNTS,
                &[
                    "ListGenders",
                    "ConfirmEmail",
                    "RestoreEmail",
                    "ResendVerificationEmail",
                    "ListUnsubscribeReasons",
                ],
            ),
            (
                CONTENT,
                &[
                    "GetCurrentTerms",
                    "ListPromotions",
                    "ListAlliances",
                    "ListBanners",
                    "ListFaqs",
                    "GetFlags",
                    "Simulate",
                ],
            ),
            (
                REGISTRATION,
                &[
                    "StartRegistration",
                    "GetRegistration",
                    "SubmitPersonalData",
                    "CompleteRegistration",
                    "CancelRegistration",
                ],
            ),
        ],
    ),
    (
        "accounts",
        &[(
            AUTH,
            &[
                "SetLoginEmail",
                "VerifyPassword",
                "EndSessions",
                "DisableCredentials",
            ],
        )],
    ),
    (
        "registration",
        &[
            (AUTH, &["CheckPasswordRules", "CreateCredentials"]),
            (
                ACCOUNTS,
                &[
                    "CheckRegistrationIdentity",
                    "CheckRegistrationProfile",
                    "RegisterMember",
                    "ActivateMember",
                ],
            ),
            (CONTENT, &["GetCurrentTerms"]),
        ],
    ),
    ("missions", &[(ACCOUNTS, &["GrantReward"])]),
    (
        "pos",
        &[(ACCOUNTS, &["PostPurchase", "GetMemberMovementDetail"])],
    ),
    (
        "ops",
        &[
            (ACCOUNTS, &["RecordMovement", "ConfirmDueAccruals"]),
            (
                CONTENT,
                &[
                    "SetFlag",
                    "PublishTerms",
                    "UpsertPromotion",
                    "UpsertAlliance",
                    "UpsertBanner",
                    "UpsertFaq",
                    "GetFlags",
                ],
            ),
            (MISSIONS, &["UpsertMission", "SetHistoryLoading"]),
        ],
    ),
];

/// The methods of every client: the defaults with `configured` replacing whole clients.
pub fn grants(configured: &BTreeMap<String, MethodList>) -> BTreeMap<String, Vec<String>> {
    let mut grants: BTreeMap<String, Vec<String>> = DEFAULT_GRANTS
        .iter()
        .map(|(client, services)| {
            let methods = services
                .iter()
                .flat_map(|(service, methods)| {
                    methods.iter().map(move |m| format!("{service}/{m}"))
                })
                .collect();
            ((*client).to_owned(), methods)
        })
        .collect();
    for (client, methods) in configured {
        grants.insert(client.clone(), methods.0.clone());
    }
    grants
}

/// The table docs/api.md shows between its `grpc-access` markers: every served method, how it
/// may be called and which clients the default grants give it to.
pub fn access_table() -> String {
    use miclub_platform::access::{Access, access_of, served_methods};
    let grants = grants(&BTreeMap::new());
    let mut table = String::from("| Method | Access | Clients (default grants) |\n|---|---|---|\n");
    for method in served_methods() {
        let (access, clients) = match access_of(&method) {
            Access::Open => ("open", "anyone who reaches the port".to_owned()),
            Access::Member => (
                "member",
                "a member's access token (through the gateway)".to_owned(),
            ),
            Access::Scoped => {
                let clients: Vec<&str> = grants
                    .iter()
                    .filter(|(_, methods)| methods.contains(&method))
                    .map(|(client, _)| client.as_str())
                    .collect();
                let clients = if clients.is_empty() {
                    "none by default".to_owned()
                } else {
                    clients.join(", ")
                };
                ("scoped", clients)
            }
        };
        table.push_str(&format!("| `{method}` | {access} | {clients} |\n"));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_grant_names_a_served_method_that_takes_a_scope() {
        for (client, methods) in grants(&BTreeMap::new()) {
            if let Err(err) = miclub_platform::access::check_grantable(&methods) {
                panic!("default grant of {client}: {err}");
            }
        }
    }

    #[test]
    fn the_missions_client_may_grant_rewards_and_record_no_other_movement() {
        let grants = grants(&BTreeMap::new());
        assert_eq!(
            grants["missions"],
            ["miclub.accounts.v1.AccountsService/GrantReward"]
        );
        let recording: Vec<&str> = grants
            .iter()
            .filter(|(_, methods)| {
                methods.contains(&"miclub.accounts.v1.AccountsService/RecordMovement".to_owned())
            })
            .map(|(client, _)| client.as_str())
            .collect();
        assert_eq!(
            recording,
            ["ops"],
            "only the back office records other movements"
        );
    }

    #[test]
    fn docs_api_lists_who_may_call_each_method_as_the_code_grants_it() {
        let docs = include_str!("../../../docs/api.md");
        let start = "<!-- grpc-access:start -->\n";
        let end = "<!-- grpc-access:end -->";
        let listed = docs
            .split_once(start)
            .and_then(|(_, rest)| rest.split_once(end))
            .map(|(table, _)| table)
            .expect("docs/api.md has the grpc-access markers");
        let expected = access_table();
        assert!(
            listed == expected,
            "docs/api.md's gRPC access table is out of date; between the markers it should read:\n{expected}"
        );
    }

    #[test]
    fn a_configured_client_replaces_its_default_and_keeps_the_others() {
        let configured = BTreeMap::from([(
            "pos".to_owned(),
            MethodList(vec![
                "miclub.accounts.v1.AccountsService/ConfirmDueAccruals".into(),
            ]),
        )]);
        let grants = grants(&configured);
        assert_eq!(
            grants["pos"],
            ["miclub.accounts.v1.AccountsService/ConfirmDueAccruals"]
        );
        assert!(grants["gateway"].contains(&"miclub.auth.v1.AuthService/StartLogin".to_owned()));
    }

    #[test]
    fn a_client_grant_reads_from_toml_or_from_one_environment_string() {
        let layered = miclub_platform::config::Layered::from_toml(
            miclub_platform::config::Environment::Development,
            "[auth.client_methods]\nkiosk = \"a/B, c/D\"\nops = [\"e/F\"]\n",
        )
        .unwrap();
        let settings: crate::Settings = layered.section("auth").unwrap();
        assert_eq!(settings.client_methods["kiosk"].0, ["a/B", "c/D"]);
        assert_eq!(settings.client_methods["ops"].0, ["e/F"]);
    }
}
