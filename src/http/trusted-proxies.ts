// Who the client is when the gateway sits behind proxies (an Ingress controller, a load balancer):
// the TCP peer is then the proxy, and every anonymous client would share one rate limit, one
// registration allowance and one address in the audit trail. With server.trustedProxies, a peer in
// those ranges is believed about the hop before it (the right-most X-Forwarded-For entry), and so on
// leftwards while the hops are trusted proxies too; the first address that is not one is the client.
// Entries left of it are the client's own to write, so they are never read. Without the setting no
// forwarding header is read at all: any client can write them. See
// docs/decisions/0020-trusted-proxies.md.
import { BlockList, isIP } from 'node:net';

export class TrustedProxies {
  /** No proxy is trusted: the client is the TCP peer. */
  static readonly none = new TrustedProxies([]);

  readonly #ranges: BlockList | undefined;

  /** `ranges`: addresses or CIDR ranges (IPv4 or IPv6), as validated by the config (config/trusted-proxies.ts). */
  constructor(ranges: readonly string[]) {
    if (ranges.length === 0) return;
    const list = new BlockList();
    for (const range of ranges) {
      const [address, prefix] = range.split('/') as [string, string | undefined];
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) list.addAddress(address, family);
      else list.addSubnet(address, Number(prefix), family);
    }
    this.#ranges = list;
  }

  get any(): boolean {
    return this.#ranges !== undefined;
  }

  /**
   * The client's address: the peer's, or when the peer is a trusted proxy, the first address
   * X-Forwarded-For names, from the right, that is not one. A malformed entry ends the walk at the
   * hop that wrote it: what a trusted proxy saw is kept, nothing after it is believed.
   */
  clientOf(peer: string | undefined, forwardedFor: string | readonly string[] | undefined): string {
    let client = plain(peer);
    if (client === undefined) return 'unknown';
    if (this.#ranges === undefined || forwardedFor === undefined) return client;
    const hops = (typeof forwardedFor === 'string' ? forwardedFor : forwardedFor.join(',')).split(',');
    for (let index = hops.length - 1; index >= 0 && this.#trusts(client); index -= 1) {
      const hop = plain(hops[index]!.trim());
      if (hop === undefined) break;
      client = hop;
    }
    return client;
  }

  #trusts(address: string): boolean {
    return this.#ranges!.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
}

/** An address as the ranges are written: IPv4-mapped IPv6 (a dual-stack socket's peer) as IPv4; undefined when not an address. */
function plain(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const candidate = mapped?.[1] ?? address;
  return isIP(candidate) === 0 ? undefined : candidate;
}
