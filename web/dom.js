// @ts-check
// Building the page. Every piece of text, whatever its source (a transcript, a title, a path), goes
// in as a text node: nothing here parses a string as HTML. The server's Content-Security-Policy
// enforces Trusted Types as well, so an `innerHTML` slipped in later would throw, not render.

/**
 * What an element is built with: attributes (null, undefined and false leave one out; true sets it
 * empty), `class` as a string or a list, `dataset`, and `on<event>` listeners.
 * @typedef {string | number | boolean | null | undefined} Attr
 * @typedef {{ [name: string]: Attr | Attr[] | Record<string, string> | ((e: Event) => void) }} Props
 */

/**
 * What goes inside: nodes, text (numbers as text), and lists of them; null, undefined and false are
 * nothing.
 * @typedef {Node | string | number | null | undefined | false | Child[]} Child
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * @param {Element} el
 * @param {Child} child
 */
function append(el, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child) append(el, c);
  } else if (child instanceof Node) {
    el.appendChild(child);
  } else {
    el.appendChild(document.createTextNode(String(child)));
  }
}

/**
 * @param {HTMLElement | SVGElement} el
 * @param {Props | null} props
 */
function setProps(el, props) {
  if (!props) return;
  for (const [k, v] of Object.entries(props)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') {
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : String(v));
    } else if (k === 'dataset') {
      if (typeof v === 'object' && !Array.isArray(v)) Object.assign(el.dataset, v);
    } else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
}

/**
 * An HTML element: `h('a', { href, class }, 'text', child, [more])`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} props
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/**
 * An SVG element, the same way.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} props
 * @param {Child[]} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/**
 * Replace everything inside `el`.
 * @template {Element} E
 * @param {E} el
 * @param {Child[]} children
 * @returns {E}
 */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Set a node's text only when it changed (keeps selections and avoids layout work on live updates).
 * @param {Node} el
 * @param {string | number} text
 */
export function setText(el, text) {
  const t = String(text);
  if (el.textContent !== t) el.textContent = t;
}

/**
 * A link inside the page: navigates without reloading (see app.js).
 * @param {string} href
 * @param {Props | null} props
 * @param {Child[]} children
 */
export function navLink(href, props, ...children) {
  return h('a', { ...props, href, 'data-nav': '1' }, ...children);
}

/**
 * A session's page: `host` names the machine it runs on when that is another one (`--host`).
 * @param {string} id
 * @param {string | null} [agent]
 * @param {string | null} [host]
 */
export function sessionHref(id, agent = null, host = null) {
  const p = new URLSearchParams();
  if (agent) p.set('agent', agent);
  if (host) p.set('host', host);
  const qs = p.toString();
  return `/session/${encodeURIComponent(id)}${qs ? `?${qs}` : ''}`;
}

/**
 * The element an event happened on, as an element (a click on text still has one).
 * @param {Event} e
 * @returns {Element | null}
 */
export const targetOf = (e) => (e.target instanceof Element ? e.target : null);
