// The UI checks, in the order they run against one workbench; `needs` names the checks whose session state a check builds on.
import { workbenchLoads } from './checks/workbenchLoads.mjs';
import { participantListed } from './checks/participantListed.mjs';
import { setupFlow } from './checks/setupFlow.mjs';
import { modelPicker } from './checks/modelPicker.mjs';
import { chatStreams } from './checks/chatStreams.mjs';
import { budgetPanelOpens } from './checks/budgetPanelOpens.mjs';
import { compactReview } from './checks/compactReview.mjs';
import { restoreBranch } from './checks/restoreBranch.mjs';
import { panelRestore } from './checks/panelRestore.mjs';
import { checkpointRestore } from './checks/checkpointRestore.mjs';
import { reasoningCollapsed } from './checks/reasoningCollapsed.mjs';
import { delegatedSubtask } from './checks/delegatedSubtask.mjs';
import { diffConfirmation } from './checks/diffConfirmation.mjs';
import { costLine } from './checks/costLine.mjs';
import { fileAttachment } from './checks/fileAttachment.mjs';
import { settingsUiChangesBehaviour } from './checks/settingsUiChangesBehaviour.mjs';
import { hostileContent } from './checks/hostileContent.mjs';
import { panelDrop } from './checks/panelDrop.mjs';
import { panelHandoff } from './checks/panelHandoff.mjs';
import { demoScenario } from './checks/demoScenario.mjs';
import { firstView } from './checks/firstView.mjs';
import { restoredBranchQuestion } from './checks/restoredBranchQuestion.mjs';
import { sessionFollows } from './checks/sessionFollows.mjs';
import { budgetStateWithoutColor } from './checks/budgetStateWithoutColor.mjs';
import { panelAxe } from './checks/panelAxe.mjs';
import { focusFollowsReview } from './checks/focusFollowsReview.mjs';
import { regenerateAsks } from './checks/regenerateAsks.mjs';
import { secondWindow } from './checks/secondWindow.mjs';
import { THEMES } from './selectors.mjs';

/**
 * Each check: { name, run({ page, shot, theme, dirs, server, endpoint }), needs?, themes? } and throws on failure; `themes`
 * names the workbenches it runs in (default light and dark). Every check runs
 * after a failure (runUi.mjs reloads the window first) except those whose `needs` failed.
 */
export const CHECKS = [
  { ...workbenchLoads, themes: Object.keys(THEMES) },
  firstView,
  participantListed,
  setupFlow,
  modelPicker,
  chatStreams,
  { ...budgetPanelOpens, needs: [chatStreams] },
  { ...compactReview, needs: [chatStreams] },
  { ...restoreBranch, needs: [compactReview] },
  { ...panelRestore, needs: [compactReview] },
  checkpointRestore,
  reasoningCollapsed,
  delegatedSubtask,
  diffConfirmation,
  costLine,
  fileAttachment,
  settingsUiChangesBehaviour,
  hostileContent,
  panelDrop,
  panelHandoff,
  // Issue 41, last: each starts a session of its own. These two also run in both High Contrast themes.
  budgetStateWithoutColor,
  panelAxe,
  focusFollowsReview,
  regenerateAsks,
  // Opens a second page on the folder and reloads both: last, and in one theme.
  secondWindow,
];

/** Run in a workbench of their own, set up as `npm start` sets up the demo: default settings and the demo endpoint. */
export const DEMO_CHECKS = [workbenchLoads, demoScenario, { ...restoredBranchQuestion, needs: [demoScenario] }, { ...sessionFollows, needs: [demoScenario] }];
