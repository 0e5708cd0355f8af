/* global console, process, Buffer */
// The least CPU of one envelope seal as the platform's sealed columns make it (packages/issuance/README.md, Bench):
// a fresh 256-bit data key per value, the value encrypted with AES-256-GCM under it, the data key wrapped with
// AES-256-GCM under the key-encryption key, each with its own IV and the row's additional authenticated data.
// node:crypto only (no key manager, no envelope encoding), on one core, after a warm-up.
//   node bench/tools/envelope-seal-cost.mjs
import { createCipheriv, randomBytes } from 'node:crypto';

const kek = randomBytes(32);
function gcm(key, data, aad) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const out = Buffer.concat([cipher.update(data), cipher.final()]);
  return Buffer.concat([iv, out, cipher.getAuthTag()]);
}
function seal(value, aad) {
  const dataKey = randomBytes(32);
  return [gcm(kek, dataKey, aad), gcm(dataKey, Buffer.from(JSON.stringify(value)), aad)];
}

const aad = Buffer.from(
  JSON.stringify(['issuance_session_attributes', 'demo', randomBytes(16).toString('hex'), 'value']),
);
for (let i = 0; i < 20_000; i++) seal('value 1', aad);
const n = 50_000;
const before = process.cpuUsage();
for (let i = 0; i < n; i++) seal(`value ${i % 10}`, aad);
const used = process.cpuUsage(before);
const us = (used.user + used.system) / n;
console.log(JSON.stringify({ usPerSeal: +us.toFixed(2), usPerTenSeals: +(us * 10).toFixed(1) }));
