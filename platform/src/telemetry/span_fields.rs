//! The fields of a span as the JSON log lines carry them (`"span": {…}`), written once when the
//! span is made, as a JSON object.
//!
//! tracing-subscriber's `JsonFields` does the same through a `BTreeMap` of `serde_json::Value`s
//! serialized through an `io::Write` adapter: one map node and one `String` per field, and a
//! UTF-8 check per write. Every request makes two spans (the gateway's request span and the
//! service's gRPC span) and most write no line, so that was the largest part of the portal's
//! own work per balance request (`bench/instructions.sh`). [`JsonSpanFields`] writes each field
//! straight into the span's string. The lines come out the same: the JSON event formatter parses
//! the object back into a sorted map before writing it, so the order in which fields are
//! written here does not show, and a test compares the lines with `JsonFields`' own.

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::Writer;

/// [`FormatFields`] of the JSON log lines' span fields (see the module header).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct JsonSpanFields;

impl<'writer> FormatFields<'writer> for JsonSpanFields {
    fn format_fields<R: RecordFields>(
        &self,
        mut writer: Writer<'writer>,
        fields: R,
    ) -> fmt::Result {
        let mut object = ObjectWriter::new(&mut writer);
        fields.record(&mut object);
        object.finish()
    }

    fn add_fields(
        &self,
        current: &'writer mut tracing_subscriber::fmt::FormattedFields<Self>,
        fields: &tracing::span::Record<'_>,
    ) -> fmt::Result {
        // A field recorded after the span was made (rare): the object loses its closing brace
        // and the new fields follow; a name given twice is read back as its last value, as
        // `JsonFields` keeps it.
        if current.fields.is_empty() {
            return self.format_fields(current.as_writer(), fields);
        }
        let open = current
            .fields
            .trim_end()
            .strip_suffix('}')
            .ok_or(fmt::Error)?;
        let has_fields = open.trim_end() != "{";
        let mut reopened = open.to_owned();
        let mut object = ObjectWriter {
            out: &mut reopened,
            written: has_fields,
            error: None,
        };
        fields.record(&mut object);
        object.finish()?;
        current.fields = reopened;
        Ok(())
    }
}

/// Writes the fields it visits as the members of one JSON object.
struct ObjectWriter<'a> {
    out: &'a mut dyn fmt::Write,
    written: bool,
    error: Option<fmt::Error>,
}

impl<'a> ObjectWriter<'a> {
    fn new(out: &'a mut dyn fmt::Write) -> Self {
        let error = out.write_char('{').err();
        Self {
            out,
            written: false,
            error,
        }
    }

    fn finish(self) -> fmt::Result {
        if let Some(error) = self.error {
            return Err(error);
        }
        self.out.write_char('}')
    }

    /// `"name":` and the value `write_value` writes, after a comma unless it is the first.
    fn member(&mut self, name: &str, write_value: impl FnOnce(&mut dyn fmt::Write) -> fmt::Result) {
        if self.error.is_some() {
            return;
        }
        let result = (|| {
            if self.written {
                self.out.write_char(',')?;
            }
            write_json_string(self.out, name)?;
            self.out.write_char(':')?;
            write_value(self.out)
        })();
        self.written = true;
        self.error = result.err();
    }
}

impl Visit for ObjectWriter<'_> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        // As serde_json writes a float: a number, or null for what JSON cannot hold.
        self.member(field.name(), |out| {
            match serde_json::Number::from_f64(value) {
                Some(number) => write!(out, "{number}"),
                None => out.write_str("null"),
            }
        });
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.member(field.name(), |out| write!(out, "{value}"));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.member(field.name(), |out| write!(out, "{value}"));
    }

    fn record_i128(&mut self, field: &Field, value: i128) {
        self.record_debug(field, &value);
    }

    fn record_u128(&mut self, field: &Field, value: u128) {
        self.record_debug(field, &value);
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.member(field.name(), |out| {
            out.write_str(if value { "true" } else { "false" })
        });
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.member(field.name(), |out| write_json_string(out, value));
    }

    fn record_bytes(&mut self, field: &Field, value: &[u8]) {
        // serde_json's `Value::from(&[u8])`: an array of numbers.
        self.member(field.name(), |out| {
            out.write_char('[')?;
            for (i, byte) in value.iter().enumerate() {
                if i > 0 {
                    out.write_char(',')?;
                }
                write!(out, "{byte}")?;
            }
            out.write_char(']')
        });
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.record_debug(field, &format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        // The log crate's metadata, which the line already carries (as `JsonFields` skips it).
        // `JsonFields` strips a raw identifier's `r#` here only, so this does too.
        let name = field.name();
        if name.starts_with("log.") {
            return;
        }
        self.member(name.strip_prefix("r#").unwrap_or(name), |out| {
            out.write_char('"')?;
            write!(EscapeJson(out), "{value:?}")?;
            out.write_char('"')
        });
    }
}

/// `value` as a JSON string, quotes included.
fn write_json_string(out: &mut dyn fmt::Write, value: &str) -> fmt::Result {
    out.write_char('"')?;
    EscapeJson(out).write_str(value)?;
    out.write_char('"')
}

/// Escapes what passes through it as the inside of a JSON string, as serde_json does.
struct EscapeJson<'a>(&'a mut dyn fmt::Write);

impl fmt::Write for EscapeJson<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        // Almost every value (routes, ids, methods) needs no escape: one pass without an early
        // exit, which the compiler turns into wide compares, then one write.
        let needs_escape = s.bytes().fold(false, |found, byte| {
            found | (byte < 0x20) | (byte == b'"') | (byte == b'\\')
        });
        if !needs_escape {
            return self.0.write_str(s);
        }
        let mut start = 0;
        for (i, byte) in s.bytes().enumerate() {
            let escape = match byte {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0x00..=0x1f => "",
                _ => continue,
            };
            self.0.write_str(&s[start..i])?;
            if escape.is_empty() {
                write!(self.0, "\\u{byte:04x}")?;
            } else {
                self.0.write_str(escape)?;
            }
            start = i + 1;
        }
        self.0.write_str(&s[start..])
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::fmt::format::JsonFields;
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;
    use crate::telemetry::tests::Captured;

    /// The JSON lines of a request-like span tree whose span fields `fields` formats.
    fn lines_with<N>(fields: N) -> Vec<serde_json::Value>
    where
        N: for<'w> FormatFields<'w> + Send + Sync + 'static,
    {
        let captured = Captured::default();
        let layer = tracing_subscriber::fmt::layer()
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(true)
            .without_time()
            .fmt_fields(fields)
            .with_writer(captured.clone());
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let span = tracing::info_span!(
                "request",
                text = "a \"quoted\"\n\tline \\ with \u{1} and ñ",
                number = -3i64,
                unsigned = 7u64,
                float = 1.5f64,
                not_a_number = f64::NAN,
                flag = true,
                big = 1u128 << 100,
                shown = %"display",
                debugged = ?vec!["a", "b"],
                r#type = "raw",
                later = tracing::field::Empty,
            );
            let _request = span.enter();
            tracing::info!(inner = 1, "first line");
            span.record("later", "recorded");
            span.record("number", 4i64);
            let empty = tracing::info_span!("empty");
            let _empty = empty.enter();
            let error = std::io::Error::other("disk \"full\"");
            let child = tracing::info_span!("child", error = &error as &dyn std::error::Error);
            let _child = child.enter();
            tracing::info!("second line");
        });
        captured.lines()
    }

    #[test]
    fn a_log_line_carries_the_same_span_fields_as_with_the_json_fields_of_tracing_subscriber() {
        let ours = lines_with(JsonSpanFields);
        assert_eq!(ours.len(), 2);
        assert_eq!(ours[0]["span"]["number"], -3);
        assert_eq!(ours[1]["spans"][0]["later"], "recorded");
        assert_eq!(ours[1]["spans"][0]["number"], 4);
        assert_eq!(ours[1]["span"]["error"], "disk \"full\"");
        assert_eq!(ours, lines_with(JsonFields::new()));
    }
}
