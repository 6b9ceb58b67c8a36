// UI check: XSS payloads in a model reply and a tool output render as text in the chat and the panel: no script, dialog or fetch.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../harness/codeServer.mjs';
import { TEXT } from '../selectors.mjs';
import { sendChat } from '../chat.mjs';
import { openPanelFromStatusItem } from '../webview.mjs';

/** XSS_FLAG and XSS_HOST, read from test/support/xssPayloads.ts so this plain-JS check cannot drift from the payloads. */
function payloadConstants() {
  const source = fs.readFileSync(path.join(ROOT, 'test/support/xssPayloads.ts'), 'utf8');
  const constant = (name) => {
    const value = new RegExp(`export const ${name} = '([^']+)'`).exec(source)?.[1];
    if (!value) throw new Error(`test/support/xssPayloads.ts no longer exports ${name} as a string literal`);
    return value;
  };
  return { flag: constant('XSS_FLAG'), host: constant('XSS_HOST') };
}

/** Frames (workbench, webviews, any nested ones) where the flag was set. */
async function framesWithFlag(page, flag) {
  const hits = [];
  for (const frame of page.frames()) {
    const value = await frame.evaluate((name) => window[name], flag).catch(() => undefined);
    // A DOM-clobbering payload would make it an element; only a value a script set counts as fired.
    if (value !== undefined && value !== null && !(typeof value === 'object')) hits.push(frame.url() || frame.name());
  }
  return hits;
}

export const hostileContent = {
  name: 'hostile reply and tool output render as text in chat and panel (no XSS)',
  async run({ page, shot }) {
    const { flag, host } = payloadConstants();
    const dialogs = [];
    const remote = [];
    const onDialog = (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => undefined);
    };
    const onRequest = (request) => {
      if (request.url().includes(host)) remote.push(request.url());
    };
    page.on('dialog', onDialog);
    page.context().on('request', onRequest);
    try {
      const reply = await sendChat(page, `${TEXT.participant} show me the ${'hostile'} sample file`, { until: /End of hostile reply/, timeoutMs: 90_000 });
      // Rendered as text: the markup of the payloads is visible to the reader, not interpreted.
      if (!/onerror=/.test(reply.text) || !/<script>|&lt;script&gt;/.test(reply.text)) {
        throw new Error(`the hostile reply does not show the payload markup as text: "${reply.text.slice(0, 300)}"`);
      }
      await shot('11-hostile-chat');
      const frame = await openPanelFromStatusItem(page);
      const panelText = await frame.locator('body').innerText();
      if (!/hostile/i.test(panelText)) throw new Error('the panel does not list the hostile turn');
      await page.waitForTimeout(1500); // give any delayed payload (onload, animations, timers) time to fire
      await shot('12-hostile-panel');
      const fired = await framesWithFlag(page, flag);
      const problems = [
        ...(fired.length > 0 ? [`${flag} set in ${fired.join(', ')}`] : []),
        ...(dialogs.length > 0 ? [`dialogs opened: ${dialogs.join('; ')}`] : []),
        ...(remote.length > 0 ? [`requests to ${host}: ${remote.slice(0, 3).join(', ')}`] : []),
      ];
      if (problems.length > 0) throw new Error(problems.join(' | '));
    } finally {
      page.off('dialog', onDialog);
      page.context().off('request', onRequest);
    }
  },
};
