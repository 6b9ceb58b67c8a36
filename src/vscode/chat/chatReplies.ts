// Keeps the text of the latest @agent replies (markdown, progress lines, buttons) so tests and other extensions can read what the chat showed.
import type * as vscode from 'vscode';

/** What one @agent reply showed in the Chat view. */
export interface ChatReply {
  prompt: string;
  command: string | undefined;
  /** Every markdown part, concatenated. */
  text: string;
  progress: string[];
  buttons: string[];
  /** The commands behind the buttons, with their arguments (what a click runs). */
  commands: vscode.Command[];
  /** True once the participant's handler has returned (the chat may report a pending confirmation earlier). */
  done: boolean;
  /** What the handler returned, once done. */
  result?: vscode.ChatResult;
}

/** Only the newest replies are kept: this is a window onto the chat, not a second transcript. */
const KEPT = 20;

export class ChatReplies {
  private readonly recent: ChatReply[] = [];

  get last(): ChatReply | undefined {
    return this.recent.at(-1);
  }

  get all(): readonly ChatReply[] {
    return this.recent;
  }

  /** A stream that shows everything on `stream` and records its text, and the reply it records into. */
  record(request: vscode.ChatRequest, stream: vscode.ChatResponseStream): { stream: vscode.ChatResponseStream; reply: ChatReply } {
    const reply: ChatReply = { prompt: request.prompt, command: request.command, text: '', progress: [], buttons: [], commands: [], done: false };
    this.recent.push(reply);
    if (this.recent.length > KEPT) this.recent.shift();
    // The host's stream is a frozen object: derive from it and define the recording methods as own properties.
    const recording: Partial<vscode.ChatResponseStream> = {
      markdown: (value) => {
        // appendText writes spaces as &nbsp;: recorded as spaces, so the text reads as the chat shows it.
        reply.text += typeof value === 'string' ? value : value.value.replace(/&nbsp;/g, ' ');
        stream.markdown(value);
      },
      progress: (value) => {
        reply.progress.push(value);
        stream.progress(value);
      },
      button: (command) => {
        reply.buttons.push(command.title);
        reply.commands.push(command);
        stream.button(command);
      },
    };
    return { stream: Object.create(stream, Object.getOwnPropertyDescriptors(recording)) as vscode.ChatResponseStream, reply };
  }
}
