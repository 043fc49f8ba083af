import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeHome } from '../test-support/corpus.js';
import { type KeptInputs, MAX_KEPT_SCOPES } from './kept.js';
import { packRows } from './session-record.js';
import { IndexStore } from './store.js';

const NONE: KeptInputs = { files: [], keys: new Uint32Array(0), masks: new Uint8Array(0), summaries: [] };

describe('the kept builds', () => {
  let home: FakeHome;
  let store: IndexStore;
  beforeEach(() => {
    home = new FakeHome();
    const opened = IndexStore.open(home.env.CCTOP_CACHE_DIR!);
    if (opened.kind !== 'open') throw new Error(opened.notice);
    store = opened.store;
  });
  afterEach(() => {
    store.close();
    home.cleanup();
  });

  it(`keeps the ${MAX_KEPT_SCOPES} most recently used scopes and forgets the rest, sessions and all`, () => {
    for (let i = 0; i <= MAX_KEPT_SCOPES; i++)
      store.kept.keep(`scope-${i}`, { digest: `d${i}`, problems: [], inputs: NONE }, packRows([]), 1000 + i);
    // The oldest was forgotten when the newest came.
    expect(store.kept.scope('scope-0')).toBeNull();
    expect(store.kept.scope(`scope-${MAX_KEPT_SCOPES}`)).toMatchObject({ digest: `d${MAX_KEPT_SCOPES}` });
    // A scope used again is not the next one forgotten.
    store.kept.touch('scope-1', 5000);
    store.kept.keep('scope-new', { digest: 'dn', problems: [], inputs: NONE }, packRows([]), 6000);
    expect(store.kept.scope('scope-1')).not.toBeNull();
    expect(store.kept.scope('scope-2')).toBeNull();
  });

  it('a scope with nothing kept reads as nothing, not as an empty build', () => {
    expect(store.kept.build('never')).toBeNull();
    expect(store.kept.inputs('never')).toBeNull();
    store.kept.keep('empty', { digest: 'd', problems: [], inputs: NONE }, packRows([]), 1);
    expect(store.kept.build('empty')).toMatchObject({ scope: { digest: 'd' }, heads: [] });
  });
});
