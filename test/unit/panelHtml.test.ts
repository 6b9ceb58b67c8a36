// The panel's HTML shell: strict CSP with a nonce, no remote resources, attribute values escaped.
import { describe, expect, it } from 'vitest';
import { fill, PANEL_STRINGS, PANEL_STRINGS_ATTRIBUTE, parsePanelStrings } from '../../src/shared/panelStrings';
import { contentSecurityPolicy, createNonce, panelHtml } from '../../src/vscode/panel/panelHtml';

const inputs = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/media/panel.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/media/panel.css',
  codiconUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/media/codicon.css',
};

describe('panelHtml', () => {
  it('sets a CSP that allows only nonce scripts and local resources', () => {
    const csp = contentSecurityPolicy(inputs.cspSource, 'abc');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'nonce-abc'");
    expect(csp).toContain(`style-src ${inputs.cspSource} 'nonce-abc'`);
    expect(csp).toContain(`font-src ${inputs.cspSource}`);
    expect(csp).toContain(`img-src ${inputs.cspSource} data:`);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });

  it('puts the nonce on every script and stylesheet and loads nothing else', () => {
    const html = panelHtml({ ...inputs, nonce: 'n0nce' });
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toContain('nonce="n0nce"');
    expect((html.match(/<link[^>]*>/g) ?? []).every((tag) => tag.includes('nonce="n0nce"'))).toBe(true);
    const urls = html.match(/(?:src|href)="([^"]*)"/g) ?? [];
    expect(urls.every((attribute) => attribute.includes(inputs.cspSource))).toBe(true);
  });

  it('escapes quotes in resource URIs', () => {
    const html = panelHtml({ ...inputs, scriptUri: 'x" onload="alert(1)', nonce: 'n' });
    expect(html).not.toContain('" onload="');
  });

  it('makes a fresh alphanumeric nonce each time', () => {
    const first = createNonce();
    expect(first).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(createNonce()).not.toBe(first);
  });
});

/** The attribute value as a browser decodes it (the entities escapeAttribute writes). */
function pageStrings(html: string): unknown {
  const raw = new RegExp(`${PANEL_STRINGS_ATTRIBUTE}="([^"]*)"`).exec(html)?.[1];
  if (raw === undefined) return undefined;
  return JSON.parse(raw.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as unknown;
}

describe('the panel\'s translated text', () => {
  it('reaches the webview through the page: translated strings, escaped, and the title and label of the page', () => {
    const strings = { ...PANEL_STRINGS, pageTitle: 'Kontext & <Kompaktierung>', compactNow: 'Jetzt "kompaktieren"', tokens: '{0} Token' };
    const html = panelHtml({ ...inputs, nonce: 'n', strings });
    expect(html).toContain('<title>Kontext &amp; &lt;Kompaktierung&gt;</title>');
    expect(html).not.toContain('Jetzt "kompaktieren"');
    const parsed = parsePanelStrings(pageStrings(html));
    expect(parsed.compactNow).toBe('Jetzt "kompaktieren"');
    expect(fill(parsed.tokens, '1.2k')).toBe('1.2k Token');
  });

  it('shows English without translations, and for an entry that is missing, empty or loses a placeholder', () => {
    expect(pageStrings(panelHtml({ ...inputs, nonce: 'n' }))).toEqual(PANEL_STRINGS);
    const parsed = parsePanelStrings({ apply: '', tokens: 'Token', cancel: 42, compactNow: 'Kompaktieren' });
    expect(parsed.apply).toBe('Apply');
    expect(parsed.tokens).toBe('{0} tokens');
    expect(parsed.cancel).toBe('Cancel');
    expect(parsed.compactNow).toBe('Kompaktieren');
    expect(parsePanelStrings('garbage')).toEqual(PANEL_STRINGS);
  });

  it('fills placeholders in any order and leaves one without a value', () => {
    expect(fill('{1} of {0}', 'a', 'b')).toBe('b of a');
    expect(fill('{0} and {2}', 'x')).toBe('x and {2}');
  });
});
