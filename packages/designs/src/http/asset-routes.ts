import { commandContext, type RoleApp } from '@tessera/platform';
import { downloadAsset, uploadAsset } from '../commands/asset-commands.js';
import type { AssetType } from '../domain/enums.js';
import type { DesignsServices } from '../services.js';
import { DESIGNS_BASE_PATH } from './design-routes.js';
import { AssetParams, AssetReference } from './schemas.js';

const PATH = `${DESIGNS_BASE_PATH}/credentials/:designId/assets/:locale/:assetType`;

/**
 * Assets (001 §4.1): raw bytes both ways. The upload's Content-Type is the asset's type, so this scope reads any
 * body as bytes, up to `designs.assets.maxBytes` (413 beyond). Downloads carry the stored type, the SHA-256 as
 * ETag, `nosniff`, and a CSP that keeps an SVG from running or loading anything if opened directly.
 */
export function registerAssetRoutes(app: RoleApp, s: DesignsServices): void {
  const bus = s.platform.commands;
  const tags = ['assets'];
  const commands = { upload: uploadAsset(s), download: downloadAsset(s) };

  void app.register(async (scope: RoleApp) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: s.config.assets.maxBytes },
      (_request, body, done) => done(null, body),
    );

    scope.post(
      PATH,
      {
        bodyLimit: s.config.assets.maxBytes,
        schema: {
          tags,
          summary: 'Upload an asset (Content-Type: the asset type; body: its bytes)',
          params: AssetParams,
          response: { 201: AssetReference },
        },
      },
      async (request, reply) => {
        const reference = await bus.execute(commands.upload, commandContext(request), {
          ...request.params,
          assetType: request.params.assetType as AssetType,
          contentType: String(request.headers['content-type'] ?? ''),
          bytes: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        });
        return reply.status(201).header('location', reference.uri).send(reference);
      },
    );

    scope.get(
      PATH,
      { schema: { tags, summary: 'Download an asset (its stored Content-Type and bytes)', params: AssetParams } },
      async (request, reply) => {
        const { reference, bytes } = await bus.execute(commands.download, commandContext(request), {
          ...request.params,
          assetType: request.params.assetType as AssetType,
        });
        return reply
          .header('content-type', reference.contentType)
          .header('etag', `"${reference.sha256}"`)
          .header('content-language', reference.locale)
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
          .send(bytes);
      },
    );
  });
}
