import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isForbiddenAddress } from '../../net/address-policy.js';
import { DestinationRefused } from './destination-url.js';

type LookupCallback = (error: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http(s) and node:tls that resolves the host once with our own resolver, refuses a name that
 * resolves to any address that is not public (unless the origin is allow-listed), and hands the socket the checked
 * address: the connection goes where the check looked, with no DNS-rebinding second answer (security checklist
 * "Fetching URLs").
 */
export function pinnedLookup(allowed: boolean) {
  return (hostname: string, lookupOptions: { all?: boolean; family?: number }, callback: LookupCallback): void =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses.filter((a) => !lookupOptions.family || a.family === lookupOptions.family);
      if (list.length === 0) return callback(new DestinationRefused('the host name does not resolve'), []);
      if (!allowed && list.some((a) => isForbiddenAddress(a.address)))
        return callback(new DestinationRefused('the host resolves to an address that is not public'), []);
      if (lookupOptions.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
}
