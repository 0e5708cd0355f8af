import { getGlobalConfig, setGlobalConfig } from '@openid4vc/utils';

/**
 * Turns the @openid4vc libraries' process-wide `allowInsecureUrls` switch off and returns what gives back the
 * setting it found. Test files share a process (vitest.config.ts), and an app registered by an earlier file (the
 * OpenID4VCI role with a loopback issuer) may have left the switch on: a test that asserts it off starts here.
 */
export function switchInsecureUrlsOff(): () => void {
  const found = getGlobalConfig();
  setGlobalConfig({ ...found, allowInsecureUrls: false });
  return () => setGlobalConfig(found);
}
