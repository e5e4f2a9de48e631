//! A CronJob's `schedule` and `timeZone` as the API server reads them: the
//! standard cron parser Kubernetes uses (five fields, or a `@` descriptor,
//! after an optional `TZ=`/`CRON_TZ=` zone), and the zone rules of its
//! validation.

use crate::duration;

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
    let zoned = schedule.starts_with("TZ=") || schedule.starts_with("CRON_TZ=");
    if !zoned {
        if schedule.contains("TZ") {
            return Err("a schedule may not hold TZ; the API server refuses it in a new CronJob (give the zone in spec.timeZone)".to_owned());
        }
        return parse_standard(schedule);
    }
    if zone_field {
        return Err(
            "a time zone in the schedule (TZ= or CRON_TZ=) and spec.timeZone cannot both be set"
                .to_owned(),
        );
    }
    // As the cron parser reads it: the zone runs from `=` to the first space.
    let Some(space) = schedule.find(' ') else {
        return Err("a TZ= or CRON_TZ= zone is followed by a space and the schedule".to_owned());
    };
    let (prefix, zone) = schedule[..space].split_once('=').unwrap_or_default();
    if !known_zone(zone) {
        return Err(format!("`{zone}` is not a time zone the API server knows"));
    }
    parse_standard(schedule[space..].trim())?;
    Err(format!(
        "a time zone in the schedule (`{prefix}=`) is refused in a new CronJob since Kubernetes 1.27; give it as spec.timeZone: {zone}"
    ))
}

/// The schedule after any zone, as the standard cron parser
/// (`cron.ParseStandard`) reads it: a `@` descriptor taken whole, or five
/// fields split at white space, each a list of ranges split at commas
/// (empty items skipped).
fn parse_standard(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("an empty schedule".to_owned());
    }
    if spec.starts_with('@') {
        return descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields (minute hour day-of-month month day-of-week), found {}",
            fields.len()
        ));
    }
    for (text, field) in fields.iter().zip(FIELDS) {
        for range in text.split(',').filter(|r| !r.is_empty()) {
            self::range(range, field)?;
        }
    }
    Ok(())
}

/// A descriptor, exactly as written: no space around it.
fn descriptor(spec: &str) -> Result<(), String> {
    match spec {
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly" => {
            Ok(())
        }
        _ => match spec.strip_prefix("@every ") {
            Some(text) => duration::parse(text)
                .map(drop)
                .map_err(|why| format!("`@every {text}`: {why}")),
            None => Err(format!(
                "`{spec}` is not a descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>)"
            )),
        },
    }
}

/// One range of a field: `*`, `?`, `N` or `N-M`, then an optional `/STEP`.
/// After `*` or `?` the parser reads no further up to the step (`*-5` is
/// every value); `N/STEP` runs from N to the maximum.
fn range(text: &str, (what, min, max, names): (&str, u32, u32, &[&str])) -> Result<(), String> {
    let (min, max) = (u64::from(min), u64::from(max));
    let number = |value: &str| -> Result<u64, String> {
        let lower = crate::names::go_lowercase(value);
        match (names.iter().position(|n| *n == lower), names.first()) {
            (Some(i), _) => Ok(min + i as u64),
            (None, Some(name)) => {
                integer(value, what).map_err(|why| format!("{why} or a name such as {name}"))
            }
            (None, None) => integer(value, what),
        }
    };
    let slashes: Vec<&str> = text.split('/').collect();
    let hyphens: Vec<&str> = slashes[0].split('-').collect();
    let (start, mut end) = match hyphens[..] {
        ["*" | "?", ..] => (min, max),
        [single] => {
            let n = number(single)?;
            (n, n)
        }
        [first, last] => (number(first)?, number(last)?),
        _ => return Err(format!("`{text}` has more than one `-`")),
    };
    let step = match slashes[..] {
        [_] => 1,
        [_, step] => {
            if hyphens.len() == 1 {
                end = max;
            }
            integer(step, "step")?
        }
        _ => return Err(format!("`{text}` has more than one `/`")),
    };
    if start < min {
        return Err(format!("{what} {start} is below the minimum {min}"));
    }
    if end > max {
        return Err(format!("{what} {end} is above the maximum {max}"));
    }
    if start > end {
        return Err(format!("the range `{text}` starts after it ends"));
    }
    if step == 0 {
        return Err(format!("the step of `{text}` is not a positive number"));
    }
    Ok(())
}

/// A whole number as the parser reads one (Go's `strconv.Atoi`: an
/// optional sign, decimal digits, 64 bits), not negative.
fn integer(text: &str, what: &str) -> Result<u64, String> {
    match text.parse::<i64>() {
        Ok(n) => u64::try_from(n).map_err(|_| format!("{what} `{text}` is negative")),
        Err(_) => Err(format!(
            "`{text}` is not a {what}: a {what} is a whole number below 2^63"
        )),
    }
}

/// The zones of the IANA database as Go embeds it, which every API server
/// loads (scripts/vendor-time-zones writes the file).
const TIME_ZONES: &str = include_str!("time-zones.txt");

/// Whether the API server loads `zone` (Go's `time.LoadLocation`): a zone
/// of the database every server embeds, or one of Debian's `posix/` and
/// `right/` copies of it or its `posixrules` and `localtime`, which a
/// server reading the system's database (Debian-based images, distroless
/// among them) loads too.
fn known_zone(zone: &str) -> bool {
    // The names Debian's system database adds of its own.
    if matches!(zone, "posixrules" | "localtime") {
        return true;
    }
    let zone = ["posix/", "right/"]
        .iter()
        .find_map(|copy| zone.strip_prefix(copy))
        .unwrap_or(zone);
    TIME_ZONES.lines().skip(1).any(|known| known == zone)
}

/// `spec.timeZone` (or a schedule's `TZ=`): an explicit IANA zone name the
/// API server loads, each part of the form its validation asks.
pub fn time_zone(zone: &str) -> Result<(), String> {
    if zone.is_empty() {
        return Err("an empty time zone; leave it out or name a zone".to_owned());
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
    if zone.eq_ignore_ascii_case("Local") {
        return Err(format!(
            "`{zone}` is not an explicit time zone; name one, such as Europe/Paris"
        ));
    }
    if !known_zone(zone) {
        return Err(format!(
            "`{zone}` is not a time zone of the IANA database (names are case-sensitive, such as Europe/Paris or UTC)"
        ));
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
            " 0  0\t* * *",
            "0\u{2028}0 * * *",
            // Empty items of a list are skipped; a field of commas is empty.
            "1,,2 * * * *",
            ", * * * *",
            // After `*` nothing up to the step is read.
            "*-5 * * * *",
            "?-x-y/2 * * * *",
            // Numbers as Go's Atoi reads them: a sign, 64 bits.
            "+5 * * * *",
            "*/99999999999 * * * *",
            "0 0 * * SUN",
            "@hourly",
            "@every 1h30m",
            "@every -1h",
            "@every 0",
            "@every .5s",
        ] {
            assert_eq!(schedule(good, false), Ok(()), "{good:?}");
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
            "",
            "   ",
            "61 * * * *",
            "0 0 * * * *",
            "* * *",
            "0 24 * * *",
            "0 0 0 * *",
            "0 0 * 13 *",
            "0 0 * * 7",
            "5-1 * * * *",
            "1-2-3 * * * *",
            "*/5/2 * * * *",
            "*/0 * * * *",
            "*/-1 * * * *",
            "-1 * * * *",
            // `-` splits a range before a sign is read.
            "-0 * * * *",
            "99999999999999999999 * * * *",
            "x * * * *",
            "0 0 * * sunday",
            // A descriptor is taken exactly as written.
            " @hourly",
            "@hourly ",
            "@reboot",
            "@every soon",
            "@every  1h",
            "@every 1d",
            "@every 3000000h",
            "TZ=Local 0 * * * *",
            "TZ=UTC",
            "0 * * * * TZ",
        ] {
            assert!(schedule(bad, false).is_err(), "{bad:?}");
        }
        assert!(schedule("TZ=UTC 0 * * * *", true).is_err());
    }

    #[test]
    fn a_time_zone_is_one_the_api_server_loads() {
        for good in [
            "Europe/Paris",
            "UTC",
            "America/Argentina/Buenos_Aires",
            "Etc/GMT+5",
            "EST5EDT",
            "posix/Europe/Paris",
            "right/UTC",
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
            // Well formed, but no such zone: the server cannot load it.
            "Mars/Olympus",
            "europe/paris",
            "Etc/GMT+13",
            "posix/Mars",
        ] {
            assert!(time_zone(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_zone_list_is_sorted_and_whole() {
        let zones: Vec<&str> = TIME_ZONES.lines().skip(1).collect();
        assert!(zones.len() > 500, "{}", zones.len());
        assert!(zones.windows(2).all(|w| w[0] < w[1]));
    }
}
