/**
 * The conformance suite's list of cases, without running an agent: an agent's rules name the cases
 * it runs, and a name that is no case must stop the file rather than leave that agent untested.
 */
import { describe, expect, it } from 'vitest';
import { CASES, casesNamed } from './conformance.js';

describe("an agent's list of lab cases", () => {
  it('runs every case when it names none, and the named ones in the suite order otherwise', () => {
    expect(casesNamed(undefined).map((c) => c.name)).toEqual(['text', 'call', 'fail', 'parallel', 'resume']);
    expect(casesNamed(['resume', 'fail']).map((c) => c.name)).toEqual(['fail', 'resume']);
    expect(casesNamed([])).toEqual([]);
    expect(casesNamed(['fail'])).toEqual([CASES[2]]);
  });

  it('fails loudly on a name that is no case, naming the cases there are', () => {
    expect(() => casesNamed(['fail', 'fial'])).toThrow(
      'no lab case is named fial; the cases are text, call, fail, parallel, resume',
    );
  });
});
