/**
 * Just enough DER (ITU-T X.690 §8, §10) to assemble a CMS SignedData from parts that are DER already (certificates,
 * names, algorithm identifiers) and to find the issuer and serial number inside a certificate. Building the CMS of
 * every signature through pkijs/asn1js object trees cost milliseconds per signature (issue 21 bench); the
 * structure itself is a handful of tag-length-value wrappers.
 */

/** A DER length: short form below 128, else 0x80 | number of bytes, then the bytes (X.690 §8.1.3). */
function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A tag-length-value with the concatenation of `parts` as its contents. */
export function tlv(tag: number, ...parts: readonly Buffer[]): Buffer {
  const length = parts.reduce((n, p) => n + p.length, 0);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(length), ...parts]);
}

export const TAG = {
  integer: 0x02,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  sequence: 0x30,
  set: 0x31,
  /** [n] constructed, context-specific. */
  context: (n: number) => 0xa0 | n,
} as const;

export const sequence = (...parts: readonly Buffer[]) => tlv(TAG.sequence, ...parts);
export const octetString = (value: Buffer) => tlv(TAG.octetString, value);
export const smallInteger = (value: number) => {
  if (!Number.isInteger(value) || value < 0 || value > 127) throw new Error(`not a small integer: ${value}`);
  return tlv(TAG.integer, Buffer.from([value]));
};

/** An OBJECT IDENTIFIER from its dotted form (X.690 §8.19). */
export function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  if (arcs.length < 2 || arcs.some((a) => !Number.isSafeInteger(a) || a < 0)) throw new Error(`bad OID ${dotted}`);
  const bytes: number[] = [];
  const push = (value: number) => {
    const chunk = [value & 0x7f];
    for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128))
      chunk.unshift(0x80 | (rest & 0x7f));
    bytes.push(...chunk);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) push(arc);
  return tlv(TAG.oid, Buffer.from(bytes));
}

/** A SET OF in DER order: elements sorted by their encodings (X.690 §11.6). */
export function derSetOf(elements: readonly Buffer[]): Buffer {
  return tlv(TAG.set, ...[...elements].sort(Buffer.compare));
}

export interface Element {
  tag: number;
  /** Where the element starts (its tag) and ends, and where its contents start. */
  start: number;
  contentStart: number;
  end: number;
}

/** The element at `offset` (single-byte tags, definite lengths: what DER allows for the structures read here). */
export function readElement(der: Buffer, offset: number): Element {
  const tag = der[offset];
  const first = der[offset + 1];
  if (tag === undefined || first === undefined || (tag & 0x1f) === 0x1f) throw new Error('unsupported DER element');
  let length = first;
  let contentStart = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[contentStart + i]!;
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > der.length) throw new Error('DER element runs past its buffer');
  return { tag, start: offset, contentStart, end };
}

/** The elements directly inside a constructed element. */
export function children(der: Buffer, parent: Element): Element[] {
  const out: Element[] = [];
  for (let at = parent.contentStart; at < parent.end;) {
    const child = readElement(der, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

export const bytesOf = (der: Buffer, element: Element): Buffer => der.subarray(element.start, element.end);

/**
 * The issuer Name and serialNumber INTEGER of an X.509 certificate, as encoded in it (RFC 5280 §4.1:
 * TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, ... }).
 */
export function issuerAndSerial(certificate: Buffer): { issuer: Buffer; serialNumber: Buffer } {
  const tbs = children(certificate, readElement(certificate, 0))[0];
  if (!tbs || tbs.tag !== TAG.sequence) throw new Error('not an X.509 certificate');
  const fields = children(certificate, tbs);
  const at = fields[0]?.tag === TAG.context(0) ? 1 : 0;
  const serial = fields[at];
  const issuer = fields[at + 2];
  if (serial?.tag !== TAG.integer || issuer?.tag !== TAG.sequence) throw new Error('not an X.509 certificate');
  return { issuer: bytesOf(certificate, issuer), serialNumber: bytesOf(certificate, serial) };
}
