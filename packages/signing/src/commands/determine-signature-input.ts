import { defineCommand } from '@tessera/platform';
import { badRequest } from '../domain/errors.js';
import type { WireFormParameters } from '../domain/pades-parameters.js';
import { decodeDocument } from '../flow/documents.js';
import { readKeyEntry } from '../flow/key-entries.js';
import { padesAttributesOfDigest, preparePades } from '../flow/pades.js';
import { isPades, resolveSignatureConfig } from '../flow/signature-config.js';
import type { DetermineBodyT, SignInputT } from '../http/schemas.js';
import { digestOf } from '../keys/verify-signature.js';
import { byteRangeContent } from '../pdf/prepare.js';
import type { SigningServices } from '../services.js';

export const DETERMINE_SIGNATURE_INPUT = 'signing.determine-signature-input';

/**
 * Operation 1 (002 §4.1): the data to sign. For a PDF with PAdES parameters, the document is prepared (signature
 * field, dictionary, /Contents placeholder; pdf/prepare.ts) and `input` is its byte-range content (DOCUMENT) or the
 * digest of the CMS signed attributes over it (DIGEST); for other data, the data (DOCUMENT) or its digest (DIGEST).
 * The signing date is fixed here, to the second, and travels in the sign input: the merge step prepares the same
 * document again from the original and that date.
 */
export const determineSignatureInput = (s: SigningServices) =>
  defineCommand<DetermineBodyT, { signInput: SignInputT }>({
    id: DETERMINE_SIGNATURE_INPUT,
    access: 'read',
    businessIds: (input) => ({ kid: input.binding.kid, keyProviderId: input.binding.keyProviderId }),
    async run(ctx, { origData, signMode, binding, signatureFormParametersOverride }) {
      const config = resolveSignatureConfig(
        s.config,
        binding.signatureConfigId,
        signatureFormParametersOverride as WireFormParameters,
      );
      const data = decodeDocument(origData.content, s.config.maxDocumentBytes, 'origData.content');
      const signingDate = new Date(Math.floor(s.clock.now().getTime() / 1000) * 1000);
      const digestAlgorithm = config.digestAlgorithm;
      let input: Buffer;
      let form: WireFormParameters = {};
      if (isPades(origData.mimeType, config.form)) {
        const entry = await readKeyEntry(s, ctx, binding.kid);
        if (entry.providerId !== binding.keyProviderId)
          throw badRequest(
            `The key entry ${binding.kid} is not held by key provider ${binding.keyProviderId}.`,
            'binding.keyProviderId',
          );
        form = config.form;
        const { prepared, messageDigest } = await preparePades({
          tenantId: ctx.tenantId,
          pdf: data,
          password: origData.password,
          params: config.form.padesSignatureFormParameters!,
          signingDate,
          entry,
          fonts: s.config.fonts,
          digestAlgorithm,
          updates: s.preparedUpdates,
        });
        input =
          signMode === 'DOCUMENT'
            ? byteRangeContent(prepared)
            : digestOf(digestAlgorithm, padesAttributesOfDigest(entry, digestAlgorithm, messageDigest).der);
      } else {
        input = signMode === 'DOCUMENT' ? data : digestOf(digestAlgorithm, data);
      }
      return {
        signInput: {
          name: origData.name,
          input: input.toString('base64'),
          signMode,
          digestAlgorithm,
          signingDate: signingDate.toISOString(),
          binding,
          signatureFormParameters: form,
        },
      };
    },
  });
