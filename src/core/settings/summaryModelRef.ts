// The compaction.summaryModel setting: an endpoint model id, or "vscode:<vendor>/<id>" for a model VS Code offers.

/** The prefix that names a VS Code model (e.g. vscode:copilot/gpt-4o-mini); endpoint ids may contain "/" themselves. */
export const VSCODE_MODEL_PREFIX = 'vscode:';

/** A "vscode:<vendor>/<id>" setting as vendor and id; undefined for an endpoint model id or a malformed value. */
export function vscodeModelRef(setting: string): { vendor: string; id: string } | undefined {
  if (!setting.startsWith(VSCODE_MODEL_PREFIX)) return undefined;
  const rest = setting.slice(VSCODE_MODEL_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { vendor: rest.slice(0, slash), id: rest.slice(slash + 1) };
}
