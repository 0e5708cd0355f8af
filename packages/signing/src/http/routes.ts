import { commandContext, type RoleApp } from '@tessera/platform';
import { createDigest } from '../commands/create-digest.js';
import { createSignature } from '../commands/create-signature.js';
import { determineSignatureInput } from '../commands/determine-signature-input.js';
import { generateKey } from '../commands/generate-key.js';
import { getKeyEntry } from '../commands/get-key-entry.js';
import { importCertificate } from '../commands/import-certificate.js';
import { linkKeyEntry } from '../commands/link-key-entry.js';
import { mergeSignature } from '../commands/merge-signature.js';
import type { SigningServices } from '../services.js';
import {
  CreateSignatureBody,
  DetermineBody,
  DigestBody,
  GenerateKeyBody,
  GeneratedKeyResponse,
  ImportCertificateBody,
  KeyEntryResponse,
  KidParams,
  LinkKeyEntryBody,
  MergeBody,
  ProviderParams,
  SignInputResponse,
  SignOutputResponse,
  SignatureResponse,
} from './schemas.js';

/** 002 §9: the API is labelled 1.0-SNAPSHOT; its major version is in the path. */
export const SIGNING_BASE_PATH = '/api/signing/v1';

export const SIGNING_PATHS = {
  determine: `${SIGNING_BASE_PATH}/signature-input`,
  digest: `${SIGNING_BASE_PATH}/digest`,
  sign: `${SIGNING_BASE_PATH}/signature`,
  merge: `${SIGNING_BASE_PATH}/merge`,
  importCertificate: `${SIGNING_BASE_PATH}/providers/:providerId/certificates`,
  linkKeyEntry: `${SIGNING_BASE_PATH}/providers/:providerId/key-entries`,
  keyEntry: `${SIGNING_BASE_PATH}/key-entries/:kid`,
  keys: `${SIGNING_BASE_PATH}/keys`,
} as const;

/**
 * The routes of the signing API (002 §4.1). The key provider is in the body (`binding.keyProviderId`, 002 §1) except
 * for operations 5 and 6, whose path parameter the spec names. Each route: schema, one command through the bus.
 * Documents travel base64 in JSON: the body limit is the document limit in base64 plus room for images and fonts.
 */
export function registerSigningApiRoutes(app: RoleApp, s: SigningServices): void {
  const bus = s.platform.commands;
  const tags = ['signing'];
  const noStore = { 'cache-control': 'no-store' };
  const bodyLimit = Math.ceil((s.config.maxDocumentBytes * 4) / 3) + 8 * 1024 * 1024;
  const commands = {
    determine: determineSignatureInput(s),
    digest: createDigest(s),
    sign: createSignature(s),
    merge: mergeSignature(s),
    importCertificate: importCertificate(s),
    link: linkKeyEntry(s),
    getKeyEntry: getKeyEntry(s),
    generateKey: generateKey(s),
  };

  app.post(
    SIGNING_PATHS.determine,
    {
      bodyLimit,
      schema: {
        tags,
        summary: 'Determine signature input data (operation 1)',
        body: DetermineBody,
        response: { 200: SignInputResponse },
      },
    },
    async (request, reply) =>
      reply.headers(noStore).send(await bus.execute(commands.determine, commandContext(request), request.body)),
  );

  app.post(
    SIGNING_PATHS.digest,
    {
      bodyLimit,
      schema: {
        tags,
        summary: 'Create digest value (operation 2)',
        body: DigestBody,
        response: { 200: SignInputResponse },
      },
    },
    async (request, reply) =>
      reply.headers(noStore).send(await bus.execute(commands.digest, commandContext(request), request.body)),
  );

  app.post(
    SIGNING_PATHS.sign,
    {
      bodyLimit,
      schema: {
        tags,
        summary: 'Create signature (operation 3)',
        body: CreateSignatureBody,
        response: { 200: SignatureResponse },
      },
    },
    async (request, reply) => {
      const { signature } = await bus.execute(commands.sign, commandContext(request), request.body);
      return reply.headers(noStore).send({ signature });
    },
  );

  app.post(
    SIGNING_PATHS.merge,
    {
      bodyLimit,
      schema: {
        tags,
        summary: 'Merge signature into original data (operation 4)',
        body: MergeBody,
        response: { 200: SignOutputResponse },
      },
    },
    async (request, reply) => {
      const { signOutput } = await bus.execute(commands.merge, commandContext(request), request.body);
      return reply.headers(noStore).send({ signOutput });
    },
  );

  app.post(
    SIGNING_PATHS.importCertificate,
    {
      schema: {
        tags,
        summary: 'Import an X.509 certificate as key entry (operation 5)',
        params: ProviderParams,
        body: ImportCertificateBody,
        response: { 201: KeyEntryResponse },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .headers(noStore)
        .send(
          await bus.execute(commands.importCertificate, commandContext(request), {
            ...request.body,
            ...request.params,
          }),
        ),
  );

  app.post(
    SIGNING_PATHS.linkKeyEntry,
    {
      schema: {
        tags,
        summary: 'Link a key entry to a provider key (operation 6)',
        params: ProviderParams,
        body: LinkKeyEntryBody,
        response: { 201: KeyEntryResponse },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .headers(noStore)
        .send(await bus.execute(commands.link, commandContext(request), { ...request.body, ...request.params })),
  );

  app.get(
    SIGNING_PATHS.keyEntry,
    { schema: { tags, summary: 'Read a key entry', params: KidParams, response: { 200: KeyEntryResponse } } },
    async (request, reply) =>
      reply.headers(noStore).send(await bus.execute(commands.getKeyEntry, commandContext(request), request.params)),
  );

  app.post(
    SIGNING_PATHS.keys,
    {
      schema: {
        tags,
        summary: 'Generate a key pair in a provider',
        body: GenerateKeyBody,
        response: { 201: GeneratedKeyResponse },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .headers(noStore)
        .send(await bus.execute(commands.generateKey, commandContext(request), request.body)),
  );
}
