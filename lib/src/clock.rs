//! Time as lf stores it (microseconds since the Unix epoch, UTC) and as it
//! shows it on the wire. [`Timestamp`] and [`Seconds`] are the wire's time
//! types: in JSON a timestamp is RFC 3339 text and a duration whole
//! seconds, but a serializer that is not human-readable (the Nushell
//! plugin's) receives them as named newtypes holding plain numbers, so it
//! makes datetimes and durations without parsing text back. The calendar
//! is `jiff`'s (without its time zone database: lf speaks UTC alone); the
//! text is written digit by digit, since a listing writes two per Session.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// Test-only: a fixed "now" (RFC 3339) for what a caller's clock stamps,
/// as jj's `JJ_TIMESTAMP`, so a test pins a line that carries a time
/// instead of waiting for the time to pass. Read through
/// `Caller::now`, and only where a test needs it; no person sets it.
pub const TEST_NOW_ENV: &str = "LF_TEST_NOW";

/// Microseconds since the Unix epoch.
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_micros() as i64)
        .unwrap_or(0)
}

/// An instant on the wire: microseconds since the Unix epoch, written as
/// RFC 3339 in UTC with microseconds (`2026-11-29T22:18:31.123456Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The newtype name a non-human-readable serializer sees; its value is
    /// the microseconds since the Unix epoch, as an `i64`.
    pub const SERDE_NAME: &'static str = "lf::Timestamp";

    pub fn now() -> Self {
        Timestamp(now_micros())
    }

    pub fn micros(self) -> i64 {
        self.0
    }

    /// Read RFC 3339 text: what this type writes, and any other offset
    /// or precision (`…T10:00:00+02:00`, `….5Z`, as Nushell's `to json`
    /// writes), to the microsecond. `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        // RFC 3339 alone, not the rest of what ISO 8601 allows.
        let bytes = text.as_bytes();
        let punctuation = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
        if bytes.len() < 20
            || punctuation.iter().any(|&(at, byte)| bytes[at] != byte)
            || !matches!(bytes[10], b'T' | b't' | b' ')
        {
            return None;
        }
        let offset_is_rfc3339 = match bytes {
            [.., b'Z' | b'z'] => true,
            [.., b'+' | b'-', h1, h2, b':', m1, m2] => {
                [h1, h2, m1, m2].iter().all(|digit| digit.is_ascii_digit())
            }
            _ => false,
        };
        if !offset_is_rfc3339 {
            return None;
        }
        let instant: jiff::Timestamp = text.parse().ok()?;
        Some(Timestamp(instant.as_microsecond()))
    }

    /// The RFC 3339 text, written without allocating.
    fn write(self, text: &mut [u8; 27]) -> Option<&str> {
        let instant = jiff::Timestamp::from_microsecond(self.0).ok()?;
        let civil = jiff::tz::Offset::UTC.to_datetime(instant);
        let year = i64::from(civil.year());
        if !(0..=9999).contains(&year) {
            return None;
        }
        let (month, day) = (civil.month() as u8, civil.day() as u8);
        let (hour, minute, second) = (
            i64::from(civil.hour()),
            i64::from(civil.minute()),
            i64::from(civil.second()),
        );
        let fraction = self.0.rem_euclid(1_000_000);
        // Digit by digit: a listing writes two of these per Session, and
        // `format!` costs several times as much.
        *text = *b"0000-00-00T00:00:00.000000Z";
        for (range, value) in [
            (0..4, year),
            (5..7, i64::from(month)),
            (8..10, i64::from(day)),
            (11..13, hour),
            (14..16, minute),
            (17..19, second),
            (20..26, fraction),
        ] {
            let mut value = value;
            for digit in text[range].iter_mut().rev() {
                *digit = b'0' + (value % 10) as u8;
                value /= 10;
            }
        }
        std::str::from_utf8(text).ok()
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [0; 27];
        match self.write(&mut text) {
            Some(text) => f.write_str(text),
            None => {
                // Outside years 0–9999: still RFC 3339-shaped (jiff's
                // own text, at its bounds beyond ±9999), never seen for a
                // time lf recorded itself.
                let instant = jiff::Timestamp::from_microsecond(self.0).unwrap_or(if self.0 < 0 {
                    jiff::Timestamp::MIN
                } else {
                    jiff::Timestamp::MAX
                });
                write!(f, "{instant:.6}")
            }
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if !serializer.is_human_readable() {
            return serializer.serialize_newtype_struct(Self::SERDE_NAME, &self.0);
        }
        let mut text = [0; 27];
        match self.write(&mut text) {
            Some(text) => serializer.serialize_str(text),
            None => serializer.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Timestamp::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{text:?} is not an lf timestamp (RFC 3339 in UTC with microseconds)"
            ))
        })
    }
}

/// A span of time on the wire, in whole seconds. A non-human-readable
/// serializer sees a newtype named [`Seconds::SERDE_NAME`] holding a `u64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(transparent)]
pub struct Seconds(pub u64);

impl Seconds {
    pub const SERDE_NAME: &'static str = "lf::Seconds";

    /// The whole seconds from one instant to a later one; zero if it is not later.
    pub fn between(from: i64, to: i64) -> Self {
        Seconds(u64::try_from((to - from) / 1_000_000).unwrap_or(0))
    }
}

impl Serialize for Seconds {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_u64(self.0)
        } else {
            serializer.serialize_newtype_struct(Self::SERDE_NAME, &self.0)
        }
    }
}

/// RFC 3339 text of an instant, as the wire writes it.
pub fn rfc3339(micros: i64) -> String {
    Timestamp(micros).to_string()
}

#[cfg(test)]
mod tests {
    use super::{Seconds, Timestamp, rfc3339};

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(rfc3339(951_782_400_000_000), "2000-02-29T00:00:00.000000Z");
        assert_eq!(
            rfc3339(1_795_904_311_123_456),
            "2026-11-28T22:18:31.123456Z"
        );
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999999Z");
    }

    #[test]
    fn timestamps_read_back_exactly_what_they_write() {
        for micros in [
            0,
            -1,
            951_782_400_000_000,
            1_795_904_311_123_456,
            // The last instant jiff holds (9999-12-30T22:00:00.999999Z),
            // so that every offset of it is a date it holds too.
            jiff::Timestamp::MAX.as_microsecond(),
        ] {
            let text = rfc3339(micros);
            assert_eq!(Timestamp::parse(&text), Some(Timestamp(micros)), "{text}");
            let json = serde_json::to_string(&Timestamp(micros)).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(
                serde_json::from_str::<Timestamp>(&json).unwrap(),
                Timestamp(micros)
            );
        }
        let same = Some(Timestamp(1_795_904_311_123_456));
        assert_eq!(
            Timestamp::parse("2026-11-29T00:18:31.123456789+02:00"),
            same
        );
        assert_eq!(Timestamp::parse("2026-11-28T22:18:31.123456+00:00"), same);
        assert_eq!(
            Timestamp::parse("2026-11-28T22:18:31Z"),
            Some(Timestamp(1_795_904_311_000_000))
        );
        assert_eq!(
            Timestamp::parse("2026-11-28T22:18:31.5Z"),
            Some(Timestamp(1_795_904_311_500_000))
        );
        for bad in [
            "",
            "2026-02-30T00:00:00.000000Z",
            "2026-11-28T22:18:31",
            "2026-11-28T24:00:00.000000Z",
            "2026-11-28T22:18:31.Z",
            "+026-11-28T22:18:31.123456Z",
            "2026-11-28T22:18:31+0200",
        ] {
            assert_eq!(Timestamp::parse(bad), None, "{bad}");
        }
        assert!(
            serde_json::from_str::<Timestamp>("\"yesterday\"")
                .unwrap_err()
                .to_string()
                .contains("not an lf timestamp")
        );
        assert_eq!(
            serde_json::to_string(&Seconds::between(0, 90_500_000)).unwrap(),
            "90"
        );
        assert_eq!(Seconds::between(5, 0), Seconds(0));
    }
}
