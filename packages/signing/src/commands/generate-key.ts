import { randomUUID } from 'node:crypto';
import { AppError, defineCommand } from '@tessera/platform';
import { badRequest } from '../domain/errors.js';
import type { GenerateKeyBodyT } from '../http/schemas.js';
import { ProviderKeyExistsError } from '../keys/software-provider.js';
import { UnsupportedKeyTypeError } from '../keys/pkcs11-provider.js';
import type { SigningServices } from '../services.js';

export const GENERATE_KEY = 'signing.generate-key';

/**
 * A key pair made in a provider (beyond the six operations of 002 §4.1, which presuppose provider keys): the
 * software provider seals the private key, a PKCS #11 provider makes it on the token (CKA_ID = providerKid in
 * hex). The public key is answered, for a certificate request; link it (operation 6) or import its certificate
 * (operation 5) to sign with it.
 */
export const generateKey = (s: SigningServices) =>
  defineCommand<
    GenerateKeyBodyT,
    { keyProviderId: string; providerKid: string; publicKey: { algorithm: string; value: string; format: string } }
  >({
    id: GENERATE_KEY,
    access: 'write',
    businessIds: (input, output) => ({
      providerId: input.keyProviderId,
      keyType: input.keyType,
      ...(output ? { providerKid: output.providerKid } : {}),
    }),
    async run(ctx, input) {
      const provider = s.providers.get(input.keyProviderId, ctx.tenantId);
      if (!provider.generateKey) throw badRequest(`Key provider ${provider.id} does not make keys.`, 'keyProviderId');
      const providerKid =
        input.providerKid ?? (provider.kind === 'pkcs11' ? randomUUID().replaceAll('-', '') : randomUUID());
      try {
        const key = await ctx.unitOfWork((sql) =>
          provider.generateKey!({ tenantId: ctx.tenantId, sql }, input.keyType, providerKid),
        );
        const algorithm = { RSA: 'RSA', EC: 'ECDSA', DSA: 'DSA' }[key.keyKind];
        return {
          keyProviderId: provider.id,
          providerKid: key.providerKid,
          publicKey: { algorithm, value: key.publicKeySpki.toString('base64'), format: 'X.509' },
        };
      } catch (error) {
        if (error instanceof ProviderKeyExistsError)
          throw new AppError('already_exists', `Key provider ${provider.id} holds a key ${providerKid} already.`);
        if (error instanceof UnsupportedKeyTypeError)
          throw badRequest(`Key provider ${provider.id} does not make ${input.keyType} keys.`, 'keyType');
        throw error;
      }
    },
  });
