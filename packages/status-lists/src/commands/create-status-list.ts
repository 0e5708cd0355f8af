import { randomBytes } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import type { JWK } from 'jose';
import { didJwkOf } from '../domain/did-jwk.js';
import { badInput, listExists } from '../domain/errors.js';
import { isOwnKeyAlias, keyAliasFor } from '../domain/key-aliases.js';
import { listIdOf, parseListRequest, type CreateListBody } from '../domain/list-definition.js';
import { packedLength } from '../domain/status-bits.js';
import { publicationRecord } from '../publication/list-publisher.js';
import { renderList } from '../publication/render-list.js';
import { insertList, type NewList, type StoredList } from '../storage/list-rows.js';
import { putPublication } from '../storage/publication-rows.js';
import type { StatusListServices } from '../services.js';

export const CREATE_STATUS_LIST = 'status-list.create';

export interface CreateStatusListOutput {
  listId: string;
  uri: string;
  /** The signed status list credential (001 §2.4 response). */
  token: string;
}

/**
 * POST /vc/status-lists (001 §2.4, §4.3): checks the request, resolves the signing key (created on first use,
 * ES256), holds `issuer` to the key's publishers (the role's public base URL for the tenant, whose
 * /.well-known/jwt-vc-issuer publishes the key, or the key's did:jwk), signs the empty list and stores the list
 * with that signed form in one transaction: a duplicate id (409) or any refusal leaves nothing behind.
 */
export const createStatusList = (s: StatusListServices) =>
  defineCommand<{ body: CreateListBody }, CreateStatusListOutput>({
    id: CREATE_STATUS_LIST,
    access: 'write',
    businessIds: (input, output) => ({
      listId: output?.listId ?? String(input.body?.id ?? '').slice(0, 100),
      ...(output ? { type: input.body.type } : {}),
    }),
    async run(ctx, { body }) {
      const { config, platform } = s;
      const request = parseListRequest(body, config);
      const base = s.baseUrlOf(ctx.tenantId);
      const listId = listIdOf(request.id, `${base}/status-lists`);
      const keyAlias = keyAliasFor(ctx.tenantId, request.keyRef, config.extraKeyAliases);
      const jwk = await signingKey(s, ctx.tenantId, keyAlias);
      const publishers = [base, didJwkOf(jwk)];
      if (!publishers.includes(request.issuer)) {
        throw badInput(
          `issuer must name the publisher of the signing key: ${publishers.join(' or ')}.`,
          'statusList.issuer',
        );
      }
      const list: NewList = {
        listId,
        seriesId: listId,
        generation: 1,
        type: request.type,
        statusPurpose: request.statusPurpose,
        bits: request.bits,
        length: request.length,
        issuer: request.issuer,
        proofFormat: request.proofFormat,
        keyAlias,
        correlationId: request.correlationId,
        ttlSeconds: config.ttlSeconds,
        validitySeconds: config.validitySeconds,
        permutationKey: randomBytes(32),
      };
      const stored: StoredList = { ...list, allocated: 0, version: '0' };
      const uri = s.uriOf(ctx.tenantId, listId);
      const now = s.clock.now();
      const rendered = await renderList(
        platform.keys,
        stored,
        new Uint8Array(packedLength(list.length, list.bits)),
        uri,
        now,
      );
      const publication = publicationRecord(stored, rendered, now);
      await ctx.unitOfWork(async (sql) => {
        if (!(await insertList(sql, list, now))) throw listExists();
        await putPublication(sql, publication);
      });
      return { listId, uri, token: rendered.token };
    },
  });

/** The public key of the signing alias; the tenant's own status-list keys are created on first use. */
async function signingKey(s: StatusListServices, tenantId: string, alias: string): Promise<JWK> {
  const keys = s.platform.keys;
  if (isOwnKeyAlias(tenantId, alias)) await keys.ensure(alias, 'ES256');
  try {
    return await keys.publicJwk(alias);
  } catch {
    throw badInput('keyRef names no key of the key manager.', 'statusList.keyRef');
  }
}
