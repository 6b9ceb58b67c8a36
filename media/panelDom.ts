// Tiny DOM builders for the webview: text always goes in as text nodes, never as HTML.

export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes set with setAttribute; callers never pass untrusted names or URL attributes here. */
  attrs?: Record<string, string>;
  /** Stable key used to restore focus after a re-render. */
  key?: string;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  if (props.key) element.dataset['key'] = props.key;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** A codicon glyph, hidden from screen readers (the control carries the label). */
export function icon(name: string): HTMLSpanElement {
  return h('span', { class: `codicon codicon-${name}`, attrs: { 'aria-hidden': 'true' } });
}

export interface ButtonOptions {
  icon?: string;
  secondary?: boolean;
  disabled?: boolean;
  key?: string;
  /** Accessible name when the visible label is not enough. */
  ariaLabel?: string;
  title?: string;
}

/** A native button: Enter and Space work, and it sits in the tab order. */
export function button(label: string, onClick: () => void, options: ButtonOptions = {}): HTMLButtonElement {
  const attrs: Record<string, string> = { type: 'button' };
  if (options.ariaLabel) attrs['aria-label'] = options.ariaLabel;
  if (options.title) attrs['title'] = options.title;
  const element = h(
    'button',
    { class: options.secondary ? 'button secondary' : 'button', attrs, key: options.key },
    options.icon ? icon(options.icon) : null,
    h('span', {}, label),
  );
  element.disabled = options.disabled ?? false;
  element.addEventListener('click', onClick);
  return element;
}

export function badge(text: string, kind: string, title?: string): HTMLSpanElement {
  return h('span', { class: `badge badge-${kind}`, attrs: title ? { title } : {} }, text);
}

/** Long texts are cut for display only; the full text stays in the session and the summary request. */
export function clipText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n… ${text.length - maxChars} more characters not shown`;
}

/** Replaces a node's children, keeping focus on the control with the same data-key if it had it. */
export function replaceChildrenKeepingFocus(parent: HTMLElement, children: Child[]): void {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && parent.contains(active) ? active.dataset['key'] : undefined;
  parent.replaceChildren();
  append(parent, children);
  if (key === undefined) return;
  const again = Array.from(parent.querySelectorAll<HTMLElement>('[data-key]')).find((el) => el.dataset['key'] === key);
  if (!again) return;
  // Focusing inside a panel that does not have focus would take it from wherever the person is (the palette, the
  // chat): then the control gets it back only when the person returns to the panel.
  if (document.hasFocus()) {
    again.focus();
    return;
  }
  window.addEventListener('focus', () => {
    if (again.isConnected && (document.activeElement === document.body || document.activeElement === null)) again.focus();
  }, { once: true });
}
