import type { Scenario } from '../lib/types.js';
import { bareRoute } from './bare-route.js';
import { platformPublicRoute } from './platform-public-route.js';
import { rs256Sign } from './rs256-sign.js';
import { bridgeScenarios } from '../../packages/bridge/bench/index.js';
import { statusListScenarios } from '../../packages/status-lists/bench/index.js';
import { designScenarios } from '../../packages/designs/bench/index.js';
import { partyScenarios } from '../../packages/parties/bench/index.js';
import { signingScenarios } from '../../packages/signing/bench/index.js';
import { issuanceScenarios } from '../../packages/issuance/bench/index.js';
import { oid4vciScenarios } from '../../packages/oid4vci-issuer/bench/index.js';
import { dpopVerifyMemory, dpopVerifyRedis, dpopVerifyRedis32 } from './dpop-verify.js';
import { webhookDelivery } from './webhook-delivery.js';
import { webhookDeliveryFloor, webhookDeliveryFloorOneStatement } from './webhook-delivery-floor.js';
import {
  oidcProviderCodeExchange,
  oidcProviderRefresh,
  tokenCodeExchange,
  tokenCodeExchangeFloor,
  tokenRefresh,
  tokenRefreshFloor,
} from './token-service.js';

/**
 * Every scenario of `npm run bench`, in run order (a baseline is moved before its users when needed). A new
 * scenario is one file in this folder plus one line here; see bench/README.md.
 */
export const scenarios: readonly Scenario[] = [
  bareRoute,
  platformPublicRoute,
  rs256Sign,
  tokenCodeExchange,
  oidcProviderCodeExchange,
  tokenCodeExchangeFloor,
  tokenRefresh,
  oidcProviderRefresh,
  tokenRefreshFloor,
  ...bridgeScenarios,
  dpopVerifyMemory,
  dpopVerifyRedis,
  dpopVerifyRedis32,
  webhookDelivery,
  webhookDeliveryFloor,
  webhookDeliveryFloorOneStatement,
  ...statusListScenarios,
  ...designScenarios,
  ...partyScenarios,
  ...signingScenarios,
  ...issuanceScenarios,
  ...oid4vciScenarios,
];
