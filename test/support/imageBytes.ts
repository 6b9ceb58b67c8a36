// Small real pictures in each sendable format, built byte by byte, and hostile look-alikes (other formats, cut-off files).

/** A real 3×2 PNG. */
export const PNG_3X2 = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAC0lEQVR4nGNgwAQAABQAAX3+Hu4AAAAASUVORK5CYII=', 'base64');

/** A 1×1 lossless WebP. */
export const WEBP_1X1 = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

/** The classic 1×1 GIF: screen descriptor, two-colour palette, one frame, trailer. */
export const GIF_1X1 = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A baseline JPEG skeleton of `width`×`height`: SOI, APP0, SOF0, SOS, a little data, EOI. */
export function jpegBytes(width: number, height: number): Buffer {
  const app0 = [0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00];
  const sof0 = [0xff, 0xc0, 0x00, 0x0b, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x01, 0x01, 0x11, 0x00];
  const sos = [0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof0, ...sos, 0x12, 0x34, 0x56, 0xff, 0x00, 0x78, 0xff, 0xd9]);
}

/** What must be refused, each with a word its reason must contain. */
export const HOSTILE_IMAGES: ReadonlyArray<{ name: string; bytes: Buffer; reason: RegExp }> = [
  { name: 'drawing.png', bytes: Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="9" height="9"/></svg>'), reason: /SVG/ },
  { name: 'plain.svg', bytes: Buffer.from('<svg width="10" height="10"></svg>'), reason: /SVG/ },
  { name: 'bitmap.png', bytes: Buffer.concat([Buffer.from('BM'), Buffer.alloc(60, 1)]), reason: /BMP/ },
  { name: 'icon.png', bytes: Buffer.concat([Buffer.from([0, 0, 1, 0, 1, 0, 16, 16]), Buffer.alloc(60, 2)]), reason: /ICO/ },
  { name: 'layers.png', bytes: Buffer.concat([Buffer.from('8BPS'), Buffer.alloc(60, 0)]), reason: /PSD/ },
  { name: 'cut.png', bytes: PNG_3X2.subarray(0, 33), reason: /cut off/ },
  { name: 'cut-data.png', bytes: PNG_3X2.subarray(0, 50), reason: /cut off/ },
  { name: 'no-data.png', bytes: Buffer.concat([PNG_3X2.subarray(0, 33), PNG_3X2.subarray(PNG_3X2.length - 12)]), reason: /no image data/ },
  { name: 'zero.png', bytes: Buffer.concat([PNG_3X2.subarray(0, 16), Buffer.alloc(8, 0), PNG_3X2.subarray(24)]), reason: /empty size/ },
  { name: 'huge.png', bytes: Buffer.concat([PNG_3X2.subarray(0, 16), Buffer.from([0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff]), PNG_3X2.subarray(24)]), reason: /more than/ },
  { name: 'cut.jpg', bytes: jpegBytes(5, 4).subarray(0, 30), reason: /JPEG/ },
  { name: 'noend.jpg', bytes: jpegBytes(5, 4).subarray(0, jpegBytes(5, 4).length - 2), reason: /cut off before its end/ },
  { name: 'cut.gif', bytes: GIF_1X1.subarray(0, 30), reason: /GIF/ },
  { name: 'cut.webp', bytes: WEBP_1X1.subarray(0, 24), reason: /WebP/ },
  { name: 'text.png', bytes: Buffer.from('just some text pretending to be a picture'), reason: /not a PNG, JPEG, GIF or WebP/ },
  { name: 'empty.png', bytes: Buffer.alloc(0), reason: /empty/ },
  { name: 'page.png', bytes: Buffer.from('<!DOCTYPE html><html><body>login</body></html>'), reason: /HTML/ },
  { name: 'photo.heic', bytes: Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(40)]), reason: /HEIC/ },
];
