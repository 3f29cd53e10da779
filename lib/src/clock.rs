//! Time as lf stores it (microseconds since the Unix epoch, UTC) and as it
//! shows it on the wire. [`Timestamp`] and [`Seconds`] are the wire's time
//! types: in JSON a timestamp is RFC 3339 text and a duration whole
//! seconds, but a serializer that is not human-readable (the Nushell
//! plugin's) receives them as named newtypes holding plain numbers, so it
//! makes datetimes and durations without parsing text back. The conversion
//! is a few lines of civil calendar arithmetic, so no date library is needed.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

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
        let bytes = text.as_bytes();
        if bytes.len() < 20 || !text.is_ascii() {
            return None;
        }
        let punctuation = [(4, b'-'), (7, b'-'), (13, b':'), (16, b':')];
        if punctuation.iter().any(|&(at, byte)| bytes[at] != byte)
            || !matches!(bytes[10], b'T' | b't' | b' ')
        {
            return None;
        }
        let number = |range: std::ops::Range<usize>| -> Option<i64> {
            let digits = text.get(range)?;
            digits
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| digits.parse().ok())?
        };
        let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
        let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
        if !(1..=12).contains(&month)
            || !(1..=31).contains(&day)
            || hour > 23
            || minute > 59
            || second > 60
        {
            return None;
        }
        let mut rest = &text[19..];
        let mut fraction = 0;
        if let Some(after_dot) = rest.strip_prefix('.') {
            let digits = after_dot.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            for (place, digit) in after_dot.bytes().take(6).enumerate() {
                if place < digits {
                    fraction += i64::from(digit - b'0') * 10_i64.pow(5 - place as u32);
                }
            }
            rest = &after_dot[digits..];
        }
        let offset = match rest.as_bytes() {
            [b'Z' | b'z'] => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let digits = [*h1, *h2, *m1, *m2];
                if !digits.iter().all(u8::is_ascii_digit) {
                    return None;
                }
                let [h1, h2, m1, m2] = digits.map(|digit| i64::from(digit - b'0'));
                let minutes = (h1 * 10 + h2) * 60 + m1 * 10 + m2;
                if *sign == b'+' { minutes } else { -minutes }
            }
            _ => return None,
        };
        let days = days_from_civil(year, month as u32, day as u32);
        if civil_from_days(days) != (year, month as u32, day as u32) {
            return None;
        }
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset * 60;
        Some(Timestamp(seconds * 1_000_000 + fraction))
    }

    /// The RFC 3339 text, written without allocating.
    fn write(self, text: &mut [u8; 27]) -> Option<&str> {
        let micros = self.0;
        let seconds = micros.div_euclid(1_000_000);
        let fraction = micros.rem_euclid(1_000_000);
        let days = seconds.div_euclid(86_400);
        let of_day = seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        if !(0..=9999).contains(&year) {
            return None;
        }
        let (hour, minute, second) = (of_day / 3600, of_day / 60 % 60, of_day % 60);
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
                // Outside years 0–9999: still RFC 3339-shaped, never seen
                // for a time lf recorded itself.
                let seconds = self.0.div_euclid(1_000_000);
                let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
                let of_day = seconds.rem_euclid(86_400);
                write!(
                    f,
                    "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
                    of_day / 3600,
                    of_day / 60 % 60,
                    of_day % 60,
                    self.0.rem_euclid(1_000_000)
                )
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

/// Howard Hinnant's `days_from_civil`: a date to days since 1970-01-01.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let month = i64::from(month);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Howard Hinnant's `civil_from_days`: days since 1970-01-01 to a date.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
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
            253_402_300_799_999_999,
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
