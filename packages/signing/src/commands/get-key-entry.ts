import { defineCommand } from '@tessera/platform';
import { accessView, keyEntryView, loadKeyEntry } from '../flow/key-entries.js';
import type { SigningServices } from '../services.js';
import type { KeyEntryOutput } from './import-certificate.js';

export const GET_KEY_ENTRY = 'signing.get-key-entry';

/** A key entry with its access restrictions, for a caller with READ on it. */
export const getKeyEntry = (s: SigningServices) =>
  defineCommand<{ kid: string }, KeyEntryOutput>({
    id: GET_KEY_ENTRY,
    access: 'read',
    businessIds: (input) => ({ kid: input.kid }),
    async run(ctx, { kid }) {
      const entry = await s.platform.db.withTenant(ctx.tenantId, (sql) => loadKeyEntry(sql, ctx, kid, 'READ'));
      return { keyEntry: keyEntryView(entry), accessRestrictions: accessView(entry) };
    },
  });
