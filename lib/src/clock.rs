//! Time as lf stores it (microseconds since the Unix epoch, UTC) and as it
//! shows it on the wire (RFC 3339). The conversion is a few lines of civil
//! calendar arithmetic, so no date library is needed.

use std::time::{SystemTime, UNIX_EPOCH};

/// Microseconds since the Unix epoch.
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_micros() as i64)
        .unwrap_or(0)
}

/// RFC 3339 in UTC with microseconds: `2026-11-29T22:18:31.123456Z`.
pub fn rfc3339(micros: i64) -> String {
    let seconds = micros.div_euclid(1_000_000);
    let fraction = micros.rem_euclid(1_000_000);
    let days = seconds.div_euclid(86_400);
    let of_day = seconds.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (of_day / 3600, of_day / 60 % 60, of_day % 60);
    if !(0..=9999).contains(&year) {
        return format!(
            "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{fraction:06}Z"
        );
    }
    // Digit by digit: a listing formats two of these per Session, and
    // `format!` costs several times as much.
    let mut text = *b"0000-00-00T00:00:00.000000Z";
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
    String::from_utf8(text.to_vec()).unwrap_or_default()
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
    use super::rfc3339;

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
}
