import { randomBytes } from 'node:crypto';
import { Metrics, platformMigrations, SoftwareKeyManager, systemClock } from '@tessera/platform';
import { openTestDatabase } from '@tessera/platform/testing';
import type { Scenario } from '../../../bench/lib/types.js';
import { assembleStatuses, compressStatuses, renderList } from '../src/publication/render-list.js';
import { tenMillionChunks, tenMillionList } from './ten-million-list.js';

/**
 * Raw compression, the baseline of publishing: ZLIB deflate with the publication's own settings (level 9, run-length
 * strategy, node:zlib on the thread pool) of the packed bitstring of 10,000,000 one-bit entries, 1% set at random.
 */
export const statusListDeflate10m: Scenario = {
  name: 'status-list-deflate-10m',
  description: 'raw zlib deflate (level 9, Z_RLE) of a 10M-entry 1-bit bitstring, 1% set at random (1.25 MB)',
  kind: 'cpu',
  async setup() {
    const list = tenMillionList('unused');
    const bytes = assembleStatuses(list, tenMillionChunks());
    let size = 0;
    return {
      fn: async () => {
        size = (await compressStatuses('zlib', bytes)).length;
      },
      async teardown() {
        if (size === 0) throw new Error('nothing was compressed');
      },
    };
  },
};

/**
 * Publishing the same list (issue 16: "encode + compress + sign"): the statuses assembled from their stored 1 KiB
 * chunks, ZLIB-compressed, base64url, put in a Status List Token and signed ES256 through the key manager (a
 * software key manager on an embedded database). Goal: at least half the raw compression rate.
 */
export const statusListPublish10m: Scenario = {
  name: 'status-list-publish-10m',
  description: 'publish a 10M-entry 1-bit list, 1% revoked: assemble chunks, zlib, Status List Token, ES256 sign',
  kind: 'cpu',
  baseline: 'status-list-deflate-10m',
  goal: { minRatio: 0.5, text: 'publications per second at least half the raw deflate rate of the same bitstring' },
  async setup() {
    const database = await openTestDatabase('pglite', platformMigrations);
    const keys = new SoftwareKeyManager({
      db: database.db,
      masterKey: randomBytes(32),
      metrics: new Metrics({ collectDefault: false }),
      clock: systemClock,
    });
    await keys.ensure('status-list:bench', 'ES256');
    const list = tenMillionList('status-list:bench');
    const chunks = tenMillionChunks();
    let token = '';
    return {
      fn: async () => {
        const statuses = assembleStatuses(list, chunks);
        token = (await renderList(keys, list, statuses, 'http://127.0.0.1:8098/status-lists/bench-10m', new Date()))
          .token;
      },
      async teardown() {
        await database.close();
        if (!token.includes('.')) throw new Error('no list was signed');
      },
    };
  },
};
