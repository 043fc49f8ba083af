/**
 * Text that Claude Code writes into `user` records but that no person typed: a slash command's
 * expansion, a command's output, reminders, hook output, task notifications. Shown as the user's
 * words it misleads; shown raw it is markup. Here it is recognised and tidied into what it says.
 */

/** Whether the first line is a bare `<name>` and nothing else: the shape every injected block has. */
function opensWithBareTag(text: string): boolean {
  const line = (text.split('\n', 1)[0] ?? '').trim();
  if (!line.startsWith('<') || !line.endsWith('>')) return false;
  const name = line.slice(1, -1);
  // `<p>hi</p>` is somebody pasting markup; `</x>` is a closing tag; attributes are prose.
  return name.length > 0 && !name.startsWith('/') && /^[A-Za-z0-9_-]+$/.test(name);
}

/**
 * Whether a user record's text is really the harness speaking. Named prefixes catch blocks written on
 * one line; the shape catches the rest, so a new kind of injected block needs no list update.
 */
export function isHarnessText(text: string): boolean {
  const head = text.trimStart();
  return (
    head.startsWith('<command-name>') ||
    // Claude Code 1.0.x wrote a slash command with its message first, then its name.
    head.startsWith('<command-message>') ||
    head.startsWith('<local-command') ||
    head.startsWith('<system-reminder>') ||
    head.startsWith('<user-prompt-submit-hook>') ||
    head.startsWith('Caveat:') ||
    opensWithBareTag(head)
  );
}

/** The text inside the first `<tag>…</tag>`. */
export function tagged(text: string, tag: string): string | null {
  const open = `<${tag}>`;
  const at = text.indexOf(open);
  if (at === -1) return null;
  const rest = text.slice(at + open.length);
  const end = rest.indexOf(`</${tag}>`);
  return end === -1 ? null : rest.slice(0, end);
}

/** The entities the transcript writer escapes; `&amp;` last, or `&amp;gt;` would decode twice. */
function unescapeEntities(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

/**
 * A task notification as news: its `summary`, the `event` a monitor reports and the `result` a
 * finished agent left, without the dispatcher's fields around them. One that carries none of those
 * says nothing, and comes back empty.
 */
function tidyTaskNotification(text: string): string {
  const lines: string[] = [];
  for (const field of ['summary', 'event', 'result']) {
    const body = tagged(text, field)?.trim();
    if (!body || lines.includes(body)) continue;
    lines.push(unescapeEntities(body));
  }
  const close = '</task-notification>';
  const end = text.indexOf(close);
  if (end !== -1) {
    const tail = text.slice(end + close.length).trim();
    if (tail.length > 0) lines.push(tail);
  }
  return lines.join('\n');
}

/** `<tag>body</tag>` on one line, reduced to its body. */
function stripOuterTags(text: string): string {
  const openEnd = text.indexOf('>');
  if (openEnd === -1 || !text.startsWith('<') || !text.endsWith('>')) return text;
  const body = text.slice(openEnd + 1);
  const close = body.lastIndexOf('</');
  return close === -1 ? body : body.slice(0, close);
}

/**
 * A harness block as something to read. A slash command comes back as the command someone typed,
 * with what it printed beneath; any other block keeps its prose and loses its tags.
 */
export function tidyHarnessText(text: string): string {
  if (text.trimStart().startsWith('<task-notification>')) return tidyTaskNotification(text);
  const printed = (tagged(text, 'local-command-stdout') ?? '').trim();
  const name = tagged(text, 'command-name');
  if (name !== null) {
    const args = (tagged(text, 'command-args') ?? '').trim();
    const said = `${name.trim()} ${args}`.trim();
    return printed.length === 0 ? said : `${said}\n\n${printed}`;
  }
  if (text.trimStart().startsWith('<local-command')) return printed;
  const kept = text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => !(l.trimStart().startsWith('<') && l.trimEnd().endsWith('>')))
    .join('\n')
    .trim();
  // A block written on a single line leaves no line to keep: take its tags off instead.
  return kept.length === 0 ? stripOuterTags(text.trim()).trim() : kept;
}
