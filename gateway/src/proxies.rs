//! Which address a request comes from. The socket's peer is the only fact; `X-Forwarded-For` is
//! a claim anyone can write, believed only when the peer is one of `gateway.trusted_proxies`
//! (addresses or CIDR ranges), and then only up to the first hop that is not a trusted proxy.
//! `traceparent` is such a claim too ([`TraceSources`]).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request};
use axum::http::HeaderMap;
use miclub_platform::listener::client_address;
use miclub_platform::telemetry::RemoteTrace;

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
        let network = client_address(network);
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
        match (self.network, client_address(ip)) {
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
        let peer = client_address(peer);
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
            client = client_address(ip);
            if !self.contains(client) {
                break;
            }
        }
        client
    }
}

/// Whose `traceparent` a request's span continues: a trusted proxy's when
/// `gateway.proxy_traces` says every trusted proxy writes its own, nobody's otherwise. Anyone
/// else's is only linked ([`RemoteTrace::Link`]): a client chooses neither the trace id of our
/// log lines nor whether its request is sampled.
#[derive(Debug, Clone, Default)]
pub struct TraceSources(Option<Arc<TrustedProxies>>);

impl TraceSources {
    pub fn new(proxies: &TrustedProxies, proxy_traces: bool) -> Self {
        Self((proxy_traces && !proxies.is_empty()).then(|| Arc::new(proxies.clone())))
    }

    pub fn of(&self, request: &Request) -> RemoteTrace {
        let from_a_proxy = self.0.as_ref().is_some_and(|proxies| {
            request
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .is_some_and(|ConnectInfo(peer)| proxies.contains(peer.ip()))
        });
        if from_a_proxy {
            RemoteTrace::Continue
        } else {
            RemoteTrace::Link
        }
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

    fn request_from(peer: &str) -> Request {
        let mut request = Request::new(axum::body::Body::empty());
        request
            .extensions_mut()
            .insert(ConnectInfo(peer.parse::<SocketAddr>().unwrap()));
        request
    }

    #[test]
    fn only_a_trusted_proxys_trace_is_continued_and_only_when_proxies_write_their_own() {
        let p = proxies(&["10.0.0.0/8"]);
        let on = TraceSources::new(&p, true);
        assert_eq!(on.of(&request_from("10.1.2.3:443")), RemoteTrace::Continue);
        assert_eq!(on.of(&request_from("200.1.1.1:443")), RemoteTrace::Link);
        let no_peer = Request::new(axum::body::Body::empty());
        assert_eq!(on.of(&no_peer), RemoteTrace::Link);
        let off = TraceSources::new(&p, false);
        assert_eq!(off.of(&request_from("10.1.2.3:443")), RemoteTrace::Link);
        let none = TraceSources::new(&TrustedProxies::default(), true);
        assert_eq!(none.of(&request_from("10.1.2.3:443")), RemoteTrace::Link);
    }
}
