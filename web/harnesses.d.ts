// The types of `/assets/harnesses.js`, which cctop serve writes from its provider table
// (`harnessModule` in src/views/serve/assets.ts): every harness's id and its name for people.
import type { ProviderId } from '../src/model/facts.js';

export declare const HARNESS: Readonly<Record<ProviderId, string>>;
