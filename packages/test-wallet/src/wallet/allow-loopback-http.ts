import { getGlobalConfig, setGlobalConfig } from '@openid4vc/utils';

let depth = 0;
let saved: ReturnType<typeof getGlobalConfig> | undefined;

/**
 * Runs `work` with the @openid4vc libraries' global `allowInsecureUrls` switch on, when `enabled`. The wallet turns
 * it on only for a request whose URLs are plain http on loopback, and restores the previous setting afterwards
 * (nested and concurrent calls share one switch).
 */
export async function withLoopbackHttp<T>(enabled: boolean, work: () => Promise<T>): Promise<T> {
  if (!enabled) return work();
  if (depth === 0) {
    saved = getGlobalConfig();
    setGlobalConfig({ ...saved, allowInsecureUrls: true });
  }
  depth += 1;
  try {
    return await work();
  } finally {
    depth -= 1;
    if (depth === 0 && saved) setGlobalConfig(saved);
  }
}
