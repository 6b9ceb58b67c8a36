// Read-only documents for a change's diff: the file as it is and as @agent proposes it, held while the person decides.
import * as vscode from 'vscode';

export const PROPOSED_SCHEME = 'compaction-agent-proposed';

/** The two sides of one diff; disposing forgets their text. */
export interface ProposedPair extends vscode.Disposable {
  current: vscode.Uri;
  proposed: vscode.Uri;
}

export class ProposedContent implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** Holds both texts under fresh URIs named after the file (its extension picks the language). */
  hold(fileName: string, current: string, proposed: string): ProposedPair {
    this.next += 1;
    const path = `/${this.next}/${fileName}`;
    const currentUri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path, query: 'current' });
    const proposedUri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path, query: 'proposed' });
    this.texts.set(currentUri.toString(), current);
    this.texts.set(proposedUri.toString(), proposed);
    return {
      current: currentUri,
      proposed: proposedUri,
      dispose: () => {
        this.texts.delete(currentUri.toString());
        this.texts.delete(proposedUri.toString());
      },
    };
  }

  dispose(): void {
    this.texts.clear();
  }
}
