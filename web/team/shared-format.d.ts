// `/assets/shared-format.js` is src/views/format.ts, compiled: the formatters the terminal uses too.
export * from '../../src/views/format.js';
