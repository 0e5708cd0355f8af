import { randomUUID } from 'node:crypto';
import { invalidRequest } from '@tessera/platform';
import type { SourceType } from '../domain/enums.js';
import type { KindInfo } from '../domain/kinds.js';
import { bindingTaken, normalizeDesign } from '../domain/normalize-design.js';
import type { Binding, DesignInput, DesignRecord } from '../domain/records.js';
import { fetchSource, mapSource, mergeBindings, parseSourceJson, sha256Hex } from '../import/source-documents.js';
import { MAPPERS } from '../mappers/index.js';
import type { DesignsServices } from '../services.js';
import { designStore } from '../storage/design-store.js';
import { isUniqueViolation } from '../storage/rows.js';
import { snapshotStore } from '../storage/snapshot-store.js';
import { variantStore } from '../storage/variant-store.js';
import { designCommand } from './design-commands.js';

export interface ImportDesignInput {
  entityType: string;
  bindings: Binding[];
  alias: string;
  sourceUrl: string;
  sourceType: SourceType;
}

export interface ImportDesignOutput {
  /** The first design made; `designIds` lists all of them (issuer metadata: one per credential configuration). */
  record: DesignRecord;
  designIds: string[];
}

/**
 * POST /designs/{kind}/import (001 §4.1): fetch `sourceUrl` through the SSRF-protected fetcher, keep the raw
 * payload as a snapshot with its ETag and Last-Modified, map it with the source type's mapper, and store the
 * design(s) (hosting mode EXTERNAL), the snapshot and the mapped render variants in one unit of work. Issuer
 * metadata imported as credential designs makes one design per credential configuration unless the request
 * names one (a CREDENTIAL_CONFIGURATION_ID binding); the request's other bindings then go to a single design only.
 */
export const importDesign = (s: DesignsServices, info: KindInfo) =>
  designCommand<ImportDesignInput, ImportDesignOutput>(s, {
    id: `${info.commandPrefix}.import`,
    access: 'write',
    businessIds: (input, output): Record<string, string> => ({
      sourceType: input.sourceType,
      ...(output ? { designId: output.record.id, designCount: String(output.designIds.length) } : {}),
    }),
    async run(ctx, input) {
      if (input.entityType !== info.kind)
        throw invalidRequest(`entityType must be ${info.kind} on this collection.`, 'entityType');
      const mapper = MAPPERS[input.sourceType];
      if (!mapper.kinds.includes(info.kind))
        throw invalidRequest(`A ${input.sourceType} source makes no ${info.noun}.`, 'sourceType');
      const response = await fetchSource(s, mapper, input.sourceUrl);
      const mapped = await mapSource(s, mapper, parseSourceJson(response.body), {
        kind: info.kind,
        sourceUrl: input.sourceUrl,
        requestBindings: input.bindings,
      });
      const several = mapped.length > 1;
      const extra = input.bindings.filter((b) => b.key !== 'CREDENTIAL_CONFIGURATION_ID');
      if (several && extra.length > 0)
        throw invalidRequest('The source makes several designs: bindings would be shared by them.', 'bindings');
      const inputs = mapped.map((m): DesignInput => {
        const bindings = mergeBindings(input.bindings, m.bindings);
        return normalizeDesign({
          ...m.document,
          bindings,
          alias: several && m.label ? `${input.alias} (${m.label})` : input.alias,
          hostingMode: 'EXTERNAL',
        });
      });
      const snapshotId = randomUUID();
      const now = s.clock.now();
      try {
        const records = await ctx.unitOfWork(async (sql) => {
          await snapshotStore.insert(
            sql,
            {
              id: snapshotId,
              entityType: info.kind,
              sourceUrl: input.sourceUrl,
              sourceType: input.sourceType,
              contentType: response.contentType,
              payload: response.body,
              sha256: sha256Hex(response.body),
              etag: response.etag ?? null,
              lastModified: response.lastModified ?? null,
            },
            now,
          );
          const out: DesignRecord[] = [];
          for (const [i, design] of inputs.entries()) {
            const id = randomUUID();
            const stored = await designStore.insert(sql, {
              id,
              kind: info.kind,
              input: design,
              now,
              source: {
                sourceType: input.sourceType,
                sourceUrl: input.sourceUrl,
                snapshotId,
                sourceDocument: {
                  ...mapped[i]!.document,
                  displays: design.displays,
                  ...(design.claims ? { claims: design.claims } : {}),
                },
              },
            });
            for (const v of mapped[i]!.variants ?? [])
              await variantStore.insert(sql, randomUUID(), { ...v, designId: id }, now);
            out.push(stored.record);
          }
          return out;
        });
        return { record: records[0]!, designIds: records.map((r) => r.id) };
      } catch (error) {
        if (isUniqueViolation(error)) throw bindingTaken();
        throw error;
      }
    },
  });
