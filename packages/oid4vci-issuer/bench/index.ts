import type { Scenario } from '../../../bench/lib/types.js';
import { es256VerifySign } from './es256-verify-sign.js';
import { oid4vciCredential } from './oid4vci-credential.js';
import { oid4vciCredentialFloor } from './oid4vci-credential-floor.js';

/** The OpenID4VCI issuer's scenarios, for bench/scenarios/index.ts (the baseline first). */
export const oid4vciScenarios: readonly Scenario[] = [es256VerifySign, oid4vciCredential, oid4vciCredentialFloor];
