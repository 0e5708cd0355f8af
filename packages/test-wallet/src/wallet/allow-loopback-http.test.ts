import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getGlobalConfig } from '@openid4vc/utils';
import { switchInsecureUrlsOff } from '../../test/support/insecure-urls.js';
import { withLoopbackHttp } from './allow-loopback-http.js';

describe('withLoopbackHttp', () => {
  let restore: () => void;
  beforeEach(() => (restore = switchInsecureUrlsOff()));
  afterEach(() => restore());

  it('turns the switch on only while the work runs, also when calls overlap', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: boolean[] = [];
    const outer = withLoopbackHttp(true, async () => {
      seen.push(getGlobalConfig().allowInsecureUrls);
      await gate;
      seen.push(getGlobalConfig().allowInsecureUrls);
    });
    await withLoopbackHttp(true, async () => seen.push(getGlobalConfig().allowInsecureUrls));
    release();
    await outer;
    expect(seen).toEqual([true, true, true]);
    expect(getGlobalConfig().allowInsecureUrls).toBe(false);
  });

  it('leaves the switch alone when not enabled, and restores it after a failure', async () => {
    await withLoopbackHttp(false, async () => expect(getGlobalConfig().allowInsecureUrls).toBe(false));
    await expect(withLoopbackHttp(true, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(getGlobalConfig().allowInsecureUrls).toBe(false);
  });
});
