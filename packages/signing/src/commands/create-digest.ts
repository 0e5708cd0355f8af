import { defineCommand } from '@tessera/platform';
import { decodeDocument } from '../flow/documents.js';
import { readKeyEntry } from '../flow/key-entries.js';
import { padesAttributes } from '../flow/pades.js';
import type { SignInputT } from '../http/schemas.js';
import { digestOf } from '../keys/verify-signature.js';
import type { SigningServices } from '../services.js';

export const CREATE_DIGEST = 'signing.create-digest';

/**
 * Operation 2 (002 §4.1): the sign input's digest under its `digestAlgorithm`, in DIGEST mode. For PAdES this is the
 * digest of the CMS signed attributes over the byte-range content (the value a remote signer or HSM signs). An input
 * in DIGEST mode already is answered as it is.
 */
export const createDigest = (s: SigningServices) =>
  defineCommand<{ signInput: SignInputT }, { signInput: SignInputT }>({
    id: CREATE_DIGEST,
    access: 'read',
    businessIds: (input) => ({ kid: input.signInput.binding.kid, digestAlgorithm: input.signInput.digestAlgorithm }),
    async run(ctx, { signInput }) {
      if (signInput.signMode === 'DIGEST') return { signInput };
      const data = decodeDocument(signInput.input, s.config.maxDocumentBytes, 'signInput.input');
      const algorithm = signInput.digestAlgorithm;
      let digest: Buffer;
      if (signInput.signatureFormParameters?.padesSignatureFormParameters) {
        const entry = await readKeyEntry(s, ctx, signInput.binding.kid);
        digest = digestOf(algorithm, padesAttributes(entry, algorithm, data).der);
      } else digest = digestOf(algorithm, data);
      return { signInput: { ...signInput, input: digest.toString('base64'), signMode: 'DIGEST' } };
    },
  });
