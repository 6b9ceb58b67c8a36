// The panel's HTML shell: strict CSP with a nonce, no remote resources, attribute values escaped.
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, createNonce, panelHtml } from '../../src/vscode/panelHtml';

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
