import { createHash } from 'node:crypto';
import { AppError } from '@tessera/platform';
import { checkAsset } from '../domain/asset-content.js';
import type { AssetType } from '../domain/enums.js';
import { ASSET_COMMANDS } from '../domain/kinds.js';
import { canonicalLocale, lookupLocale } from '../domain/locales.js';
import { designNotFound } from '../domain/normalize-design.js';
import type { DesignsServices } from '../services.js';
import { assetStore } from '../storage/asset-store.js';
import { designStore } from '../storage/design-store.js';
import { designCommand } from './design-commands.js';

export interface AssetReference {
  designId: string;
  locale: string;
  assetType: AssetType;
  contentType: string;
  size: number;
  sha256: string;
  uri: string;
}

export const assetUri = (designId: string, locale: string, assetType: AssetType) =>
  `/api/v1/designs/credentials/${designId}/assets/${locale}/${assetType}`;

const blobKey = (designId: string, locale: string, assetType: AssetType) => `${designId}/${locale}/${assetType}`;

/**
 * POST /designs/credentials/{designId}/assets/{locale}/{assetType} (001 §4.1): the bytes, checked and (SVG)
 * sanitized (domain/asset-content.ts), stored in the blob store beside their reference in one unit of work; an
 * asset of the same design, locale and type is replaced. 201 with the AssetReference.
 */
export const uploadAsset = (s: DesignsServices) =>
  designCommand<
    { designId: string; locale: string; assetType: AssetType; contentType: string; bytes: Buffer },
    AssetReference
  >(s, {
    id: `${ASSET_COMMANDS}.upload`,
    access: 'write',
    businessIds: (input) => ({ designId: input.designId, assetType: input.assetType }),
    async run(ctx, input) {
      const locale = canonicalLocale(input.locale, 'locale');
      const { contentType, bytes } = checkAsset(input.assetType, input.contentType, input.bytes);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      const key = blobKey(input.designId, locale, input.assetType);
      await ctx.unitOfWork(async (sql) => {
        if (!(await designStore.get(sql, 'CREDENTIAL', input.designId))) throw designNotFound();
        await s.blobs.put({ tenantId: ctx.tenantId, sql }, key, bytes);
        await assetStore.put(
          sql,
          {
            designId: input.designId,
            locale,
            assetType: input.assetType,
            contentType,
            size: bytes.length,
            sha256,
            blobKey: key,
          },
          s.clock.now(),
        );
      });
      return {
        designId: input.designId,
        locale,
        assetType: input.assetType,
        contentType,
        size: bytes.length,
        sha256,
        uri: assetUri(input.designId, locale, input.assetType),
      };
    },
  });

/**
 * GET /designs/credentials/{designId}/assets/{locale}/{assetType} (001 §4.1): the stored bytes and content type.
 * The locale is looked up as BCP-47 (an asset for `de` serves `de-CH`); 404 when the design or asset is absent.
 */
export const downloadAsset = (s: DesignsServices) =>
  designCommand<
    { designId: string; locale: string; assetType: AssetType },
    { reference: AssetReference; bytes: Buffer }
  >(s, {
    id: `${ASSET_COMMANDS}.download`,
    access: 'read',
    businessIds: (input) => ({ designId: input.designId, assetType: input.assetType }),
    async run(ctx, input) {
      const locale = canonicalLocale(input.locale, 'locale');
      const found = await s.platform.db.withTenantSession(ctx.tenantId, async (sql) => {
        const assets = await assetStore.ofType(sql, input.designId, input.assetType);
        const chosen = lookupLocale(
          [locale],
          assets.map((a) => a.locale),
          null,
        );
        const asset = assets.find((a) => a.locale === chosen);
        if (!asset) return null;
        const bytes = await s.blobs.get({ tenantId: ctx.tenantId, sql }, asset.blobKey);
        return bytes ? { asset, bytes } : null;
      });
      if (!found) throw new AppError('not_found', 'No such asset of this design in this tenant.');
      const { asset, bytes } = found;
      return {
        reference: { ...asset, uri: assetUri(asset.designId, asset.locale, asset.assetType) },
        bytes,
      };
    },
  });
