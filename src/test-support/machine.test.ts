import { afterAll, expect, test } from 'vitest';
import { PROVIDERS } from '../model/facts.js';
import { Machine } from './machine.js';

const machine = Machine.build();
afterAll(() => machine.cleanup());

test('the machine holds a history for every harness cctop reads, none skipped', () => {
  const missing = PROVIDERS.filter((p) => (machine.files.get(p) ?? []).length === 0);
  expect(missing).toEqual([]);
});
