//! docs/api.md's table of error codes is the prose copy of [`ErrorCode`]'s catalogue: this test
//! holds the two together, so a code added, renumbered or reworded in the catalogue fails here
//! until the table says the same.

use std::collections::BTreeMap;

use miclub_platform::error::ErrorCode;

/// The rows `| ERR_… | status | text |` of docs/api.md's "Error codes and texts" table.
fn documented() -> BTreeMap<String, (u16, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/api.md");
    let text = std::fs::read_to_string(path).expect("docs/api.md is readable");
    text.lines()
        .filter(|line| line.starts_with("| ERR_"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            assert!(cells.len() >= 3, "a row of code, status and text: {line}");
            let status = cells[1]
                .parse()
                .unwrap_or_else(|_| panic!("a numeric status: {line}"));
            (cells[0].to_string(), (status, cells[2..].join(" | ")))
        })
        .collect()
}

#[test]
fn every_error_code_is_documented_with_its_status_and_text_and_nothing_else_is() {
    let table = documented();
    for code in ErrorCode::ALL {
        let (status, text) = table
            .get(code.as_str())
            .unwrap_or_else(|| panic!("{} is missing from docs/api.md", code.as_str()));
        assert_eq!(
            *status,
            code.http_status().as_u16(),
            "{}'s status",
            code.as_str()
        );
        // The table may name the dated form a member reads, and add a note in parentheses.
        let text = text.replace(" el DD-MM-YYYY", "");
        assert!(
            text.starts_with(code.message()),
            "{}: docs/api.md says {text:?}, the catalogue {:?}",
            code.as_str(),
            code.message()
        );
    }
    let unknown: Vec<&String> = table
        .keys()
        .filter(|code| ErrorCode::parse(code).is_none())
        .collect();
    assert!(
        unknown.is_empty(),
        "documented codes the catalogue lacks: {unknown:?}"
    );
}
