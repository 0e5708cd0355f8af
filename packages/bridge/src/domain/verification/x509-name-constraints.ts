import { BlockList, isIP } from 'node:net';
import { AsnConvert } from '@peculiar/asn1-schema';
import type { GeneralName } from '@peculiar/asn1-x509';
import {
  NameConstraints,
  SubjectAlternativeName,
  id_ce_nameConstraints,
  id_ce_subjectAltName,
} from '@peculiar/asn1-x509';
import { x509 } from '../../crypto/certificates.js';

/**
 * Name constraints (RFC 5280 §4.2.1.10, §6.1.3 (b)(c)): the subject and every subjectAltName of each certificate
 * below a CA that carries nameConstraints must lie within one of its permitted subtrees of that name's form (when
 * the CA permits any of that form) and within none of its excluded subtrees. The extension is decoded with
 * @peculiar/asn1-x509; the subtree rules of each name form are those of §4.2.1.10. Forms whose rules RFC 5280
 * leaves to the application (otherName, x400Address, ediPartyName, registeredID) fail closed: a constrained form
 * that the subordinate uses cannot be decided, so the path is refused.
 */
type Form = 'dNSName' | 'rfc822Name' | 'uniformResourceIdentifier' | 'iPAddress' | 'directoryName' | 'other';

/** A name of a certificate in the form the subtree rules compare. */
interface FormName {
  form: Form;
  value: string | x509.JsonName;
}

const EMAIL_ADDRESS = '1.2.840.113549.1.9.1';

function formName(name: GeneralName): FormName {
  if (name.dNSName !== undefined) return { form: 'dNSName', value: name.dNSName };
  if (name.rfc822Name !== undefined) return { form: 'rfc822Name', value: name.rfc822Name };
  if (name.uniformResourceIdentifier !== undefined)
    return { form: 'uniformResourceIdentifier', value: name.uniformResourceIdentifier };
  if (name.iPAddress !== undefined) return { form: 'iPAddress', value: name.iPAddress };
  if (name.directoryName !== undefined)
    return { form: 'directoryName', value: new x509.Name(AsnConvert.serialize(name.directoryName)).toJSON() };
  return { form: 'other', value: '' };
}

/** The names a constraint applies to: the subject DN, its emailAddress attributes (§4.2.1.10), and the SANs. */
function namesOf(certificate: x509.X509Certificate): FormName[] {
  const names: FormName[] = [];
  const subject = certificate.subjectName.toJSON();
  if (subject.length > 0) names.push({ form: 'directoryName', value: subject });
  for (const rdn of subject)
    for (const value of rdn[EMAIL_ADDRESS] ?? rdn['E'] ?? []) names.push({ form: 'rfc822Name', value });
  const san = certificate.extensions.find((e) => e.type === id_ce_subjectAltName);
  if (san) names.push(...AsnConvert.parse(san.value, SubjectAlternativeName).map(formName));
  return names;
}

const lower = (s: string) => s.toLowerCase().replace(/\.$/, '');

/** dNSName: the base with zero or more labels added on the left; a leading dot asks for at least one. */
function dnsWithin(name: string, base: string): boolean {
  const [n, b] = [lower(name), lower(base)];
  if (b === '') return true;
  return b.startsWith('.') ? n.endsWith(b) : n === b || n.endsWith(`.${b}`);
}

/** rfc822Name: a mailbox, all mailboxes of a host, or (leading dot) of any host below a domain. */
function emailWithin(name: string, base: string): boolean {
  const at = name.lastIndexOf('@');
  if (at < 0) return false;
  const host = lower(name.slice(at + 1));
  const baseAt = base.lastIndexOf('@');
  if (baseAt >= 0) return name.slice(0, at) === base.slice(0, baseAt) && host === lower(base.slice(baseAt + 1));
  return base.startsWith('.') ? host.endsWith(lower(base)) : host === lower(base);
}

/** uniformResourceIdentifier: the host of the URI; a URI without a host is within no subtree. */
function uriWithin(name: string, base: string): boolean {
  let host: string;
  try {
    host = lower(new URL(name).hostname);
  } catch {
    return false;
  }
  if (host === '') return false;
  return base.startsWith('.') ? host.endsWith(lower(base)) : host === lower(base);
}

/** iPAddress: the address within the base's address and mask (decoded as `address/prefix`), same family. */
function ipWithin(name: string, base: string): boolean {
  const [address, prefix] = base.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || prefix === undefined || isIP(name) !== family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const block = new BlockList();
  block.addSubnet(address!, Number(prefix), type);
  return block.check(name, type);
}

/** directoryName: the base's RDNs begin the name's, attribute values compared without case and extra spaces. */
function dnWithin(name: x509.JsonName, base: x509.JsonName): boolean {
  const canonical = (rdn: Record<string, string[]>) =>
    JSON.stringify(
      Object.entries(rdn)
        .map(([type, values]) => [type, values.map((v) => v.trim().replace(/\s+/g, ' ').toLowerCase()).sort()])
        .sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  return base.length <= name.length && base.every((rdn, i) => canonical(rdn) === canonical(name[i]!));
}

function within(name: FormName, base: FormName): boolean {
  const [n, b] = [name.value, base.value];
  switch (name.form) {
    case 'dNSName':
      return dnsWithin(n as string, b as string);
    case 'rfc822Name':
      return emailWithin(n as string, b as string);
    case 'uniformResourceIdentifier':
      return uriWithin(n as string, b as string);
    case 'iPAddress':
      return ipWithin(n as string, b as string);
    case 'directoryName':
      return dnWithin(n as x509.JsonName, b as x509.JsonName);
    default:
      return false;
  }
}

function violation(names: FormName[], constraints: NameConstraints): string | null {
  const permitted = (constraints.permittedSubtrees ?? []).map((s) => formName(s.base));
  const excluded = (constraints.excludedSubtrees ?? []).map((s) => formName(s.base));
  for (const name of names) {
    const sameForm = (base: FormName) => base.form === name.form;
    if (name.form === 'other' && [...permitted, ...excluded].some(sameForm))
      return 'a name of a form that cannot be checked against them';
    const allowed = permitted.filter(sameForm);
    if (allowed.length > 0 && !allowed.some((base) => within(name, base))) return 'a name outside the permitted ones';
    if (excluded.filter(sameForm).some((base) => within(name, base))) return 'an excluded name';
  }
  return null;
}

/** The first violation on a path ordered leaf first, as a reason; null when every constraint holds. */
export function nameConstraintViolation(path: readonly x509.X509Certificate[]): string | null {
  for (let k = 1; k < path.length; k++) {
    const extension = path[k]!.extensions.find((e) => e.type === id_ce_nameConstraints);
    if (!extension) continue;
    let constraints: NameConstraints;
    try {
      constraints = AsnConvert.parse(extension.value, NameConstraints);
    } catch {
      return `the name constraints of certificate ${k} cannot be read`;
    }
    for (let j = 0; j < k; j++) {
      const subordinate = path[j]!;
      // §6.1.3 (b): self-issued intermediates are exempt; the leaf never is.
      if (j > 0 && subordinate.subject === subordinate.issuer) continue;
      let names: FormName[];
      try {
        names = namesOf(subordinate);
      } catch {
        return `the names of certificate ${j} cannot be read`;
      }
      const found = violation(names, constraints);
      if (found) return `certificate ${j} has ${found} by the name constraints of certificate ${k}`;
    }
  }
  return null;
}
