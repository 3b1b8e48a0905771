//! Times as people read them: milliseconds since the Unix epoch as a UTC date and minute, and
//! back from a date; and a year as documents write it.

/// True for four digits from 1900 to 2099: a year.
pub fn is_year(word: &str) -> bool {
    word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()) && (word.starts_with("19") || word.starts_with("20"))
}

/// Milliseconds since the epoch as `YYYY-MM-DD HH:MM` (UTC).
pub fn utc(millis: i64) -> String {
    let secs = millis.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The first millisecond of a day written `YYYY-MM-DD` (UTC), since the epoch; `None` for
/// anything else.
pub fn day_start_millis(date: &str) -> Option<i64> {
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts.as_slice() else { return None };
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from the civil calendar (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146_097 + doe - 719_468) * 86_400_000)
}

#[cfg(test)]
mod tests {
    use super::{day_start_millis, utc};

    #[test]
    fn times_format_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(1_795_305_600_000), "2026-11-22 00:00 UTC");
    }

    #[test]
    fn days_convert_to_epoch_milliseconds() {
        assert_eq!(day_start_millis("1970-01-01"), Some(0));
        assert_eq!(day_start_millis("2000-03-01"), Some(951_868_800_000));
        assert_eq!(day_start_millis("2024-02-29"), Some(1_709_164_800_000));
        assert_eq!(day_start_millis("2024-13-01"), None);
        assert_eq!(day_start_millis("yesterday"), None);
    }
}
