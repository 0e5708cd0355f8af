import { describe, expect, it } from 'vitest';
import { parseCliArguments } from '../src/cli/parse-cli-arguments.js';

/** The wallet CLI finds the data the server's development profile uses (issue 14 §6): `<DATA_DIR>/test-wallet`. */
describe('command line arguments', () => {
  it('follows DATA_DIR like the server, unless --data-dir is given', () => {
    expect(parseCliArguments(['issuer-info'], {}).dataDir).toBe('data/test-wallet');
    expect(parseCliArguments(['issuer-info'], { DATA_DIR: '/srv/tessera/' }).dataDir).toBe('/srv/tessera/test-wallet');
    expect(parseCliArguments(['issuer-info', '--data-dir', '/tmp/w'], { DATA_DIR: '/srv/tessera' }).dataDir).toBe(
      '/tmp/w',
    );
  });
});
