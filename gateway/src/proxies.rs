//! Which address a request comes from. The socket's peer is the only fact; `X-Forwarded-For` is
//! a claim anyone can write, believed only when the peer is one of `gateway.trusted_proxies`
//! (addresses or CIDR ranges), and then only up to the first hop that is not a trusted proxy.

use std::net::IpAddr;

use axum::http::HeaderMap;

/// One trusted address or range: the network's address and its prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    network: IpAddr,
    prefix: u8,
}

impl Range {
    fn parse(text: &str) -> anyhow::Result<Self> {
        let text = text.trim();
        let (address, prefix) = match text.split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text, None),
        };
        let network: IpAddr = address
            .parse()
            .map_err(|_| anyhow::anyhow!("gateway.trusted_proxies: {text:?} is not an address"))?;
        let network = network.to_canonical();
        let max = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => max,
            Some(p) => p.parse::<u8>().ok().filter(|p| *p <= max).ok_or_else(|| {
                anyhow::anyhow!("gateway.trusted_proxies: {text:?} has a bad prefix length")
            })?,
        };
        Ok(Self { network, prefix })
    }

    fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                same_prefix(u32::from(net).into(), u32::from(ip).into(), self.prefix, 32)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                same_prefix(u128::from(net), u128::from(ip), self.prefix, 128)
            }
            _ => false,
        }
    }
}

fn same_prefix(a: u128, b: u128, prefix: u8, bits: u32) -> bool {
    let host_bits = bits - u32::from(prefix);
    if host_bits >= 128 {
        return true;
    }
    (a >> host_bits) == (b >> host_bits)
}

/// The configured proxies, parsed once at start-up (a bad entry refuses to start).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies {
    ranges: Vec<Range>,
}

impl TrustedProxies {
    pub fn parse(entries: &[String]) -> anyhow::Result<Self> {
        let ranges = entries
            .iter()
            .filter(|e| !e.trim().is_empty())
            .map(|e| Range::parse(e))
            .collect::<anyhow::Result<_>>()?;
        Ok(Self { ranges })
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        self.ranges.iter().any(|r| r.contains(ip))
    }

    /// The client of a request that reached the gateway from `peer`: the peer itself unless it
    /// is a trusted proxy; then the rightmost `X-Forwarded-For` hop that is not a trusted proxy
    /// (each trusted proxy appends the address it saw, so everything left of the first
    /// untrusted hop may have been written by the client). A hop that is not an address ends
    /// the walk at the last trusted one.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = peer.to_canonical();
        if !self.contains(peer) {
            return peer;
        }
        let hops: Vec<&str> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Ok(ip) = hop.parse::<IpAddr>() else {
                tracing::debug!(hop, "x-forwarded-for hop is not an address; stopping there");
                break;
            };
            client = ip.to_canonical();
            if !self.contains(client) {
                break;
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(list: &[&str]) -> TrustedProxies {
        TrustedProxies::parse(&list.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    fn forwarded(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", value.parse().unwrap());
        headers
    }

    #[test]
    fn ranges_match_their_own_addresses_only() {
        let p = proxies(&["10.0.0.0/8", "192.168.1.7", "fd00::/8"]);
        assert!(p.contains("10.200.3.4".parse().unwrap()));
        assert!(!p.contains("11.0.0.1".parse().unwrap()));
        assert!(p.contains("192.168.1.7".parse().unwrap()));
        assert!(!p.contains("192.168.1.8".parse().unwrap()));
        assert!(p.contains("fd12::1".parse().unwrap()));
        assert!(
            p.contains("::ffff:10.1.1.1".parse().unwrap()),
            "v4-mapped peer"
        );
        assert!(proxies(&["0.0.0.0/0"]).contains("8.8.8.8".parse().unwrap()));
    }

    #[test]
    fn a_bad_entry_is_refused_at_start_up() {
        for bad in ["10.0.0.0/33", "ten", "10.0.0.0/x", "::/129"] {
            assert!(TrustedProxies::parse(&[bad.to_string()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_rightmost_hop_that_is_not_a_trusted_proxy_is_the_client() {
        let p = proxies(&["10.0.0.0/8"]);
        let peer = "10.0.0.2".parse().unwrap();
        let got = p.client(peer, &forwarded("6.6.6.6, 200.1.1.1, 10.0.0.9"));
        assert_eq!(got, "200.1.1.1".parse::<IpAddr>().unwrap());
        let untrusted = "200.9.9.9".parse().unwrap();
        assert_eq!(p.client(untrusted, &forwarded("6.6.6.6")), untrusted);
        assert_eq!(
            p.client(peer, &forwarded("garbage, 10.0.0.9")),
            "10.0.0.9".parse::<IpAddr>().unwrap()
        );
        assert_eq!(p.client(peer, &HeaderMap::new()), peer);
    }
}
