// The types of `/assets/harnesses.js`, which the server writes from its provider table.
export * from '../harnesses.js';
