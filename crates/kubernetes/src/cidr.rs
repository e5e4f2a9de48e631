//! IP ranges as NetworkPolicy `ipBlock`s write them (`10.0.0.0/8`,
//! `fd00::/8`): parsed once, compared as ranges. One type for a values
//! file's rules, the API rules and the diff.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// An IP address as the API server reads its older fields (a pod's host
/// aliases and DNS nameservers, a NetworkPolicy's `ipBlock`): the grammar
/// of Go 1.16's parser (`netutils.ParseIPSloppy`), which takes what
/// Rust's and today's Go's refuse: IPv4 parts with leading zeros (`010`
/// is 10) and IPv6 groups of more than four hex digits up to `ffff`.
///
/// ```
/// use kubernetes::cidr::legacy_ip;
///
/// assert_eq!(legacy_ip("010.0.0.1"), "10.0.0.1".parse().ok());
/// assert_eq!(legacy_ip("::00001"), "::1".parse().ok());
/// assert_eq!(legacy_ip("1.2.3"), None);
/// ```
pub fn legacy_ip(text: &str) -> Option<IpAddr> {
    match text.bytes().find(|b| *b == b'.' || *b == b':')? {
        b'.' => legacy_v4(text).map(IpAddr::V4),
        _ => legacy_v6(text).map(IpAddr::V6),
    }
}

/// Leading digits of `text` read in `radix`: the value and how many, none
/// past 0xFFFFFF (as Go's `dtoi` and `xtoi`).
fn leading_number(text: &str, radix: u32) -> Option<(u32, usize)> {
    let mut value = 0u32;
    let mut count = 0;
    for c in text.chars() {
        let Some(digit) = c.to_digit(radix) else {
            break;
        };
        value = value * radix + digit;
        count += 1;
        if value >= 0xFF_FFFF {
            return None;
        }
    }
    (count > 0).then_some((value, count))
}

/// Four decimal parts of at most 255 joined by `.`, nothing more.
fn legacy_v4(mut text: &str) -> Option<Ipv4Addr> {
    let mut parts = [0u8; 4];
    for (i, part) in parts.iter_mut().enumerate() {
        if i > 0 {
            text = text.strip_prefix('.')?;
        }
        let (value, used) = leading_number(text, 10)?;
        *part = u8::try_from(value).ok()?;
        text = &text[used..];
    }
    text.is_empty().then(|| Ipv4Addr::from(parts))
}

/// Hex groups of at most `ffff` joined by `:`, one `::` standing for at
/// least one zero group, an IPv4 address in the last 32 bits.
fn legacy_v6(mut text: &str) -> Option<Ipv6Addr> {
    let mut bytes = [0u8; 16];
    let mut ellipsis = None;
    if let Some(rest) = text.strip_prefix("::") {
        ellipsis = Some(0);
        text = rest;
        if text.is_empty() {
            return Some(Ipv6Addr::from(bytes));
        }
    }
    let mut i = 0;
    while i < 16 {
        let (value, used) = leading_number(text, 16)?;
        if value > 0xFFFF {
            return None;
        }
        if text[used..].starts_with('.') {
            if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                return None;
            }
            bytes[i..i + 4].copy_from_slice(&legacy_v4(text)?.octets());
            text = "";
            i += 4;
            break;
        }
        bytes[i..i + 2].copy_from_slice(&(value as u16).to_be_bytes());
        i += 2;
        text = &text[used..];
        if text.is_empty() {
            break;
        }
        text = text.strip_prefix(':').filter(|rest| !rest.is_empty())?;
        if let Some(rest) = text.strip_prefix(':') {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            text = rest;
            if text.is_empty() {
                break;
            }
        }
    }
    if !text.is_empty() {
        return None;
    }
    match ellipsis {
        Some(at) if i < 16 => {
            let gap = 16 - i;
            bytes.copy_within(at..i, at + gap);
            bytes[at..at + gap].fill(0);
        }
        Some(_) => return None,
        None if i < 16 => return None,
        None => {}
    }
    Some(Ipv6Addr::from(bytes))
}

/// `address/prefix` as the API server reads an older field's range
/// (`ParseCIDRSloppy`): a [`legacy_ip`] and a prefix of decimal digits at
/// most the family's width.
pub fn legacy_cidr(text: &str) -> Option<(IpAddr, u8)> {
    let (address, prefix) = text.split_once('/')?;
    let address = match legacy_v4(address) {
        Some(v4) => IpAddr::V4(v4),
        None => IpAddr::V6(legacy_v6(address)?),
    };
    let (length, used) = leading_number(prefix, 10)?;
    let width = if address.is_ipv4() { 32 } else { 128 };
    (used == prefix.len() && length <= width).then_some((address, length as u8))
}

/// An IP range: an address and a prefix length, an IPv4 address in the
/// top 32 bits so that one mask serves both families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    bits: u128,
    len: u8,
    v6: bool,
}

impl Cidr {
    /// Parses `address/prefix`, IPv4 or IPv6; the prefix in decimal
    /// digits only, at most the family's width.
    pub fn parse(text: &str) -> Result<Cidr, String> {
        let (address, prefix) = text.split_once('/').ok_or("no `/prefix`")?;
        let address: IpAddr = address
            .parse()
            .map_err(|_| format!("`{address}` is not an IP address"))?;
        let (bits, v6, most) = match address {
            IpAddr::V4(a) => (u128::from(u32::from(a)) << 96, false, 32),
            IpAddr::V6(a) => (u128::from(a), true, 128),
        };
        match prefix.parse::<u8>() {
            Ok(len) if len <= most && prefix.bytes().all(|b| b.is_ascii_digit()) => {
                Ok(Cidr { bits, len, v6 })
            }
            _ => Err(format!(
                "`{prefix}` is not a prefix length from 0 to {most}"
            )),
        }
    }

    /// The prefix length.
    pub fn prefix_len(&self) -> u8 {
        self.len
    }

    /// Whether it is an IPv6 range.
    pub fn is_v6(&self) -> bool {
        self.v6
    }

    /// The mask of the first `len` bits of a 128-bit address.
    fn mask(len: u8) -> u128 {
        if len == 0 {
            0
        } else {
            u128::MAX << (128 - u32::from(len))
        }
    }

    /// Whether every address of `other` is in this range (same family).
    pub fn contains(&self, other: &Cidr) -> bool {
        let mask = Cidr::mask(self.len);
        self.v6 == other.v6 && self.len <= other.len && (self.bits & mask) == (other.bits & mask)
    }

    /// Whether the two ranges share an address.
    pub fn overlaps(&self, other: &Cidr) -> bool {
        self.contains(other) || other.contains(self)
    }
}

/// The ranges pod addresses come from in practice: the private IPv4
/// ranges (RFC 1918), the shared CGNAT range (RFC 6598) and IPv6 unique
/// local addresses (RFC 4193). A block that excludes none of them may
/// admit the cluster's pods, whatever their CIDR.
pub fn pod_ranges() -> [Cidr; 5] {
    [
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "100.64.0.0/10",
        "fc00::/7",
    ]
    .map(|c| Cidr::parse(c).expect("a valid range"))
}

#[cfg(test)]
mod tests {
    use super::Cidr;

    #[test]
    fn ranges_parse_and_compare() {
        let c = |t: &str| Cidr::parse(t).unwrap();
        assert!(c("10.0.0.0/8").contains(&c("10.2.0.0/16")));
        assert!(!c("10.2.0.0/16").contains(&c("10.0.0.0/8")));
        assert!(c("0.0.0.0/0").contains(&c("192.168.1.1/32")));
        assert!(!c("0.0.0.0/0").contains(&c("::/128")), "families apart");
        assert!(c("::/0").contains(&c("fd00::/8")));
        assert!(c("10.1.0.0/16").overlaps(&c("10.0.0.0/8")));
        assert!(!c("10.1.0.0/16").overlaps(&c("11.0.0.0/8")));
        for bad in [
            "10.0.0.0",
            "10.0.0.0/33",
            "10.0.0.0/+8",
            "::/129",
            "x/8",
            "010.0.0.1/32",
        ] {
            assert!(Cidr::parse(bad).is_err(), "{bad}");
        }
    }
}
