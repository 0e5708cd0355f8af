import type { Platform } from '@tessera/platform';

/**
 * Development defaults announce themselves loudly (issue 2 §2): one warn line each in the JSON log, and a
 * banner on stderr when started from the command line.
 */
export function announceDevelopmentDefaults(platform: Platform, banner: boolean): void {
  const defaults = platform.developmentDefaults;
  if (defaults.length === 0) return;
  for (const d of defaults) platform.logger.warn({ development_default: d }, 'DEVELOPMENT DEFAULT IN USE');
  if (!banner) return;
  const lines = [
    'DEVELOPMENT DEFAULTS IN USE (refused under NODE_ENV=production unless configured explicitly):',
    ...defaults.map((d) => `  - ${d}`),
  ];
  const width = Math.max(...lines.map((l) => l.length)) + 2;
  const bar = '!'.repeat(width + 2);
  process.stderr.write(`\n${bar}\n${lines.map((l) => `! ${l.padEnd(width - 1)}!`).join('\n')}\n${bar}\n\n`);
}
