/**
 * SQL literals for statements sent without parameters. With postgres.js and `prepare: false` (needed
 * behind Supabase's transaction pooler) a statement with parameters costs two round trips (describe, then
 * execute) and stops the pipeline; one without parameters costs one and pipelines. Only values whose form
 * is checked here are inlined: integers, booleans, UUIDs and hex digests as they are, and any text as the
 * hex of its UTF-8 bytes, decoded by the server (no quoting or escaping of the caller's text at all). Pure.
 */
import { toHex } from "../encoding.ts";

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const hexPattern = /^[0-9a-f]*$/;

/** An integer, cast as `integer` (a value out of its range fails in the database, as a parameter would). */
export function integerLiteral(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
  return `${value}::integer`;
}

export function booleanLiteral(value: boolean): string {
  if (typeof value !== "boolean") throw new TypeError("not a boolean");
  return value ? "true" : "false";
}

export function uuidLiteral(value: string): string {
  if (!uuidPattern.test(value)) throw new TypeError("not a UUID");
  return `'${value.toLowerCase()}'::uuid`;
}

/** Lower-case hex text such as a SHA-256 digest, as a text literal. */
export function hexTextLiteral(value: string): string {
  if (!hexPattern.test(value)) throw new TypeError("not lower-case hex");
  return `'${value}'::text`;
}

/** Any text: its UTF-8 bytes in hex, turned back into text by the server. */
export function textLiteral(value: string): string {
  return `convert_from(decode('${toHex(new TextEncoder().encode(value))}', 'hex'), 'UTF8')`;
}

export function nullableLiteral<T>(value: T | null | undefined, literal: (value: T) => string): string {
  return value === null || value === undefined ? "null" : literal(value);
}
