/**
 * ASCII JSON: what cctop prints and keeps. Every character past ASCII is a `\u` escape, the same
 * value to any JSON reader, safe through any terminal or pipe encoding, and one byte per character
 * (so kept text is read and written as bytes, never decoded).
 */

/** `json` with every character past ASCII escaped. */
export function asciiJson(json: string): string {
  return NOT_ASCII.test(json) ? json.replace(NOT_ASCII_ALL, escapeChar) : json;
}

const NOT_ASCII = /[\u0080-\uffff]/;
const NOT_ASCII_ALL = /[\u0080-\uffff]/g;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** An object's members as ASCII JSON, without its braces (a JSON object's text starts and ends with one). */
export function membersOf(o: object): string {
  return asciiJson(JSON.stringify(o)).slice(1, -1);
}
