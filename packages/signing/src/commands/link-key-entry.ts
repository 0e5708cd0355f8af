import { AppError, defineCommand } from '@tessera/platform';
import { badRequest, keyEntryExists } from '../domain/errors.js';
import type { KeyEntryRecord } from '../domain/key-entry.js';
import { accessOf } from '../flow/access.js';
import { accessView, keyEntryView, loadKeyEntry } from '../flow/key-entries.js';
import type { LinkKeyEntryBodyT } from '../http/schemas.js';
import type { SigningServices } from '../services.js';
import { findKeyEntry, insertKeyEntry, linkKeyEntry as linkRow } from '../storage/key-entry-rows.js';
import type { KeyEntryOutput } from './import-certificate.js';

export const LINK_KEY_ENTRY = 'signing.link-key-entry';

/**
 * Operation 6 (002 §4.1): key entry `kid` linked to the provider key `providerKid` of `{providerId}`. An entry that
 * exists without a provider key (a certificate imported under the external provider) is linked, and moves to
 * `{providerId}`, when the key's public key is the certificate's; otherwise a new entry is made for the provider key (raw signatures until a
 * certificate is imported for it). An entry linked already answers 409.
 */
export const linkKeyEntry = (s: SigningServices) =>
  defineCommand<LinkKeyEntryBodyT & { providerId: string }, KeyEntryOutput>({
    id: LINK_KEY_ENTRY,
    access: 'write',
    businessIds: (input) => ({ kid: input.kid, providerId: input.providerId, providerKid: input.providerKid }),
    async run(ctx, input) {
      const provider = s.providers.get(input.providerId, ctx.tenantId);
      if (provider.kind === 'external')
        throw badRequest(`Key provider ${provider.id} holds no keys to link.`, 'providerKid');
      const output = await ctx.unitOfWork(async (sql) => {
        const key = await provider.findKey({ tenantId: ctx.tenantId, sql }, input.providerKid);
        if (!key) throw badRequest(`Key provider ${provider.id} holds no key ${input.providerKid}.`, 'providerKid');
        const now = s.clock.now();
        const existing = await findKeyEntry(sql, input.kid);
        if (existing) {
          await loadKeyEntry(sql, ctx, input.kid, 'SIGN');
          if (existing.providerKid !== null) throw keyEntryExists(input.kid);
          if (!existing.publicKeySpki.equals(key.publicKeySpki))
            throw badRequest(
              `The key ${input.providerKid} of provider ${provider.id} does not match the certificate of key entry ${input.kid}.`,
              'providerKid',
            );
          const access = input.accessRestrictions
            ? { ...accessOf(ctx, input.accessRestrictions), subjectId: existing.access.subjectId }
            : null;
          if (existing.providerId !== provider.id && existing.providerId !== 'external')
            throw badRequest(`The key entry ${input.kid} belongs to provider ${existing.providerId}.`, 'providerId');
          if (
            !(await linkRow(sql, {
              kid: input.kid,
              providerId: provider.id,
              providerKid: key.providerKid,
              access,
              now,
            }))
          )
            throw new AppError('conflict', `The key entry ${input.kid} was linked concurrently.`);
          const linked: KeyEntryRecord = {
            ...existing,
            providerId: provider.id,
            providerKid: key.providerKid,
            access: access ?? existing.access,
          };
          return { keyEntry: keyEntryView(linked), accessRestrictions: accessView(linked) };
        }
        const entry: KeyEntryRecord = {
          kid: input.kid,
          providerId: provider.id,
          providerKid: key.providerKid,
          keyKind: key.keyKind,
          publicKeySpki: key.publicKeySpki,
          certificate: null,
          certificateChain: [],
          access: accessOf(ctx, input.accessRestrictions),
          createdAt: now,
        };
        if (!(await insertKeyEntry(sql, entry))) throw keyEntryExists(input.kid);
        return { keyEntry: keyEntryView(entry), accessRestrictions: accessView(entry) };
      });
      // Committed: the steps that keep entries they read see the link from now on (flow/recent-key-entries.ts).
      s.recentKeyEntries.forget(ctx.tenantId, input.kid);
      return output;
    },
  });
