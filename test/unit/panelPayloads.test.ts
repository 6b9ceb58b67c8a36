// The hostile payload list the browser tiers render: large enough, distinct, and covering each attack family.
import { describe, expect, it } from 'vitest';
import { XSS_FLAG, XSS_HOST, XSS_PAYLOADS } from '../support/xssPayloads';

describe('XSS_PAYLOADS', () => {
  it('holds at least 100 distinct payloads', () => {
    expect(XSS_PAYLOADS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(XSS_PAYLOADS).size).toBe(XSS_PAYLOADS.length);
  });

  it.each([
    ['script tags', /<script/i],
    ['event handlers', /onerror=/i],
    ['svg', /<svg/i],
    ['javascript: URLs', /javascript:/i],
    ['iframe srcdoc', /srcdoc=/i],
    ['CSS expressions', /expression\(/],
    ['CSS url()', /url\(/],
    ['entity tricks', /&#\d+;/],
    ['markdown javascript links', /\]\(javascript:/i],
    ['markdown images', /!\[[^\]]*\]\(/],
    ['data: URLs', /data:/],
  ])('covers %s', (_family, pattern) => {
    expect(XSS_PAYLOADS.some((payload) => pattern.test(payload))).toBe(true);
  });

  it('sends every network attempt to the reserved .invalid host and names the flag', () => {
    expect(XSS_HOST.endsWith('.invalid')).toBe(true);
    expect(XSS_PAYLOADS.some((payload) => payload.includes(XSS_FLAG))).toBe(true);
    const remote = XSS_PAYLOADS.flatMap((payload) => payload.match(/https?:\/\/[^/\s"')>]+/g) ?? []);
    expect(remote.every((url) => url.endsWith(XSS_HOST))).toBe(true);
  });
});
