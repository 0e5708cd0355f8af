import { defineCommand } from '@tessera/platform';
import {
  DIGEST_LENGTH,
  algorithmSpec,
  defaultAlgorithm,
  effectiveDigest,
  type SignatureAlgorithm,
} from '../domain/algorithms.js';
import { algorithmRefused, badRequest } from '../domain/errors.js';
import { decodeDocument } from '../flow/documents.js';
import { keyEntryView, loadKeyEntry } from '../flow/key-entries.js';
import { padesAttributes } from '../flow/pades.js';
import { resolveSignatureConfig } from '../flow/signature-config.js';
import type { SignInputT } from '../http/schemas.js';
import { digestOf } from '../keys/verify-signature.js';
import type { SigningServices } from '../services.js';

export const CREATE_SIGNATURE = 'signing.create-signature';

export interface CreateSignatureInput {
  signInput: SignInputT;
  maskGenFunction?: 'MGF1' | undefined;
  signatureAlgorithm?: SignatureAlgorithm | undefined;
}

export interface SignatureOutput {
  signature: {
    value: string;
    algorithm: SignatureAlgorithm;
    signMode: 'DIGEST' | 'DOCUMENT';
    keyEntry: ReturnType<typeof keyEntryView>;
    binding: SignInputT['binding'];
    date: string;
    signatureFormParameters: NonNullable<SignInputT['signatureFormParameters']>;
  };
  /** For the audit event: the digest signed over the document (never the document). */
  audit: { documentDigest: string; algorithm: string; kid: string; providerId: string };
}

/**
 * Operation 3 (002 §4.1): a signature with the key entry's provider key. The caller must hold SIGN on the entry
 * (access restrictions, issue 21 §5). The algorithm is the request's, else the configuration's, else the key kind's
 * with the input's hash. A combination the provider cannot do is refused before signing (400 naming algorithm and
 * provider). DOCUMENT inputs are hashed here (PAdES: the signed attributes over the byte-range content are built
 * and signed); DIGEST inputs are signed as given, their hash being the input's `digestAlgorithm`.
 */
export const createSignature = (s: SigningServices) =>
  defineCommand<CreateSignatureInput, SignatureOutput>({
    id: CREATE_SIGNATURE,
    // Any principal of the tenant passes the platform policy; who may sign with which key is decided by the key
    // entry's access restrictions, checked below on every signature (issue 21 §5).
    access: 'read',
    businessIds: (input, output): Record<string, string> =>
      output
        ? { ...output.audit }
        : { kid: input.signInput.binding.kid, providerId: input.signInput.binding.keyProviderId },
    async run(ctx, { signInput, maskGenFunction, signatureAlgorithm }) {
      const { binding, digestAlgorithm } = signInput;
      const provider = s.providers.get(binding.keyProviderId, ctx.tenantId);
      const configured = resolveSignatureConfig(s.config, binding.signatureConfigId, undefined).signatureAlgorithm;
      const pades = signInput.signatureFormParameters?.padesSignatureFormParameters !== undefined;
      const input = decodeDocument(signInput.input, s.config.maxDocumentBytes, 'signInput.input');

      return s.platform.db.withTenant(ctx.tenantId, async (sql) => {
        const entry = await loadKeyEntry(sql, ctx, binding.kid, 'SIGN');
        if (entry.providerId !== provider.id)
          throw badRequest(
            `The key entry ${binding.kid} is not held by key provider ${provider.id}.`,
            'binding.keyProviderId',
          );
        const name = signatureAlgorithm ?? configured ?? defaultAlgorithm(entry.keyKind, digestAlgorithm);
        const spec = algorithmSpec(name);
        if (maskGenFunction !== undefined && spec.scheme !== 'PSS')
          throw badRequest(`maskGenFunction applies to RSA-PSS only, not ${name}.`, 'maskGenFunction');
        const hash = effectiveDigest(spec, digestAlgorithm);
        if (!provider.signs) {
          const asKey = { providerKid: entry.kid, keyKind: entry.keyKind, publicKeySpki: entry.publicKeySpki };
          throw algorithmRefused(name, provider.id, provider.refusal(asKey, spec, { hash }) ?? 'it does not sign');
        }
        if (!entry.providerKid)
          throw badRequest(
            `The key entry ${binding.kid} is not linked to a key of provider ${provider.id}.`,
            'binding.kid',
          );
        const key = await provider.findKey({ tenantId: ctx.tenantId, sql }, entry.providerKid);
        if (!key) throw badRequest(`The provider key of key entry ${binding.kid} no longer exists.`, 'binding.kid');

        let data: Buffer | undefined;
        let digest: Buffer;
        if (signInput.signMode === 'DIGEST') {
          if (hash !== digestAlgorithm)
            throw badRequest(
              `${name} hashes with ${hash}, but the digest is ${digestAlgorithm}.`,
              'signatureAlgorithm',
            );
          if (input.length !== DIGEST_LENGTH[digestAlgorithm])
            throw badRequest(
              `A ${digestAlgorithm} digest has ${DIGEST_LENGTH[digestAlgorithm]} bytes.`,
              'signInput.input',
            );
          digest = input;
        } else {
          if (spec.digest === null)
            throw badRequest(
              `${name} signs a digest: give the input in DIGEST mode (create the digest first).`,
              'signInput.signMode',
            );
          if (pades && hash !== digestAlgorithm)
            throw badRequest(
              `A PAdES signature hashes with its digest algorithm ${digestAlgorithm}, not ${hash}.`,
              'signatureAlgorithm',
            );
          data = pades ? padesAttributes(entry, digestAlgorithm, input).der : input;
          digest = digestOf(hash, data);
        }
        const refusal = provider.refusal(key, spec, { hash, data });
        if (refusal) throw algorithmRefused(name, provider.id, refusal);
        const value = await provider.sign({ tenantId: ctx.tenantId, sql }, key, { spec, hash, digest, data });
        return {
          signature: {
            value: value.toString('base64'),
            algorithm: name,
            signMode: signInput.signMode,
            keyEntry: keyEntryView(entry),
            binding,
            date: signInput.signingDate,
            signatureFormParameters: signInput.signatureFormParameters ?? {},
          },
          audit: {
            documentDigest: `${hash}:${digest.toString('base64')}`,
            algorithm: name,
            kid: entry.kid,
            providerId: provider.id,
          },
        };
      });
    },
  });
