// The panel's text: the translated strings the host put in the page (English for any it did not).

import { PANEL_STRINGS_ATTRIBUTE, parsePanelStrings } from '../src/shared/panelStrings';
import type { PanelStrings } from '../src/shared/panelStrings';

function pageStrings(): unknown {
  const raw = document.getElementById('app')?.getAttribute(PANEL_STRINGS_ATTRIBUTE);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

export const text: PanelStrings = parsePanelStrings(pageStrings());
