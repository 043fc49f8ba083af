// `/assets/shared-usage.js` is src/model/usage.ts, compiled: token arithmetic, as the rest of cctop does it.
export * from '../src/model/usage.js';
