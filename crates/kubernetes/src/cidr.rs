//! IP ranges as NetworkPolicy `ipBlock`s write them (`10.0.0.0/8`,
//! `fd00::/8`): parsed once, compared as ranges. One type for the values'
//! rules, `check` and `diff`.

use std::net::IpAddr;

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
