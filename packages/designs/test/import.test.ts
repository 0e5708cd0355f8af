import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '@tessera/platform/testing';
import { createSourceFetcher } from '../src/import/source-fetcher.js';
import { startFixtureServer, type FixtureServer } from './fixture-server.js';
import { call, designsConfig, startDesignsBed, type DesignsBed } from './support.js';

const CREDENTIALS = '/api/v1/designs/credentials';

/**
 * Imports of published examples of each source format, served by a local HTTPS server; each mapped design is
 * checked field by field. Then snapshots, conditional refresh, and the fetcher's refusals seen through the API.
 */
describe.each(DATABASE_KINDS)('imports (%s)', (kind) => {
  let bed: DesignsBed;
  let fixtures: FixtureServer;

  beforeAll(async () => {
    fixtures = await startFixtureServer();
    const config = designsConfig({ import: { allowPrivateNetworkOrigins: [fixtures.origin] } });
    const fetcher = createSourceFetcher({ ...config.import, allowHttp: false, ca: fixtures.ca });
    bed = await startDesignsBed(kind, { config, deps: { fetcher } });
  }, 120_000);
  afterAll(async () => {
    await bed?.close();
    await fixtures?.close();
  });

  const importing = (body: Record<string, unknown>, path = CREDENTIALS) =>
    call(bed, 'POST', `${path}/import`, bed.tokens.alphaAdmin, { entityType: 'CREDENTIAL', bindings: [], ...body });

  it('maps one credential configuration of OpenID4VCI 1.0 issuer metadata (§12.2.4 example)', async () => {
    const res = await importing({
      alias: 'University degree',
      bindings: [{ key: 'CREDENTIAL_CONFIGURATION_ID', value: 'UniversityDegreeCredential' }],
      sourceUrl: `${fixtures.origin}/.well-known/openid-credential-issuer`,
      sourceType: 'OID4VCI_CREDENTIAL_CONFIGURATION',
    });
    expect(res.statusCode).toBe(201);
    const d = res.json();
    expect(d).toMatchObject({
      entityType: 'CREDENTIAL',
      alias: 'University degree',
      hostingMode: 'EXTERNAL',
      sourceType: 'OID4VCI_CREDENTIAL_CONFIGURATION',
      sourceUrl: `${fixtures.origin}/.well-known/openid-credential-issuer`,
      bindings: [{ key: 'CREDENTIAL_CONFIGURATION_ID', value: 'UniversityDegreeCredential' }],
    });
    expect(d.displays).toEqual([
      {
        locale: 'en-US',
        name: 'University Credential',
        logo: { uri: 'https://university.example.edu/public/logo.png', altText: 'a square logo of a university' },
        backgroundColor: '#12107C',
        textColor: '#FFFFFF',
      },
    ]);
    const prop = (...names: string[]) => names.map((name) => ({ kind: 'Property', name }));
    expect(d.claims).toEqual([
      {
        path: prop('credentialSubject', 'given_name'),
        labels: [{ locale: 'en-US', label: 'Given Name' }],
        mandatory: false,
        order: 1,
        valueKind: 'STRING',
        widgetHint: 'TEXT',
      },
      {
        path: prop('credentialSubject', 'family_name'),
        labels: [{ locale: 'en-US', label: 'Surname' }],
        mandatory: false,
        order: 2,
        valueKind: 'STRING',
        widgetHint: 'TEXT',
      },
      {
        path: prop('credentialSubject', 'degree'),
        labels: [],
        mandatory: false,
        order: 3,
        valueKind: 'STRING',
        widgetHint: 'TEXT',
      },
      // A display without locale is in the default locale.
      {
        path: prop('credentialSubject', 'gpa'),
        labels: [{ locale: 'en', label: 'GPA' }],
        mandatory: true,
        order: 4,
        valueKind: 'STRING',
        widgetHint: 'TEXT',
      },
    ]);
    expect(d.snapshotId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('maps issuer metadata into one credential design per configuration, and into the issuer design', async () => {
    const all = await importing({
      alias: 'Example issuer',
      sourceUrl: `${fixtures.origin}/.well-known/openid-credential-issuer`,
      sourceType: 'OID4VCI_ISSUER_METADATA',
      bindings: [],
    });
    // The first configuration was imported above with the same binding: 409 for the whole import, nothing written.
    expect(all.statusCode).toBe(409);
    const other = await call(bed, 'POST', `${CREDENTIALS}/import`, bed.tokens.betaAdmin, {
      entityType: 'CREDENTIAL',
      alias: 'Example issuer',
      sourceUrl: `${fixtures.origin}/.well-known/openid-credential-issuer`,
      sourceType: 'OID4VCI_ISSUER_METADATA',
      bindings: [],
    });
    expect(other.statusCode).toBe(201);
    const ids = String(other.headers['imported-design-ids']).split(',');
    expect(ids).toHaveLength(2);
    const sdJwt = await call(bed, 'GET', `${CREDENTIALS}/${ids[1]}`, bed.tokens.betaAdmin);
    const d = sdJwt.json();
    expect(d.alias).toBe('Example issuer (SD_JWT_VC_example_in_OpenID4VCI)');
    expect(d.bindings).toEqual([
      { key: 'CREDENTIAL_CONFIGURATION_ID', value: 'SD_JWT_VC_example_in_OpenID4VCI' },
      { key: 'VCT', value: 'SD_JWT_VC_example_in_OpenID4VCI' },
    ]);
    expect(d.displays[0]).toMatchObject({ locale: 'en-US', name: 'IdentityCredential', backgroundColor: '#12107C' });
    expect(d.claims).toHaveLength(13);
    expect(d.claims[0]).toEqual({
      path: [{ kind: 'Property', name: 'given_name' }],
      labels: [
        { locale: 'en-US', label: 'Given Name' },
        { locale: 'de-DE', label: 'Vorname' },
      ],
      mandatory: false,
      order: 1,
      valueKind: 'STRING',
      widgetHint: 'TEXT',
    });
    expect(d.claims[5].path).toEqual([
      { kind: 'Property', name: 'address' },
      { kind: 'Property', name: 'street_address' },
    ]);

    const issuer = await importing(
      {
        entityType: 'ISSUER',
        alias: 'Example University',
        sourceUrl: `${fixtures.origin}/.well-known/openid-credential-issuer`,
        sourceType: 'OID4VCI_ISSUER_METADATA',
      },
      '/api/v1/designs/issuers',
    );
    expect(issuer.statusCode).toBe(201);
    expect(issuer.json()).toMatchObject({
      entityType: 'ISSUER',
      bindings: [{ key: 'CREDENTIAL_ISSUER', value: 'https://credential-issuer.example.com' }],
      displays: [
        {
          locale: 'en-US',
          name: 'Example University',
          logo: { uri: 'https://university.example.edu/public/logo.png', altText: 'a square logo of a university' },
        },
        { locale: 'fr-FR', name: 'Example Université' },
      ],
    });
  });

  it('maps SD-JWT VC type metadata, following extends with its integrity checked (child wins)', async () => {
    const res = await importing({
      alias: 'Education',
      sourceUrl: `${fixtures.origin}/vct/education`,
      sourceType: 'SD_JWT_VCT_METADATA',
    });
    expect(res.statusCode).toBe(201);
    const d = res.json();
    expect(d.bindings).toEqual([{ key: 'VCT', value: 'https://betelgeuse.example.com/education_credential' }]);
    expect(d.displays).toEqual([
      {
        locale: 'en-US',
        name: 'Betelgeuse Education Credential',
        description: 'An education credential for all carbon-based life forms on Betelgeusians',
        logo: {
          uri: 'https://betelgeuse.example.com/public/education-logo.png',
          altText: 'Betelgeuse Ministry of Education logo',
        },
        backgroundColor: '#12107C',
        textColor: '#FFFFFF',
      },
      // Only the extended type has French.
      { locale: 'fr-FR', name: "Attestation d'éducation galactique" },
      {
        locale: 'de-DE',
        name: 'Betelgeuse-Bildungsnachweis',
        logo: {
          uri: 'https://betelgeuse.example.com/public/education-logo-de.png',
          altText: 'Logo des Betelgeusischen Bildungsministeriums',
        },
        backgroundColor: '#12107C',
        textColor: '#FFFFFF',
      },
    ]);
    const byPath = Object.fromEntries(
      d.claims.map((c: { path: { name: string }[] }) => [c.path.map((p) => p.name).join('.'), c]),
    );
    expect(Object.keys(byPath)).toEqual(['name', 'graduation_date', 'address', 'address.street_address', 'degrees.*']);
    expect(byPath.name).toMatchObject({
      labels: [
        { locale: 'de-DE', label: 'Vor- und Nachname' },
        { locale: 'en-US', label: 'Name' },
      ],
      selectiveDisclosure: 'allowed',
    });
    expect(byPath.graduation_date).toMatchObject({
      labels: [{ locale: 'en-US', label: 'Graduation date' }],
      selectiveDisclosure: 'never',
    });
    expect(byPath['degrees.*'].path).toEqual([
      { kind: 'Property', name: 'degrees' },
      { kind: 'AnyIndex', name: '*' },
    ]);
    expect(byPath['address.street_address'].selectiveDisclosure).toBe('always');
    const variants = await call(bed, 'GET', `/api/v1/designs/render/variants?designId=${d.id}`, bed.tokens.alphaAdmin);
    expect(variants.statusCode).toBe(200);
    // Variants made by one import share their creation time; the list orders them by id, so compare as a set.
    expect(
      variants
        .json()
        .map((v: { templateUri: string }) => v.templateUri)
        .sort(),
    ).toEqual([
      'https://betelgeuse.example.com/public/credential-english.svg',
      'https://betelgeuse.example.com/public/credential-german.svg',
    ]);
  });

  it('refuses extends whose integrity does not match, and an extends chain past the depth bound', async () => {
    const child = {
      vct: 'urn:tampered',
      extends: `${fixtures.origin}/vct/galactic-education-credential-0.9`,
      'extends#integrity': 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    };
    fixtures.set('/vct/tampered', JSON.stringify(child));
    const tampered = await importing({
      alias: 'x',
      sourceUrl: `${fixtures.origin}/vct/tampered`,
      sourceType: 'SD_JWT_VCT_METADATA',
    });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'sourceUrl' });
    expect(tampered.json().message).toMatch(/integrity/);
    for (let i = 0; i < 8; i++)
      fixtures.set(
        `/vct/chain-${i}`,
        JSON.stringify({ vct: `urn:chain:${i}`, extends: `${fixtures.origin}/vct/chain-${i + 1}` }),
      );
    const deep = await importing({
      alias: 'x',
      sourceUrl: `${fixtures.origin}/vct/chain-0`,
      sourceType: 'SD_JWT_VCT_METADATA',
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json().message).toMatch(/deeper/);
    fixtures.set('/vct/loop', JSON.stringify({ vct: 'urn:loop', extends: `${fixtures.origin}/vct/loop` }));
    const loop = await importing({
      alias: 'x',
      sourceUrl: `${fixtures.origin}/vct/loop`,
      sourceType: 'SD_JWT_VCT_METADATA',
    });
    expect(loop.json().message).toMatch(/cycle/);
  });

  it('maps an OCA bundle: meta, labels, conformance and branding overlays', async () => {
    const res = await importing({
      alias: 'Student card',
      sourceUrl: `${fixtures.origin}/oca/student-card`,
      sourceType: 'OCA_BUNDLE',
    });
    expect(res.statusCode).toBe(201);
    const d = res.json();
    expect(d.bindings).toEqual([{ key: 'OCA_CAPTURE_BASE', value: 'EBQbQEV6qSEGDzGLj1CqT4e6yzESjPimF-Swmyltw5jU' }]);
    const branding = {
      logo: { uri: 'https://college.example.ca/images/logo.png' },
      backgroundColor: '#003366',
      backgroundImage: { uri: 'https://college.example.ca/images/card-background.png' },
    };
    expect(d.displays).toEqual([
      { locale: 'en', name: 'Digital Student Card', description: 'A student card issued by the college', ...branding },
      {
        locale: 'fr',
        name: 'Carte étudiante numérique',
        description: 'Une carte étudiante délivrée par le collège',
        ...branding,
      },
    ]);
    expect(
      d.claims.map((c: { path: { name: string }[]; valueKind: string; mandatory: boolean }) => [
        c.path[0]!.name,
        c.valueKind,
        c.mandatory,
      ]),
    ).toEqual([
      ['given_names', 'STRING', true],
      ['family_name', 'STRING', true],
      ['student_id', 'STRING', true],
      ['expiry_date', 'DATE_TIME', false],
      ['picture', 'IMAGE', false],
      ['credits', 'NUMBER', false],
    ]);
    expect(d.claims[0].labels).toEqual([
      { locale: 'en', label: 'Given Names' },
      { locale: 'fr', label: 'Prénoms' },
    ]);
    expect(d.claims[4]).toMatchObject({ widgetHint: 'IMAGE', labels: [{ locale: 'en', label: 'Picture' }] });
  });

  it('maps a W3C render method: displays from the credential, claims from renderProperty', async () => {
    const res = await importing({
      alias: 'Degree',
      bindings: [{ key: 'VCT', value: 'urn:example:degree' }],
      sourceUrl: `${fixtures.origin}/credentials/3732`,
      sourceType: 'W3C_RENDER_METHOD',
    });
    expect(res.statusCode).toBe(201);
    const d = res.json();
    expect(d.displays).toEqual([
      { locale: 'en', name: 'Example Degree', description: 'A degree of the example university' },
      { locale: 'fr', name: 'Exemple de diplôme' },
    ]);
    expect(
      d.claims.map((c: { path: { name: string }[]; labels: unknown }) => [
        c.path.map((p) => p.name).join('.'),
        c.labels,
      ]),
    ).toEqual([
      ['issuer', [{ locale: 'en', label: 'issuer' }]],
      ['validFrom', [{ locale: 'en', label: 'validFrom' }]],
      ['credentialSubject.degree.name', [{ locale: 'en', label: 'name' }]],
    ]);
  });

  it('maps a JSON schema (VC JSON Schema example)', async () => {
    const res = await importing({
      alias: 'Email',
      sourceUrl: `${fixtures.origin}/schemas/email.json`,
      sourceType: 'JSON_SCHEMA',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      bindings: [{ key: 'JSON_SCHEMA_ID', value: 'https://example.com/schemas/email.json' }],
      displays: [{ locale: 'en', name: 'EmailCredential', description: 'EmailCredential using JsonSchema' }],
      claims: [
        {
          path: [
            { kind: 'Property', name: 'credentialSubject' },
            { kind: 'Property', name: 'emailAddress' },
          ],
          labels: [{ locale: 'en', label: 'emailAddress' }],
          mandatory: true,
          order: 1,
          valueKind: 'STRING',
          widgetHint: 'EMAIL',
        },
      ],
    });
  });

  it('keeps the raw payload as a snapshot, refreshes conditionally (304 keeps, 200 re-maps but not locked fields)', async () => {
    fixtures.set(
      '/schemas/refresh.json',
      JSON.stringify({ $id: 'urn:refresh', title: 'First title', properties: { a: { type: 'string', title: 'A' } } }),
    );
    const imported = (
      await importing({
        alias: 'Refreshing',
        sourceUrl: `${fixtures.origin}/schemas/refresh.json`,
        sourceType: 'JSON_SCHEMA',
      })
    ).json();
    const snapshot = await call(bed, 'GET', `/api/v1/designs/snapshots/${imported.snapshotId}`, bed.tokens.alphaReader);
    expect(snapshot.statusCode).toBe(200);
    expect(snapshot.headers['content-type']).toBe('application/json');
    expect(snapshot.headers['content-location']).toBe(`${fixtures.origin}/schemas/refresh.json`);
    expect(snapshot.headers['source-etag']).toMatch(/^"[0-9a-f]{16}"$/);
    expect(snapshot.json()).toMatchObject({ title: 'First title' });

    // Unchanged source: the conditional GET answers 304; the design stays as it was.
    const before = fixtures.requests.length;
    const same = await call(bed, 'POST', `${CREDENTIALS}/${imported.id}/refresh`, bed.tokens.alphaAdmin);
    expect(same.statusCode).toBe(200);
    expect(same.json()).toEqual(imported);
    expect(fixtures.requests.slice(before)).toEqual([{ path: '/schemas/refresh.json', conditional: true }]);

    // Lock the displays, then change the source: claims follow it, the locked displays do not.
    const locked = await call(bed, 'PUT', `${CREDENTIALS}/${imported.id}`, bed.tokens.alphaAdmin, {
      ...imported,
      displays: [{ locale: 'en', name: 'Our own title' }],
      lockedFields: ['displays'],
    });
    expect(locked.statusCode).toBe(200);
    fixtures.set(
      '/schemas/refresh.json',
      JSON.stringify({ $id: 'urn:refresh', title: 'Second title', properties: { b: { type: 'integer', title: 'B' } } }),
    );
    const snapshotRefresh = await call(
      bed,
      'POST',
      `/api/v1/designs/snapshots/${imported.snapshotId}/refresh`,
      bed.tokens.alphaAdmin,
    );
    expect(snapshotRefresh.statusCode).toBe(200);
    expect(snapshotRefresh.json()).toMatchObject({
      snapshotId: imported.snapshotId,
      status: 'UPDATED',
      designIds: [imported.id],
    });
    const after = (await call(bed, 'GET', `${CREDENTIALS}/${imported.id}`, bed.tokens.alphaAdmin)).json();
    expect(after.displays).toEqual([{ locale: 'en', name: 'Our own title' }]);
    expect(after.claims).toEqual([
      {
        path: [{ kind: 'Property', name: 'b' }],
        labels: [{ locale: 'en', label: 'B' }],
        mandatory: false,
        order: 1,
        valueKind: 'INTEGER',
        widgetHint: 'NUMBER',
      },
    ]);
    expect(
      (await call(bed, 'GET', `/api/v1/designs/snapshots/${imported.snapshotId}`, bed.tokens.alphaReader)).json(),
    ).toMatchObject({ title: 'Second title' });
    const again = await call(
      bed,
      'POST',
      `/api/v1/designs/snapshots/${imported.snapshotId}/refresh`,
      bed.tokens.alphaAdmin,
    );
    expect(again.json().status).toBe('UNCHANGED');

    // Tenant beta sees neither the snapshot nor can refresh it.
    expect(
      (await call(bed, 'GET', `/api/v1/designs/snapshots/${imported.snapshotId}`, bed.tokens.betaAdmin)).statusCode,
    ).toBe(404);
    expect(
      (await call(bed, 'POST', `/api/v1/designs/snapshots/${imported.snapshotId}/refresh`, bed.tokens.betaAdmin))
        .statusCode,
    ).toBe(404);
    // A design made by hand has nothing to refresh.
    const manual = await call(bed, 'POST', CREDENTIALS, bed.tokens.alphaAdmin, {
      bindings: [],
      alias: 'm',
      hostingMode: 'LOCAL',
      displays: [],
    });
    const refused = await call(bed, 'POST', `${CREDENTIALS}/${manual.json().id}/refresh`, bed.tokens.alphaAdmin);
    expect(refused.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'designId' });
  });

  it.each([
    ['a loopback address that is not the fixture origin', 'https://127.0.0.1:9/x', /not public/],
    ['a metadata address', 'https://169.254.169.254/latest/meta-data', /not public/],
    ['plain http', 'http://example.com/schema.json', /https/],
    ['a decimal loopback', 'https://2130706433/x', /not public/],
    ['a malformed URL', 'not a url', /malformed/],
    ['a missing document', 'FIXTURE/missing.json', /HTTP 404/],
    ['a document of the wrong type', 'FIXTURE/html', /content type text\/html/],
    ['a document that is not JSON', 'FIXTURE/garbage.json', /not JSON/],
  ])('refuses %s with 400 naming sourceUrl', async (_label, url, message) => {
    fixtures.set('/html', '<html></html>', 'text/html');
    fixtures.set('/garbage.json', '{not json');
    const res = await importing({
      alias: 'x',
      sourceUrl: url.replace('FIXTURE', fixtures.origin),
      sourceType: 'JSON_SCHEMA',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'sourceUrl' });
    expect(res.json().message).toMatch(message);
  });

  it('refuses a source type that makes no design of the collection, and an entityType of another collection', async () => {
    const wrongKind = await importing(
      {
        entityType: 'VERIFIER',
        alias: 'x',
        sourceUrl: `${fixtures.origin}/oca/student-card`,
        sourceType: 'OCA_BUNDLE',
      },
      '/api/v1/designs/verifiers',
    );
    expect(wrongKind.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'sourceType' });
    const mismatch = await importing({
      entityType: 'ISSUER',
      alias: 'x',
      sourceUrl: `${fixtures.origin}/oca/student-card`,
      sourceType: 'OCA_BUNDLE',
    });
    expect(mismatch.json()).toMatchObject({ code: 'ILLEGAL_ARGUMENT_ERROR', field: 'entityType' });
    const reader = await call(bed, 'POST', `${CREDENTIALS}/import`, bed.tokens.alphaReader, {
      entityType: 'CREDENTIAL',
      bindings: [],
      alias: 'x',
      sourceUrl: `${fixtures.origin}/oca/student-card`,
      sourceType: 'OCA_BUNDLE',
    });
    expect(reader.statusCode).toBe(403);
  });
});
