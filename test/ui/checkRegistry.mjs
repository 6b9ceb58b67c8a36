// The UI checks, in the order they run against one workbench (each builds on the session the previous ones left).
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

/** Each check: { name, run({ page, shot, theme, dirs, server, endpoint }) } and throws on failure. */
export const CHECKS = [
  workbenchLoads,
  participantListed,
  setupFlow,
  modelPicker,
  chatStreams,
  budgetPanelOpens,
  compactReview,
  restoreBranch,
  panelRestore,
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
];
