/** The README's legend of the live table's marks names every mark the table draws. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../src/test-support/corpus.js';
import { STATE_SHAPES } from '../src/views/tui/rows.js';

it("the README's Marks paragraph names each state's mark, filled and hollow, idle's • included", () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const start = readme.indexOf('- **Marks**:');
  expect(start).toBeGreaterThan(-1);
  const end = readme.indexOf('\n- **', start + 1);
  const marks = readme.slice(start, end === -1 ? undefined : end);
  const missing = Object.values(STATE_SHAPES)
    .flat()
    .filter((glyph) => !new RegExp(`\`[^\`]*${glyph}[^\`]*\``).test(marks));
  expect(missing).toEqual([]);
});
