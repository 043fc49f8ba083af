// `/assets/shared-delta.js` is src/views/serve/delta.ts, compiled: the update protocol and the page's copy of the document.
export * from '../src/views/serve/delta.js';
