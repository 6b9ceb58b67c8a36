// UI check: the workbench renders with the sample workspace open.
import { SELECTORS } from '../selectors.mjs';

export const workbenchLoads = {
  name: 'the workbench loads with the sample workspace',
  async run({ page, shot }) {
    await page.locator(SELECTORS.workbench).waitFor({ timeout: 60_000 });
    // The explorer lists the sample workspace's README once the folder is open.
    await page.getByRole('treeitem', { name: 'README.md' }).first().waitFor({ timeout: 30_000 }).catch(async () => {
      await page.keyboard.press('ControlOrMeta+Shift+E');
      await page.getByRole('treeitem', { name: 'README.md' }).first().waitFor({ timeout: 15_000 });
    });
    await shot('01-workbench');
  },
};
