//! The Redis keys of a test run: every key and stream under the run's prefix. They are dropped
//! with the run's databases, when it stops and when a start fails, so that a start tried again
//! on new ports begins with an empty keyspace as it begins with empty databases (a stream left
//! by the failed attempt would be read again by the next attempt's consumers).

use anyhow::Context;

/// Every key under one prefix on one Redis.
#[derive(Debug, Clone)]
pub struct PrefixedKeys {
    url: String,
    prefix: String,
}

impl PrefixedKeys {
    /// The keys under `prefix`; an empty prefix would name every key, and is refused.
    pub fn new(url: &str, prefix: &str) -> anyhow::Result<Self> {
        anyhow::ensure!(
            !prefix.is_empty(),
            "a test run's Redis prefix cannot be empty"
        );
        Ok(Self {
            url: url.to_owned(),
            prefix: prefix.to_owned(),
        })
    }

    /// Unlinks every key under the prefix; returns how many went.
    pub async fn drop_all(&self) -> anyhow::Result<u64> {
        let client = redis::Client::open(self.url.as_str()).context("the Redis url")?;
        let mut connection = client
            .get_multiplexed_async_connection()
            .await
            .context("connecting to Redis to drop the run's keys")?;
        let pattern = format!("{}*", escape_glob(&self.prefix));
        let mut cursor = 0_u64;
        let mut dropped = 0;
        loop {
            let (next, keys): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(1000)
                .query_async(&mut connection)
                .await?;
            if !keys.is_empty() {
                dropped += redis::cmd("UNLINK")
                    .arg(&keys)
                    .query_async::<u64>(&mut connection)
                    .await?;
            }
            if next == 0 {
                return Ok(dropped);
            }
            cursor = next;
        }
    }
}

/// `text` matched literally by a Redis glob (`SCAN MATCH`).
fn escape_glob(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::escape_glob;

    #[test]
    fn a_prefix_is_matched_literally_even_with_glob_characters() {
        assert_eq!(escape_glob("test:ab12:"), "test:ab12:");
        assert_eq!(escape_glob("a*b?[c]\\"), "a\\*b\\?\\[c\\]\\\\");
    }
}
