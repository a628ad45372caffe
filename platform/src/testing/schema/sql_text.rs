//! SQL text as both readers store it: index keys and partial-index predicates normalised into
//! comparable token lists ([`normalise_expression`], [`normalise_predicate`]), and the keys and
//! predicate of a `CREATE INDEX` statement (SQLite keeps an expression key only there).

/// The key expressions and the normalised predicate of a `CREATE INDEX … ON t (…) [WHERE …]`.
pub(super) fn parse_create_index(sql: &str) -> (Vec<String>, Option<String>) {
    let tokens = tokenize(sql);
    let Some(on) = tokens.iter().position(|token| token == "on") else {
        return (Vec::new(), None);
    };
    // `on`, the table, then the parenthesised key list.
    let mut position = on + 2;
    if tokens.get(position).map(String::as_str) != Some("(") {
        return (Vec::new(), None);
    }
    position += 1;
    let mut depth = 0;
    let mut keys = Vec::new();
    let mut key = Vec::new();
    while let Some(token) = tokens.get(position) {
        position += 1;
        match token.as_str() {
            "(" => depth += 1,
            ")" if depth == 0 => break,
            ")" => depth -= 1,
            "," if depth == 0 => {
                keys.push(std::mem::take(&mut key));
                continue;
            }
            _ => {}
        }
        key.push(token.clone());
    }
    if !key.is_empty() {
        keys.push(key);
    }
    let keys = keys.into_iter().map(key_expression).collect();
    let predicate = match tokens.get(position).map(String::as_str) {
        Some("where") => Some(predicate_of(tokens[position + 1..].to_vec())),
        _ => None,
    };
    (keys, predicate)
}

/// An index key (a column or an expression) as both readers store it: keywords and unquoted
/// identifiers lowercased, identifier quotes and `::type` casts dropped, parentheses around
/// the whole key dropped, no sort order (`ASC`/`DESC`).
pub fn normalise_expression(sql: &str) -> String {
    key_expression(tokenize(sql))
}

/// A partial index's predicate as both readers store it: as [`normalise_expression`], without
/// any parenthesis (PostgreSQL prints its own).
pub fn normalise_predicate(sql: &str) -> String {
    predicate_of(tokenize(sql))
}

fn key_expression(mut tokens: Vec<String>) -> String {
    while matches!(tokens.last().map(String::as_str), Some("asc" | "desc")) {
        tokens.pop();
    }
    while tokens.len() >= 2 && tokens[0] == "(" && closing_paren(&tokens) == tokens.len() - 1 {
        tokens.pop();
        tokens.remove(0);
    }
    render(&tokens)
}

fn predicate_of(tokens: Vec<String>) -> String {
    let tokens: Vec<String> = tokens
        .into_iter()
        .filter(|token| token != "(" && token != ")")
        .collect();
    render(&tokens)
}

/// The position of the parenthesis closing the one at position 0.
fn closing_paren(tokens: &[String]) -> usize {
    let mut depth = 0;
    for (position, token) in tokens.iter().enumerate() {
        match token.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return position;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// Tokens joined by single spaces, with none inside parentheses or before a call's `(`.
fn render(tokens: &[String]) -> String {
    let mut out = String::new();
    let mut previous: Option<&str> = None;
    for token in tokens {
        let glued = match previous {
            None => true,
            Some("(") => true,
            Some(previous) => {
                token == ")"
                    || token == ","
                    || (token == "("
                        && previous
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_'))
            }
        };
        if !glued {
            out.push(' ');
        }
        out.push_str(token);
        previous = Some(token.as_str());
    }
    out
}

/// Splits SQL text into lowercased words, verbatim `'literals'`, unquoted `"identifiers"`,
/// parentheses, commas and operators, dropping whitespace and `::type` casts.
fn tokenize(sql: &str) -> Vec<String> {
    let chars: Vec<char> = sql.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' {
            // A literal, with '' as an escaped quote.
            let start = i;
            i += 1;
            while i < chars.len() {
                if chars[i] == '\'' {
                    if chars.get(i + 1) == Some(&'\'') {
                        i += 2;
                        continue;
                    }
                    break;
                }
                i += 1;
            }
            i = (i + 1).min(chars.len());
            tokens.push(chars[start..i].iter().collect());
        } else if c == '"' || c == '`' {
            let start = i + 1;
            i = start;
            while i < chars.len() && chars[i] != c {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect::<String>().to_lowercase());
            i = (i + 1).min(chars.len());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            // A cast: skip the type name, with the later words of PostgreSQL's multi-word
            // names (`character varying`, `timestamp with time zone`, `double precision`).
            i += 2;
            let mut first = true;
            loop {
                let mut j = i;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                let start = j;
                while j < chars.len() && is_word(chars[j]) {
                    j += 1;
                }
                let word: String = chars[start..j].iter().collect::<String>().to_lowercase();
                let continues = matches!(
                    word.as_str(),
                    "varying" | "precision" | "with" | "without" | "time" | "zone"
                );
                if word.is_empty() || !(first || continues) {
                    break;
                }
                i = j;
                first = false;
            }
        } else if is_word(c) {
            let start = i;
            while i < chars.len() && is_word(chars[i]) {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect::<String>().to_lowercase());
        } else if c == '(' || c == ')' || c == ',' {
            tokens.push(c.to_string());
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && "<>=!~+-*/%|&^#@".contains(chars[i]) {
                i += 1;
            }
            if i == start {
                i += 1;
            }
            let operator: String = chars[start..i].iter().collect();
            tokens.push(if operator == "!=" {
                "<>".to_owned()
            } else {
                operator
            });
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_keys_and_predicates_read_the_same_however_each_backend_prints_them() {
        assert_eq!(normalise_expression("lower(email)"), "lower(email)");
        assert_eq!(normalise_expression("LOWER( email )"), "lower(email)");
        assert_eq!(normalise_expression("\"position\""), "position");
        assert_eq!(normalise_expression("(a + b) DESC"), "a + b");
        assert_eq!(
            normalise_predicate(
                "status = 'unsubscribed'::text AND credentials_disabled_at IS NULL"
            ),
            normalise_predicate("(status = 'unsubscribed') AND (credentials_disabled_at IS NULL)"),
        );
        assert_eq!(
            normalise_predicate("status = 'Pending'::character varying"),
            "status = 'Pending'"
        );
        assert_eq!(
            normalise_predicate("at < '2026-01-01'::timestamp with time zone AND x IS NULL"),
            "at < '2026-01-01' and x is null"
        );
        assert_eq!(normalise_predicate("a != 1"), normalise_predicate("a <> 1"));
        assert_ne!(
            normalise_predicate("status = 'active'"),
            normalise_predicate("status = 'pending'")
        );
        assert_eq!(
            parse_create_index(
                "CREATE UNIQUE INDEX m ON members (LOWER(email), created_at DESC) \
                 WHERE status = 'active'"
            ),
            (
                vec!["lower(email)".to_owned(), "created_at".to_owned()],
                Some("status = 'active'".to_owned())
            )
        );
    }
}
