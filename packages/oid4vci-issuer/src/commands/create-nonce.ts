import { defineCommand } from '@tessera/platform';
import { randomToken, sha256 } from '../domain/secrets.js';
import type { Oid4vciServices } from '../services.js';
import { nonceStore } from '../storage/nonce-store.js';
import { CREATE_NONCE } from './ids.js';

/**
 * POST /oid4vci/nonce (OpenID4VCI 1.0 §7): a fresh c_nonce, kept (hashed) in the database until a proof spends it
 * or it expires, so that any replica accepts it once.
 */
export const createNonce = (s: Oid4vciServices) =>
  defineCommand<Record<string, never>, { c_nonce: string }>({
    id: CREATE_NONCE,
    access: 'public',
    async run(ctx) {
      const nonce = randomToken();
      const expiresAt = new Date(s.clock.now().getTime() + s.config.nonceTtlSeconds * 1000);
      await ctx.unitOfWork((sql) => nonceStore.insert(sql, sha256(nonce), expiresAt));
      return { c_nonce: nonce };
    },
  });
