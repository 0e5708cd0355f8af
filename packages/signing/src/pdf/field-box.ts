import type { PDFPage } from 'pdf-lib';
import { badRequest } from '../domain/errors.js';
import { parseFloatString, type WireVisualParameters } from '../domain/pades-parameters.js';

/** A widget rectangle in the page's default user space (points, origin bottom-left of the media box). */
export interface FieldBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

const DEFAULT_WIDTH = 200;
const DEFAULT_HEIGHT = 60;

/**
 * The field's rectangle from fieldParameters (002 §2.1: originX, originY, width, height as "100f" strings), or null
 * for an invisible signature (no visual parameters). As in the ETSI/EU signature-image parameters this API follows,
 * originX/originY place the field's top-left corner measured from the page's top-left corner, in points. A field
 * reaching outside the page is refused.
 */
export function fieldBoxOf(page: PDFPage, visual: WireVisualParameters | undefined): FieldBox | null {
  if (!visual || (visual.image === undefined && visual.textParameters?.text === undefined)) return null;
  const field = visual.fieldParameters ?? {};
  const width = parseFloatString(field.width, 'width', DEFAULT_WIDTH);
  const height = parseFloatString(field.height, 'height', DEFAULT_HEIGHT);
  const originX = parseFloatString(field.originX, 'originX', 0);
  const originY = parseFloatString(field.originY, 'originY', 0);
  if (width <= 0 || height <= 0) throw badRequest('The signature field needs a positive width and height.', 'width');
  const media = page.getMediaBox();
  if (originX < 0 || originY < 0 || originX + width > media.width || originY + height > media.height)
    throw badRequest(
      `The signature field (${originX}, ${originY}, ${width} × ${height}) lies outside the page (${media.width} × ${media.height} points).`,
      'fieldParameters',
    );
  return { x: media.x + originX, y: media.y + media.height - originY - height, width, height };
}
