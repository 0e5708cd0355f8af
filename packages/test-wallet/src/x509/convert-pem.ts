/** PEM armour of a DER certificate (RFC 7468 §5). */
export function derToPem(der: Uint8Array): string {
  const body = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

/** Every certificate in a PEM text, as DER. */
export function pemToDers(pem: string): Buffer[] {
  const matches = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return matches.map((block) => Buffer.from(block.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ''), 'base64'));
}

/** The base64 (not base64url) DER value used in an `x5c` header (RFC 7515 §4.1.6). */
export function pemToX5cEntry(pem: string): string {
  const [der] = pemToDers(pem);
  if (!der) throw new Error('no certificate in PEM');
  return der.toString('base64');
}
