import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';

// jsqr is CommonJS with `exports.default`: under NodeNext the default import is the module object.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => { data: string } | null;

function decodePng(png: Buffer): string | null {
  const image = PNG.sync.read(png);
  return jsQR(Uint8ClampedArray.from(image.data), image.width, image.height)?.data ?? null;
}

/** The text of the QR code as the person sees it: a screenshot of the rendered <img>, decoded. */
export async function readQrFromPage(page: Page, selector = '#qr'): Promise<string | null> {
  return decodePng(await page.locator(selector).screenshot());
}

/** The text of a QR code given as a `data:image/png;base64,` URI (the bridge's qrCodeDataUri). */
export function readQrFromDataUri(dataUri: string): string | null {
  const prefix = 'data:image/png;base64,';
  if (!dataUri.startsWith(prefix)) return null;
  return decodePng(Buffer.from(dataUri.slice(prefix.length), 'base64'));
}
