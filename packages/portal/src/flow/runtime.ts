import { BridgeClient } from '../clients/bridge-client.js';
import { ServiceTokenSource } from '../clients/service-token.js';
import { TokenServiceClient } from '../clients/token-service-client.js';
import type { PortalOptions } from '../options.js';
import { TransactionCookies } from '../transaction/transaction-cookie.js';

/** What the portal's flow steps share: its options, its two service clients and the transaction cookie. */
export interface PortalRuntime {
  options: PortalOptions;
  bridge: BridgeClient;
  tokenService: TokenServiceClient;
  cookies: TransactionCookies;
}

export function createPortalRuntime(options: PortalOptions): PortalRuntime {
  const tokens = new ServiceTokenSource(options);
  return {
    options,
    bridge: new BridgeClient(options, tokens),
    tokenService: new TokenServiceClient(options, tokens),
    cookies: new TransactionCookies(options),
  };
}
