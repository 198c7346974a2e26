/**
 * PostgREST's `select` grammar (`ApiRequest/QueryParams.hs`, `pFieldTree`): columns with JSON paths
 * (`data->a->>b`, `->0`), casts (`::text`), aliases (`alias:name`), `*`, and embedded resources
 * (`alias:name!hint!inner(…)`, `...name(…)` spreads). Aggregates (`count()`, `col.sum()`) are refused as
 * hosted PostgREST refuses them (`db-aggregates-enabled` is off: PGRST123). Pure.
 */
import { pgrstErrors } from "./errors.ts";

export interface JsonStep {
  arrow: "->" | "->>";
  key: string;
  /** True for `->0`: an array index (PostgREST sends digits as an integer). */
  index: boolean;
}

export interface ColumnItem {
  kind: "column";
  name: string;
  path: JsonStep[];
  alias?: string;
  cast?: string;
}

export interface StarItem {
  kind: "star";
}

export interface EmbedItem {
  kind: "embed";
  name: string;
  alias?: string;
  hint?: string;
  join?: "inner" | "left";
  spread: boolean;
  children: SelectItem[];
}

export type SelectItem = ColumnItem | StarItem | EmbedItem;

export class SelectParseFailure extends Error {
  constructor(readonly position: number, readonly details: string) {
    super(details);
  }
}

const identifierChar = /[\p{L}\p{N}_ $]/u;

class Reader {
  position = 0;
  constructor(readonly text: string) {}
  get done(): boolean {
    return this.position >= this.text.length;
  }
  peek(length = 1): string {
    return this.text.slice(this.position, this.position + length);
  }
  take(token: string): boolean {
    if (!this.text.startsWith(token, this.position)) return false;
    this.position += token.length;
    return true;
  }
  skipSpaces(): void {
    while (/[ \t\n\r]/.test(this.peek()) && !this.done) this.position++;
  }
  fail(expecting: string): never {
    const unexpected = this.done ? "end of input" : JSON.stringify(this.peek());
    throw new SelectParseFailure(this.position, `unexpected ${unexpected} ${expecting}`);
  }
}

function quoted(reader: Reader): string {
  reader.take('"');
  let value = "";
  for (;;) {
    if (reader.done) reader.fail('expecting "\\"" (end of quoted value)');
    const char = reader.peek();
    reader.position++;
    if (char === '"') return value;
    if (char === "\\" && !reader.done) {
      value += reader.peek();
      reader.position++;
    } else value += char;
  }
}

/** A name: quoted, or identifier characters joined by `-` (a `-` before `>` starts a JSON path). */
export function readName(reader: Reader): string {
  if (reader.peek() === '"') return quoted(reader);
  const parts: string[] = [];
  for (;;) {
    const start = reader.position;
    while (!reader.done && identifierChar.test(reader.peek())) reader.position++;
    if (reader.position === start) reader.fail("expecting field name (* or [a..z0..9_$])");
    parts.push(reader.text.slice(start, reader.position).trim());
    if (reader.peek() === "-" && reader.peek(2) !== "->") {
      reader.position++;
      continue;
    }
    return parts.join("-");
  }
}

/** `->key`, `->>key`, `->0` steps after a name. */
export function readJsonPath(reader: Reader): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    let arrow: JsonStep["arrow"];
    if (reader.take("->>")) arrow = "->>";
    else if (reader.take("->")) arrow = "->";
    else return steps;
    if (reader.peek() === '"') {
      steps.push({ arrow, key: quoted(reader), index: false });
      continue;
    }
    const start = reader.position;
    if (reader.peek() === "-") reader.position++;
    while (!reader.done && /[\p{L}\p{N}_$ ]/u.test(reader.peek())) reader.position++;
    const key = reader.text.slice(start, reader.position).trim();
    if (!key) reader.fail("expecting a JSON key or index");
    steps.push({ arrow, key, index: /^-?\d+$/.test(key) });
  }
}

function readCast(reader: Reader): string | undefined {
  if (!reader.take("::")) return undefined;
  const start = reader.position;
  while (!reader.done && /[\p{L}\p{N}_ \[\]]/u.test(reader.peek())) reader.position++;
  const cast = reader.text.slice(start, reader.position).trim();
  if (!cast) reader.fail("expecting a type name");
  return cast;
}

const aggregateCall = /^\.(sum|avg|count|max|min)\(\)/;

function item(reader: Reader): SelectItem {
  reader.skipSpaces();
  if (reader.take("*")) {
    reader.skipSpaces();
    return { kind: "star" };
  }
  const spread = reader.take("...");
  let name = readName(reader);
  let alias: string | undefined;
  if (reader.peek() === ":" && reader.peek(2) !== "::") {
    reader.position++;
    alias = name;
    reader.skipSpaces();
    name = readName(reader);
  }
  if (name === "count" && reader.text.startsWith("()", reader.position)) {
    throw pgrstErrors.aggregatesNotAllowed();
  }
  if (reader.peek() === "!" || reader.peek() === "(" || spread) {
    let hint: string | undefined;
    let join: EmbedItem["join"];
    while (reader.take("!")) {
      const word = readName(reader);
      if (word === "inner" || word === "left") join = word;
      else hint = word;
    }
    if (!reader.take("(")) reader.fail('expecting "("');
    const children = items(reader, ")");
    if (!reader.take(")")) reader.fail('expecting ")"');
    reader.skipSpaces();
    return { kind: "embed", name, alias, hint, join, spread, children };
  }
  const path = readJsonPath(reader);
  const cast = readCast(reader);
  if (aggregateCall.test(reader.text.slice(reader.position))) throw pgrstErrors.aggregatesNotAllowed();
  reader.skipSpaces();
  return { kind: "column", name, path, alias, cast };
}

function items(reader: Reader, closing?: string): SelectItem[] {
  const list: SelectItem[] = [];
  reader.skipSpaces();
  if (closing && reader.peek() === closing) return list;
  for (;;) {
    list.push(item(reader));
    reader.skipSpaces();
    if (reader.take(",")) continue;
    if (closing ? reader.peek() === closing : reader.done) return list;
    reader.fail(closing ? `expecting "," or "${closing}"` : 'expecting "::", "," or end of input');
  }
}

/** Parses `select`; an empty text is no columns. */
export function parseSelectTree(text: string): SelectItem[] {
  if (text.trim() === "") return [];
  const reader = new Reader(text);
  const list = items(reader);
  if (!reader.done) reader.fail("expecting end of input");
  return list;
}

/** A name with an optional JSON path (filters, order, columns keys). */
export function parseFieldWithPath(text: string): { name: string; path: JsonStep[]; rest: string } {
  const reader = new Reader(text);
  const name = readName(reader);
  const path = readJsonPath(reader);
  return { name, path, rest: text.slice(reader.position) };
}

export { Reader };
