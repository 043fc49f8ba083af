// Building the page. Every piece of text, whatever its source (a transcript, a title, a path), goes
// in as a text node: nothing here parses a string as HTML. The server's Content-Security-Policy
// enforces Trusted Types as well, so an `innerHTML` slipped in later would throw, not render.

const SVG_NS = 'http://www.w3.org/2000/svg';

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

function setProps(el, props) {
  if (!props) return;
  for (const [k, v] of Object.entries(props)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
}

/** An HTML element: `h('a', { href, class }, 'text', child, [more])`. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** An SVG element, the same way. */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** Replace everything inside `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** Set a node's text only when it changed (keeps selections and avoids layout work on live updates). */
export function setText(el, text) {
  const t = String(text);
  if (el.textContent !== t) el.textContent = t;
}

/** A link inside the page: navigates without reloading (see app.js). */
export function navLink(href, props, ...children) {
  return h('a', { ...props, href, 'data-nav': '1' }, ...children);
}

export const sessionHref = (id, agent) =>
  `/session/${encodeURIComponent(id)}${agent ? `?agent=${encodeURIComponent(agent)}` : ''}`;
