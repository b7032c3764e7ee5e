// server.trustedProxies: each entry an IP address or a CIDR range whose prefix fits the family, so
// that http/trusted-proxies.ts can build its BlockList without a failure at start.
import { isIP } from 'node:net';

export function isAddressOrRange(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  if (rest.length > 0 || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}
