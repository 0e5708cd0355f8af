import QRCode from 'qrcode';

export interface QrCodeOptions {
  size?: number | undefined;
  margin?: number | undefined;
  errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' | undefined;
  colorDark?: string | undefined;
  colorLight?: string | undefined;
}

/** The offer link as a PNG data URI (001 §2.3 `qrCodeOpts`; the image in the response is our extension). */
export function qrCodeDataUri(uri: string, options: QrCodeOptions): Promise<string> {
  return QRCode.toDataURL(uri, {
    type: 'image/png',
    width: options.size ?? 256,
    margin: options.margin ?? 4,
    errorCorrectionLevel: options.errorCorrectionLevel ?? 'M',
    color: { dark: options.colorDark ?? '#000000ff', light: options.colorLight ?? '#ffffffff' },
  });
}
