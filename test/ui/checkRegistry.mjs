// The UI checks, in the order they run against one workbench; add a check by adding a file in checks/ and a line here.
import { workbenchLoads } from './checks/workbenchLoads.mjs';
import { participantListed } from './checks/participantListed.mjs';
import { budgetStatusItem } from './checks/budgetStatusItem.mjs';
import { budgetPanelOpens } from './checks/budgetPanelOpens.mjs';

/** Each check: { name, run({ page, shot, theme, dirs, server }) } and throws on failure. */
export const CHECKS = [workbenchLoads, participantListed, budgetStatusItem, budgetPanelOpens];
