// Owns the "Context budget" status bar item: percent used, breakdown and session-cost tooltip, the warning/error level in icon, words and colour.

import * as vscode from 'vscode';
import {
  budgetAccessibilityLabel,
  budgetLevel,
  budgetStatusText,
  budgetTooltipMarkdown,
} from '../../shared/budgetFormat';
import type { BudgetThresholds } from '../../shared/budgetFormat';
import type { BudgetView, UsageFigures } from '../../shared/panelViewModels';
import { usageTooltipMarkdown } from '../../shared/usageFormat';

export const STATUS_BAR_ITEM_ID = 'compactionAgent.budget';
export const SHOW_BUDGET_COMMAND = 'compactionAgent.showBudget';
export const ASK_AGENT_COMMAND = 'compactionAgent.askAgent';

const LEVEL_BACKGROUNDS = {
  normal: undefined,
  warning: new vscode.ThemeColor('statusBarItem.warningBackground'),
  error: new vscode.ThemeColor('statusBarItem.errorBackground'),
} as const;

export class StatusBarController implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private isShown = false;

  /** `priority` orders the item among other right-aligned items (higher = further left). */
  constructor(priority = 100) {
    this.item = vscode.window.createStatusBarItem(STATUS_BAR_ITEM_ID, vscode.StatusBarAlignment.Right, priority);
    this.item.name = vscode.l10n.t('Context budget');
    this.item.command = SHOW_BUDGET_COMMAND;
  }

  /** What the item shows now (read-only; for tests and the UI tier). */
  get text(): string {
    return this.item.text;
  }

  /** Whether update() last showed a session's budget (without a session the item says there is none yet). */
  get shown(): boolean {
    return this.isShown;
  }

  /** Before the first @agent request: the item is there from the start, says so, and opens a chat addressed to @agent. */
  showNoSession(): void {
    this.item.text = `$(pie-chart) ${vscode.l10n.t('@agent: no session yet')}`;
    const tooltip = new vscode.MarkdownString(vscode.l10n.t('**Context budget**: no @agent session yet. Click to open a chat addressed to `@agent`; after its first request this item shows how full the context is.'));
    tooltip.isTrusted = false;
    this.item.tooltip = tooltip;
    this.item.command = ASK_AGENT_COMMAND;
    this.item.backgroundColor = undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('Context budget: no @agent session yet. Opens a chat addressed to @agent.'), role: 'button' };
    this.item.show();
    this.isShown = false;
  }

  /** A session is current but not measured yet (its tokenizer is loading): the item names it instead of saying there is none. */
  showCounting(title: string): void {
    this.item.text = `$(pie-chart) ${vscode.l10n.t('@agent: counting…')}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendText(vscode.l10n.t('Context budget: counting the tokens of the session "{0}"…', title));
    tooltip.isTrusted = false;
    this.item.tooltip = tooltip;
    this.item.command = SHOW_BUDGET_COMMAND;
    this.item.backgroundColor = undefined;
    this.item.accessibilityInformation = { label: vscode.l10n.t('Context budget: counting the tokens of the session "{0}".', title), role: 'button' };
    this.item.show();
    this.isShown = true;
  }

  /**
   * Shows the budget of the active session (and its tokens and cost in the tooltip); without a session it says
   * there is none yet, and with one not measured yet that it is counting (`session` names it).
   */
  update(budget: BudgetView | undefined, thresholds: BudgetThresholds, usage?: UsageFigures, session?: { title: string }): void {
    if (!budget) {
      if (session) this.showCounting(session.title);
      else this.showNoSession();
      return;
    }
    this.item.command = SHOW_BUDGET_COMMAND;
    // The colour alone says nothing in High Contrast (no warning background there) nor to a screen reader: the
    // level is also the icon, a line of the tooltip and the first words of the accessible name.
    const level = budgetLevel(budget.percent, thresholds, budget.windowKnown);
    this.item.text = budgetStatusText(budget, level);
    const tooltip = new vscode.MarkdownString(budgetTooltipMarkdown(budget, new Date(), level, thresholds) + (usage ? usageTooltipMarkdown(usage) : ''), true);
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = LEVEL_BACKGROUNDS[level];
    this.item.accessibilityInformation = { label: budgetAccessibilityLabel(budget, level, thresholds), role: 'button' };
    this.item.show();
    this.isShown = true;
  }

  dispose(): void {
    this.item.dispose();
  }
}
