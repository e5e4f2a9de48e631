//! A CronJob's `schedule` and `timeZone` as the API server reads them: the
//! standard cron parser Kubernetes uses (five fields, or a `@` descriptor,
//! after an optional `TZ=`/`CRON_TZ=` zone), and the zone rules of its
//! validation.

/// The five fields: name, minimum, maximum, and the names of values.
const FIELDS: [(&str, u32, u32, &[&str]); 5] = [
    ("minute", 0, 59, &[]),
    ("hour", 0, 23, &[]),
    ("day of month", 1, 31, &[]),
    (
        "month",
        1,
        12,
        &[
            "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
        ],
    ),
    (
        "day of week",
        0,
        6,
        &["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
    ),
];

/// Why the API server refuses `schedule`, if it does; `zone_field` says
/// whether `spec.timeZone` is set (then no zone may prefix the schedule).
///
/// Since Kubernetes 1.27 (and in every version of [`crate::kube::VERSIONS`]) a new
/// CronJob whose schedule holds `TZ` anywhere is refused: the zone goes in
/// `spec.timeZone`. An older CronJob keeps its own on update, which the
/// manifests do not show; the zone is still read, to say what is wrong.
pub fn schedule(schedule: &str, zone_field: bool) -> Result<(), String> {
    let mut spec = schedule.trim_start();
    if schedule.contains("TZ") && !(spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=")) {
        return Err("a schedule holds no TZ; the API server refuses it in a new CronJob (give the zone in spec.timeZone)".to_owned());
    }
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        if zone_field {
            return Err("a time zone in the schedule (TZ= or CRON_TZ=) and spec.timeZone cannot both be set".to_owned());
        }
        let Some(space) = spec.find(' ') else {
            return Err("a TZ= or CRON_TZ= zone is followed by the schedule".to_owned());
        };
        let zone = &spec[spec.find('=').map_or(0, |e| e + 1)..space];
        time_zone(zone)?;
        spec = spec[space..].trim();
        schedule_fields(spec)?;
        return Err(format!(
            "a time zone in the schedule (`{}`) is refused in a new CronJob since Kubernetes 1.27; give it as spec.timeZone: {zone}",
            &schedule.trim_start()[..schedule.trim_start().find(' ').unwrap_or(0)]
        ));
    }
    schedule_fields(spec)
}

/// The schedule after any zone: a descriptor or five fields.
fn schedule_fields(spec: &str) -> Result<(), String> {
    if let Some(descriptor) = spec.strip_prefix('@') {
        return match descriptor {
            "yearly" | "annually" | "monthly" | "weekly" | "daily" | "midnight" | "hourly" => {
                Ok(())
            }
            _ => match descriptor.strip_prefix("every ") {
                Some(duration) if go_duration(duration.trim()) => Ok(()),
                Some(duration) => Err(format!("`{duration}` is not a duration such as 1h30m")),
                None => Err(format!(
                    "`@{descriptor}` is not a descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>)"
                )),
            },
        };
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields (minute hour day-of-month month day-of-week), found {}",
            fields.len()
        ));
    }
    for (text, field) in fields.iter().zip(FIELDS) {
        for range in text.split(',') {
            self::range(range, field)?;
        }
    }
    Ok(())
}

/// One range of a field: `*`, `?`, `N`, `N-M`, each with an optional `/STEP`.
fn range(text: &str, (what, min, max, names): (&str, u32, u32, &[&str])) -> Result<(), String> {
    let (range, step) = match text.split_once('/') {
        Some((range, step)) => (range, Some(step)),
        None => (text, None),
    };
    let number = |value: &str| -> Result<u32, String> {
        let lower = value.to_ascii_lowercase();
        if let Some(i) = names.iter().position(|n| *n == lower) {
            return Ok(min + i as u32);
        }
        value
            .parse::<u32>()
            .map_err(|_| format!("`{value}` is not a {what} (a number or name)"))
    };
    let (start, end) = match range {
        "*" | "?" => (min, max),
        _ => match range.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            // `N/STEP` runs from N to the maximum.
            None if step.is_some() => (number(range)?, max),
            None => {
                let n = number(range)?;
                (n, n)
            }
        },
    };
    if let Some(step) = step {
        match step.parse::<u32>() {
            Ok(s) if s > 0 => {}
            _ => {
                return Err(format!(
                    "the step `{step}` of `{text}` is not a positive number"
                ));
            }
        }
    }
    if start < min {
        return Err(format!("{what} {start} is below the minimum {min}"));
    }
    if end > max {
        return Err(format!("{what} {end} is above the maximum {max}"));
    }
    if start > end {
        return Err(format!("the range `{range}` starts after it ends"));
    }
    Ok(())
}

/// A Go duration (`time.ParseDuration`): numbers with units, such as `1h30m`.
fn go_duration(text: &str) -> bool {
    let mut rest = text;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 || rest[..digits].parse::<f64>().is_err() {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ns", "us", "µs", "ms", "s", "m", "h"]
            .into_iter()
            .filter(|u| rest.starts_with(u))
            .max_by_key(|u| u.len());
        match unit {
            Some(unit) => rest = &rest[unit.len()..],
            None => return false,
        }
    }
    true
}

/// `spec.timeZone` (or a schedule's `TZ=`): an explicit IANA zone name,
/// as far as its form shows (whether the zone exists depends on the API
/// server's time zone database, which this crate does not carry).
pub fn time_zone(zone: &str) -> Result<(), String> {
    if zone.is_empty() {
        return Err("an empty time zone; leave it out or name a zone".to_owned());
    }
    if zone.eq_ignore_ascii_case("Local") {
        return Err(
            "`Local` is not an explicit time zone; name one, such as Europe/Paris".to_owned(),
        );
    }
    for part in zone.split('/') {
        let valid = (1..=14).contains(&part.len())
            && part != "."
            && part != ".."
            && !part.starts_with('-')
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-+".contains(&b));
        if !valid {
            return Err(format!(
                "`{zone}` is not a time zone name: each part has 1 to 14 letters, digits, `.`, `_`, `-` or `+`, and does not start with `-`"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_read_as_the_standard_cron_parser_reads_them() {
        for good in [
            "0 * * * *",
            "*/15 0-6 1,15 jan-MAR mon-fri",
            "5/10 * ? * *",
            "@hourly",
            "@every 1h30m",
        ] {
            assert_eq!(schedule(good, false), Ok(()), "{good}");
        }
        // A zone in the schedule: refused on create since 1.27 (a real
        // v1.35 server), the zone itself still read.
        for zoned in ["TZ=UTC 0 * * * *", "CRON_TZ=Europe/Paris 0 3 * * 0"] {
            let why = schedule(zoned, false).unwrap_err();
            assert!(why.contains("spec.timeZone"), "{why}");
        }
        assert!(
            schedule("TZ=Nowhere/City 0 * * * *", false)
                .unwrap_err()
                .contains("Nowhere")
        );
        for bad in [
            "61 * * * *",
            "0 0 * * * *",
            "* * *",
            "0 24 * * *",
            "0 0 0 * *",
            "0 0 * 13 *",
            "0 0 * * 7",
            "5-1 * * * *",
            "*/0 * * * *",
            "x * * * *",
            "@reboot",
            "@every soon",
            "TZ=Local 0 * * * *",
        ] {
            assert!(schedule(bad, false).is_err(), "{bad}");
        }
        assert!(schedule("TZ=UTC 0 * * * *", true).is_err());
    }

    #[test]
    fn a_time_zone_is_an_explicit_iana_name() {
        for good in [
            "Europe/Paris",
            "UTC",
            "America/Argentina/Buenos_Aires",
            "Etc/GMT+5",
        ] {
            assert_eq!(time_zone(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "Local",
            "local",
            "Europe/../x",
            "Europe/-x",
            "Europe Paris",
            "a/bbbbbbbbbbbbbbb",
        ] {
            assert!(time_zone(bad).is_err(), "{bad}");
        }
    }
}
