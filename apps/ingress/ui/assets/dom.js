// DOM helpers. Data only ever reaches the page as text (textContent, text nodes, attribute
// values): never as HTML. The page's Trusted Types policy makes HTML sinks throw anyway.

/** The element with this id (throws when the page lacks it: a bug, not a user error). */
export function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing element #${id}`);
  return element;
}

const ATTRIBUTES = new Set([
  'id',
  'type',
  'scope',
  'datetime',
  'title',
  'for',
  'tabindex',
  'role',
  'data-id',
  'maxlength',
  'autocomplete',
  'spellcheck',
  'value',
]);

/**
 * Creates an element. `props`: `text` (textContent), `class`, `href` (only our own /ui/ paths),
 * `aria-*`, a few plain attributes, and `on<event>` listeners. Children: nodes or strings (text).
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') element.textContent = String(value);
    else if (name === 'class') element.className = String(value);
    else if (name === 'href') {
      const href = String(value);
      if (!href.startsWith('/ui/')) throw new Error(`refusing link outside /ui/: ${href}`);
      element.setAttribute('href', href);
    } else if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name.startsWith('aria-') || ATTRIBUTES.has(name)) element.setAttribute(name, value === true ? '' : String(value));
    else throw new Error(`unsupported property ${name}`);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function clear(element) {
  element.replaceChildren();
}

export function show(element, visible = true) {
  element.hidden = !visible;
}

/** Shows a message in an error element (role=alert), or hides it when `message` is empty. */
export function setError(element, message) {
  element.textContent = message ?? '';
  element.hidden = !message;
}

/** Polite status message for screen readers and sighted users alike. */
export function announce(message) {
  const status = byId('status');
  status.textContent = '';
  // A fresh text node, so the same message twice is still announced.
  window.setTimeout(() => {
    status.textContent = message;
  }, 30);
}

/** A <time> element showing the local date and time of an ISO timestamp. */
export function timeElement(iso) {
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
  return h('time', { datetime: String(iso), title: String(iso), text });
}

/**
 * Copies text to the clipboard; when the browser refuses, selects `fallbackField` (if any) so
 * the user can press Ctrl+C. Reports either way through the status region.
 */
export async function copyText(text, what, fallbackField) {
  try {
    await navigator.clipboard.writeText(text);
    announce(`${what} copied to the clipboard.`);
  } catch {
    if (fallbackField && typeof fallbackField.select === 'function') {
      fallbackField.focus();
      fallbackField.select();
    }
    announce(`Could not copy the ${what.toLowerCase()} automatically: it is selected, press Ctrl+C to copy it.`);
  }
}
