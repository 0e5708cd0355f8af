import { spawnServer, runHttpLoad } from './lib/http.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const names = (process.env.PAIR ?? 'bare-route,platform-public-route').split(',');
const servers = [];
for (const n of names)
  servers.push(await spawnServer(n, { env: { BENCH_DATA_DIR: await mkdtemp(join(tmpdir(), 'pair-')) } }));
for (const s of servers)
  await runHttpLoad({ url: s.url + '/bench', connections: 50, durationSeconds: 2, serverPid: s.pid });
const rounds = Number(process.env.ROUNDS ?? 10);
const sec = Number(process.env.SEC ?? 1);
const rows: number[][] = [];
for (let r = 0; r < rounds; r++) {
  const row = [];
  for (const s of servers)
    row.push(
      (await runHttpLoad({ url: s.url + '/bench', connections: 50, durationSeconds: sec, serverPid: s.pid }))
        .cpuUsPerOp!,
    );
  rows.push(row);
  console.log(row.map((x) => x.toFixed(1)).join('\t'), '\tratio', (row[0]! / row[1]!).toFixed(3));
}
const med = (a: number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
console.log(
  'median ratio',
  med(rows.map((r) => r[0]! / r[1]!)).toFixed(3),
  'ratio of medians',
  (med(rows.map((r) => r[0]!)) / med(rows.map((r) => r[1]!))).toFixed(3),
);
for (const s of servers) await s.stop();
