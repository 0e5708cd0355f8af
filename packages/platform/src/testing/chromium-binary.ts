import { access, constants } from 'node:fs/promises';

/**
 * Which Chromium the browser tests drive (issue 14 §10): `CHROMIUM_PATH` when set, else the machine's own (Debian's
 * /usr/bin/chromium, as CI installs it), else the build that the `@sparticuz/chromium` devDependency carries, so that
 * `npm install && npm test` brings a browser on a machine that has none. That build is unpacked to the temporary
 * directory on first use and wants its own flags (headless shell, no sandbox).
 */
export interface ChromiumBinary {
  executablePath: string;
  args: string[];
  source: 'environment' | 'system' | 'package';
}

export const SYSTEM_CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function findChromium(
  args: readonly string[],
  where: { env?: Record<string, string | undefined>; systemPaths?: readonly string[] } = {},
): Promise<ChromiumBinary> {
  const configured = (where.env ?? process.env).CHROMIUM_PATH;
  if (configured) return { executablePath: configured, args: [...args], source: 'environment' };
  for (const path of where.systemPaths ?? SYSTEM_CHROMIUM_PATHS)
    if (await isExecutable(path)) return { executablePath: path, args: [...args], source: 'system' };
  const { default: packaged } = await import('@sparticuz/chromium');
  return {
    executablePath: await packaged.executablePath(),
    // Its own flags first (its headless mode among them), then ours without a second headless flag.
    args: [...packaged.args, ...args.filter((arg) => !arg.startsWith('--headless'))],
    source: 'package',
  };
}
