import { createHash, timingSafeEqual } from 'node:crypto';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { ConfigError } from '../config/index.js';

export interface TrustedTenantOverrideConfig {
  /** Networks (CIDR) of the infrastructure allowed to name the tenant in X-Tenant-ID; empty: nobody. */
  networks: string[];
  /** SHA-256 (hex) of the secret that infrastructure also sends in `X-Tenant-Override-Secret`; absent: none asked. */
  secretSha256?: string | undefined;
}

/**
 * Who may name the tenant of a request in `X-Tenant-ID` (001 §5: in the party API "a trusted-infrastructure override
 * that is not used for ordinary access control"). Trust comes from the connection's peer address — the socket's, never
 * X-Forwarded-For, which the caller writes — inside a configured network, and, when a secret is configured, from that
 * secret as well (a network alone is weak where pods share one). docs/decisions.md, trusted tenant override.
 */
export class TrustedTenantOverride {
  private readonly networks = new BlockList();
  private readonly secretDigest: Buffer | undefined;
  readonly enabled: boolean;

  constructor(config: TrustedTenantOverrideConfig) {
    for (const cidr of config.networks) addNetwork(this.networks, cidr);
    this.secretDigest = config.secretSha256 ? Buffer.from(config.secretSha256, 'hex') : undefined;
    if (this.secretDigest && this.secretDigest.length !== 32)
      throw new ConfigError('tenancy.trustedTenantOverride.secretSha256', 'must be 64 hexadecimal characters');
    this.enabled = config.networks.length > 0;
  }

  /** Whether a request from `peerAddress` presenting `secret` is trusted infrastructure. */
  trusts(peerAddress: string | undefined, secret: string | undefined): boolean {
    if (!this.enabled || !peerAddress) return false;
    const address = peerAddress.startsWith('::ffff:') ? peerAddress.slice(7) : peerAddress;
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    if (!family || !this.networks.check(address, family)) return false;
    if (!this.secretDigest) return true;
    if (secret === undefined) return false;
    return timingSafeEqual(createHash('sha256').update(secret, 'utf8').digest(), this.secretDigest);
  }
}

function addNetwork(list: BlockList, cidr: string): void {
  const [address, prefixText] = cidr.split('/');
  const family = address && isIPv4(address) ? 'ipv4' : address && isIPv6(address) ? 'ipv6' : undefined;
  const prefix = prefixText === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefixText);
  const max = family === 'ipv4' ? 32 : 128;
  if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > max)
    throw new ConfigError('tenancy.trustedTenantOverride.networks', `${JSON.stringify(cidr)} is not a CIDR network`);
  list.addSubnet(address!, prefix, family);
}
