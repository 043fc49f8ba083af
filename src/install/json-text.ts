/**
 * Edits to the text of a JSON (or JSON with comments) settings file that touch only what they add or
 * take away: every other byte (comments, blank lines, the user's own indentation, number spellings,
 * a trailing comma) stays as it was. The whole-document rewrite of `jsonc.ts` suits one small key
 * (the status line); hooks live in lists the user edits too, in files that may hold comments.
 *
 * Each edit is the exact inverse of another, so a remove gives back the text an install was given:
 * - a member or element goes after the container's last child (`,` + a new line at that child's
 *   indentation + the value), and taking it out deletes from the end of the child before it to its
 *   own end;
 * - an empty container is opened (`{` + new line + value + new line + `}`), and emptying it puts back
 *   what was inside it before (its whitespace: the caller keeps it).
 * A container written on one line (or an empty one inside such a line) gets the value on that line
 * (`, ` + compact JSON).
 *
 * Offsets come from `jsonc-parser`'s syntax tree. Nothing here checks that the result says what was
 * meant: the caller parses it again and compares (`hooks/install/json-hooks-check.ts`).
 *
 * Not here: reading, refusing or writing files (`settings-file.ts`).
 */
import { type Node, parseTree } from 'jsonc-parser';
import type { Layout, Syntax } from './jsonc.js';

export type { Node } from 'jsonc-parser';

const BOM = '\ufeff';

/** The syntax tree of `text` (a byte-order mark is skipped: offsets are into the text without it). */
export function treeOf(text: string, syntax: Syntax): Node | undefined {
  return parseTree(stripBom(text), [], {
    allowTrailingComma: syntax === 'jsonc',
    disallowComments: syntax === 'json',
  });
}

export const stripBom = (text: string): string => (text.startsWith(BOM) ? text.slice(BOM.length) : text);

/** `edit` applied to the text after its byte-order mark, which is put back. */
export function withoutBom(text: string, edit: (body: string) => string): string {
  return text.startsWith(BOM) ? BOM + edit(text.slice(BOM.length)) : edit(text);
}

/** The member `key` of an object node, as its property node. */
export function memberOf(object: Node, key: string): Node | undefined {
  return object.children?.find((p) => p.children?.[0]?.value === key);
}

/** The value node of a property node. */
export const valueOfMember = (property: Node): Node | undefined => property.children?.[1];

const end = (n: Node): number => n.offset + n.length;

/** The whitespace that starts the line `offset` is on. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

/** Whether only blanks stand between the start of its line and `offset`. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(start, offset));
}

/** `value` as JSON laid out as the file is, its lines after the first indented by `indent`. */
function valueText(value: unknown, layout: Layout, indent: string): string {
  return JSON.stringify(value, null, layout.indent)
    .split('\n')
    .join(layout.eol + indent);
}

/** The text of a child (`"key": value` for an object member, `value` for an array element). */
function childText(
  key: string | null,
  value: unknown,
  layout: Layout,
  indent: string,
  compact: boolean,
): string {
  const v = compact ? JSON.stringify(value) : valueText(value, layout, indent);
  return key === null ? v : `${JSON.stringify(key)}: ${v}`;
}

/**
 * `text` with a child added at the end of `container` (an object when `key` is given, else an
 * array). Returns the new text, and what was inside the container when it was empty (to give back
 * to `removeChild` when it empties it again), else null.
 */
export function addChild(
  text: string,
  container: Node,
  key: string | null,
  value: unknown,
  layout: Layout,
): { text: string; inner: string | null } {
  const children = container.children ?? [];
  const last = children.at(-1);
  if (last !== undefined) {
    const compact = !startsLine(text, last.offset);
    const indent = lineIndent(text, last.offset);
    const at = end(last);
    const add = compact
      ? `, ${childText(key, value, layout, indent, true)}`
      : `,${layout.eol}${indent}${childText(key, value, layout, indent, false)}`;
    return { text: text.slice(0, at) + add + text.slice(at), inner: null };
  }
  const open = container.offset + 1;
  const close = end(container) - 1;
  // An empty container inside a line of others (`{"a":1,"hooks":{}}`) is filled on that line.
  const holder = container.parent?.type === 'property' ? container.parent : container;
  if (container.parent !== undefined && !startsLine(text, holder.offset)) {
    const body = childText(key, value, layout, '', true);
    return { text: text.slice(0, open) + body + text.slice(close), inner: text.slice(open, close) };
  }
  const outer = lineIndent(text, container.offset);
  const indent = outer + layout.indent;
  const body = `${layout.eol}${indent}${childText(key, value, layout, indent, false)}${layout.eol}${outer}`;
  return { text: text.slice(0, open) + body + text.slice(close), inner: text.slice(open, close) };
}

/**
 * `text` without `child` (a property node of an object, or an element of an array), with the
 * separator that joined it to its neighbours. When it was the only child, the container's inside
 * becomes `inner` (what `addChild` found in it), else nothing.
 */
export function removeChild(text: string, container: Node, child: Node, inner = ''): string {
  const children = container.children ?? [];
  const at = children.indexOf(child);
  if (at === -1) return text;
  if (children.length === 1)
    return text.slice(0, container.offset + 1) + inner + text.slice(end(container) - 1);
  if (at > 0) return text.slice(0, end(children[at - 1]!)) + text.slice(end(child));
  return text.slice(0, child.offset) + text.slice(children[1]!.offset);
}

/** `text` with the value at `node` replaced by `value` (compact: a string, a number). */
export function replaceNode(text: string, node: Node, value: unknown): string {
  return text.slice(0, node.offset) + JSON.stringify(value) + text.slice(end(node));
}

/**
 * `text` with the value at `node` replaced by `value` laid out as the file is: over several lines at
 * the indentation of the line it starts on, or on one line when the value it replaces was on one.
 */
export function replaceValue(text: string, node: Node, value: unknown, layout: Layout): string {
  const oneLine = !/[\r\n]/.test(text.slice(node.offset, end(node)));
  const v = oneLine ? JSON.stringify(value) : valueText(value, layout, lineIndent(text, node.offset));
  return text.slice(0, node.offset) + v + text.slice(end(node));
}
