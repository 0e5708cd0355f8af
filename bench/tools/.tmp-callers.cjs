const p = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const target = process.argv[3] || 'writev';
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const self = new Map();
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) || 0) + (p.timeDeltas[i] || 0));
const agg = new Map();
let total = 0;
for (const n of p.nodes) {
  if (n.callFrame.functionName !== target) continue;
  const t = self.get(n.id) || 0;
  total += t;
  const chain = [];
  let cur = parent.get(n.id);
  for (let k = 0; k < 25 && cur; k++) {
    const f = byId.get(cur).callFrame;
    if (!f.url.startsWith('node:')) chain.push(f.functionName + '@' + f.url.split('/').slice(-2).join('/'));
    cur = parent.get(cur);
  }
  const key = chain.slice(0, 3).join(' < ');
  agg.set(key, (agg.get(key) || 0) + t);
}
console.log('total', (total / 1000).toFixed(0), 'ms');
for (const [k, v] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log((v / 1000).toFixed(0) + 'ms', k);
