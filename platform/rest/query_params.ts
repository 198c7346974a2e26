/**
 * PostgREST's query string (`src/PostgREST/ApiRequest/QueryParams.hs`): `select` (select.ts: columns,
 * JSON paths, casts, aliases, embedded resources and spreads), horizontal filters
 * (`column=[not.]op.value` with eq neq gt gte lt lte like ilike match imatch in is isdistinct cs cd ov,
 * `(any)`/`(all)` quantifiers, full-text search fts plfts phfts wfts with an optional language), on a
 * column or a JSON path, `or`/`and` trees (`or=(a.eq.1,and(b.gt.2,c.is.null))`, `not.or=…`), `order`,
 * `limit`, `offset`, each also for an embedded resource (`messages.order=id.desc`), `columns` and
 * `on_conflict`. Aggregates are refused as hosted PostgREST refuses them (PGRST123). Pure: names
 * stay names and values stay values; nothing here becomes SQL text except through statements.ts, which
 * quotes every name and binds every value.
 */
import { pgrstErrors } from "./errors.ts";
import {
  type JsonStep,
  parseSelectTree,
  Reader,
  readJsonPath,
  type SelectItem,
  SelectParseFailure,
} from "./select.ts";

export type QuantOperator = "eq" | "gt" | "gte" | "lt" | "lte" | "like" | "ilike" | "match" | "imatch";
export type SimpleOperator = "neq" | "cs" | "cd" | "ov" | "sl" | "sr" | "nxr" | "nxl" | "adj";
export type IsValue = "null" | "not_null" | "true" | "false" | "unknown";

export type Operation =
  | { kind: "quant"; operator: QuantOperator; quantifier?: "any" | "all"; value: string }
  | { kind: "simple"; operator: SimpleOperator; value: string }
  | { kind: "in"; values: string[] }
  | { kind: "is"; value: IsValue }
  | { kind: "isdistinct"; value: string }
  | { kind: "fts"; operator: "fts" | "plfts" | "phfts" | "wfts"; language?: string; value: string };

export interface Filter {
  column: string;
  /** A JSON path into the column (`data->a->>b`); empty for the column itself. */
  path?: JsonStep[];
  negated: boolean;
  operation: Operation;
}

export type LogicTree =
  | { kind: "filter"; filter: Filter }
  | { kind: "logic"; operator: "and" | "or"; negated: boolean; children: LogicTree[] };

export interface OrderTerm {
  column: string;
  path?: JsonStep[];
  direction?: "asc" | "desc";
  nulls?: "first" | "last";
}

/** Filters, order and range of one level: the top level, or an embedded resource (`messages.limit=1`). */
export interface Scope {
  filters: Filter[];
  logic: LogicTree[];
  order: OrderTerm[];
  /** From `limit` (undefined when absent or not a number, as PostgREST ignores it). */
  limit?: number;
  offset?: number;
}

export interface QueryParams extends Scope {
  select: SelectItem[];
  /** The scopes of embedded resources, by their path of names or aliases joined with `.`. */
  embedded: Record<string, Scope>;
  columns?: string[];
  onConflict?: string[];
  /** For `GET /rpc/<fn>`: parameters that are not filters, as named arguments (text values). */
  rpcArgs: Record<string, string>;
}

const reserved = new Set(["select", "columns", "on_conflict"]);
const reservedEmbeddable = new Set(["order", "limit", "offset", "and", "or"]);

class ParseFailure extends Error {
  constructor(readonly position: number, readonly details: string) {
    super(details);
  }
}

/** A cursor over one parameter's text, with the few primitives PostgREST's Parsec grammar uses. */
class Cursor {
  position = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.position >= this.text.length;
  }
  peek(length = 1): string {
    return this.text.slice(this.position, this.position + length);
  }
  startsWith(token: string): boolean {
    return this.text.startsWith(token, this.position);
  }
  take(token: string): boolean {
    if (!this.startsWith(token)) return false;
    this.position += token.length;
    return true;
  }
  expect(token: string, what = `"${token}"`): void {
    if (!this.take(token)) this.fail(`expecting ${what}`);
  }
  skipSpaces(): void {
    while (this.peek() === " " || this.peek() === "\t") this.position++;
  }
  fail(expecting: string): never {
    const unexpected = this.done ? "end of input" : JSON.stringify(this.peek());
    throw new ParseFailure(this.position, `unexpected ${unexpected} ${expecting}`);
  }
  rest(): string {
    const value = this.text.slice(this.position);
    this.position = this.text.length;
    return value;
  }
}

const identifierChar = /[\p{L}\p{N}_ $]/u;

/** `"quoted \"name\""` or identifier characters joined by `-` (a `-` before `>` starts a JSON path). */
function fieldName(cursor: Cursor): string {
  if (cursor.peek() === '"') return quotedValue(cursor);
  const parts: string[] = [];
  for (;;) {
    const start = cursor.position;
    while (!cursor.done && identifierChar.test(cursor.peek())) cursor.position++;
    if (cursor.position === start) cursor.fail("expecting field name (* or [a..z0..9_$])");
    parts.push(cursor.text.slice(start, cursor.position).trim());
    if (cursor.peek() === "-" && cursor.peek(2) !== "->") {
      cursor.position++;
      continue;
    }
    return parts.join("-");
  }
}

function quotedValue(cursor: Cursor): string {
  cursor.expect('"');
  let value = "";
  for (;;) {
    if (cursor.done) cursor.fail('expecting "\\"" (end of quoted value)');
    const char = cursor.peek();
    cursor.position++;
    if (char === '"') return value;
    if (char === "\\") {
      if (cursor.done) cursor.fail("expecting an escaped character");
      value += cursor.peek();
      cursor.position++;
    } else {
      value += char;
    }
  }
}

function jsonPathOf(cursor: Cursor): JsonStep[] {
  const reader = new Reader(cursor.text);
  reader.position = cursor.position;
  try {
    return readJsonPath(reader);
  } finally {
    cursor.position = reader.position;
  }
}

function parseSelect(text: string): SelectItem[] {
  try {
    return parseSelectTree(text);
  } catch (error) {
    if (error instanceof SelectParseFailure) throw new ParseFailure(error.position, error.details);
    throw error;
  }
}

const quantOperators: QuantOperator[] = ["eq", "gte", "gt", "lte", "lt", "like", "ilike", "match", "imatch"];
const simpleOperators: SimpleOperator[] = ["neq", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj"];
const isValues: IsValue[] = ["null", "not_null", "true", "false", "unknown"];

/** `[not.]operation`, the value read by `value` (the rest of a filter, or up to `,`/`)` inside or/and). */
function operationExpression(
  cursor: Cursor,
  value: (cursor: Cursor) => string,
): { negated: boolean; operation: Operation } {
  const negated = cursor.take("not.");
  if (cursor.take("in.")) return { negated, operation: { kind: "in", values: listValue(cursor) } };
  if (cursor.take("is.")) {
    const word = isValues.find((each) => cursor.text.slice(cursor.position).toLowerCase().startsWith(each));
    if (!word) cursor.fail("expecting isVal: (null, not_null, true, false, unknown)");
    cursor.position += word.length;
    return { negated, operation: { kind: "is", value: word } };
  }
  if (cursor.take("isdistinct.")) return { negated, operation: { kind: "isdistinct", value: value(cursor) } };
  for (const fts of ["plfts", "phfts", "wfts", "fts"] as const) {
    if (!cursor.startsWith(`${fts}.`) && !cursor.startsWith(`${fts}(`)) continue;
    cursor.position += fts.length;
    let language: string | undefined;
    if (cursor.take("(")) {
      const end = cursor.text.indexOf(")", cursor.position);
      if (end < 0) cursor.fail('expecting ")"');
      language = cursor.text.slice(cursor.position, end);
      cursor.position = end + 1;
    }
    cursor.expect(".", "delimiter (.)");
    return { negated, operation: { kind: "fts", operator: fts, language, value: value(cursor) } };
  }
  for (const operator of simpleOperators) {
    if (cursor.take(`${operator}.`)) {
      return { negated, operation: { kind: "simple", operator, value: value(cursor) } };
    }
  }
  for (const operator of quantOperators) {
    if (!cursor.startsWith(operator)) continue;
    const after = cursor.text.slice(cursor.position + operator.length);
    const quantifier = after.startsWith("(any).") ? "any" : after.startsWith("(all).") ? "all" : undefined;
    if (!quantifier && !after.startsWith(".")) continue;
    cursor.position += operator.length + (quantifier ? 6 : 1);
    return { negated, operation: { kind: "quant", operator, quantifier, value: value(cursor) } };
  }
  cursor.fail('expecting "not" or operator (eq, gt, ...)');
}

function listValue(cursor: Cursor): string[] {
  cursor.skipSpaces();
  cursor.expect("(");
  cursor.skipSpaces();
  const values: string[] = [];
  for (;;) {
    values.push(listElement(cursor));
    if (cursor.take(",")) continue;
    cursor.skipSpaces();
    cursor.expect(")");
    cursor.skipSpaces();
    return values;
  }
}

/** A quoted element (when the quote ends the element) or the characters up to `,` or `)`. */
function listElement(cursor: Cursor): string {
  if (cursor.peek() === '"') {
    const start = cursor.position;
    try {
      const value = quotedValue(cursor);
      if (cursor.done || cursor.peek() === "," || cursor.peek() === ")") return value;
    } catch (error) {
      if (!(error instanceof ParseFailure)) throw error;
    }
    cursor.position = start;
  }
  const start = cursor.position;
  while (!cursor.done && cursor.peek() !== "," && cursor.peek() !== ")") cursor.position++;
  return cursor.text.slice(start, cursor.position);
}

/** Inside or/and: a quoted value, a `{…}` array literal, or the characters up to `,` or `)`. */
function logicValue(cursor: Cursor): string {
  if (cursor.peek() === "{") {
    const end = cursor.text.indexOf("}", cursor.position);
    const inner = end < 0 ? "" : cursor.text.slice(cursor.position + 1, end);
    if (end >= 0 && !/[{}]/.test(inner)) {
      cursor.position = end + 1;
      return `{${inner}}`;
    }
  }
  return listElement(cursor);
}

function logicTree(cursor: Cursor): LogicTree {
  cursor.skipSpaces();
  const start = cursor.position;
  const negated = cursor.take("not.");
  for (const operator of ["and", "or"] as const) {
    if (cursor.startsWith(`${operator}(`) || cursor.startsWith(`${operator} (`)) {
      cursor.position += operator.length;
      cursor.skipSpaces();
      cursor.expect("(");
      const children: LogicTree[] = [];
      for (;;) {
        children.push(logicTree(cursor));
        cursor.skipSpaces();
        if (cursor.take(",")) continue;
        cursor.expect(")");
        cursor.skipSpaces();
        return { kind: "logic", operator, negated, children };
      }
    }
  }
  cursor.position = start;
  const column = fieldName(cursor);
  const path = jsonPathOf(cursor);
  cursor.expect(".", "delimiter (.)");
  const expression = operationExpression(cursor, logicValue);
  return { kind: "filter", filter: { column, ...(path.length > 0 ? { path } : {}), ...expression } };
}

function parseOrder(text: string): OrderTerm[] {
  const cursor = new Cursor(text);
  const terms: OrderTerm[] = [];
  for (;;) {
    cursor.skipSpaces();
    const column = fieldName(cursor);
    if (cursor.peek() === "(") {
      throw pgrstErrors.notImplemented(
        "Ordering by an embedded resource is not served by the local Data API stand-in",
      );
    }
    const path = jsonPathOf(cursor);
    const term: OrderTerm = path.length > 0 ? { column, path } : { column };
    if (cursor.take(".asc")) term.direction = "asc";
    else if (cursor.take(".desc")) term.direction = "desc";
    if (cursor.take(".nullsfirst")) term.nulls = "first";
    else if (cursor.take(".nullslast")) term.nulls = "last";
    cursor.skipSpaces();
    terms.push(term);
    if (cursor.done) return terms;
    if (!cursor.take(",")) {
      cursor.fail('expecting "asc", "desc", "nullsfirst", "nullslast", "," or end of input');
    }
  }
}

function parseColumns(text: string): string[] {
  const cursor = new Cursor(text);
  const columns: string[] = [];
  for (;;) {
    cursor.skipSpaces();
    columns.push(fieldName(cursor));
    cursor.skipSpaces();
    if (cursor.done) return columns;
    cursor.expect(",");
  }
}

/** Runs one parser over a parameter; a failure is PGRST100 in PostgREST's wording. */
function parsing<T>(what: string, text: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof ParseFailure)) throw error;
    throw pgrstErrors.queryParam(
      `"failed to parse ${what} (${text})" (line 1, column ${error.position + 1})`,
      error.details,
    );
  }
}

function filterOf(field: { column: string; path: JsonStep[] }, value: string): Filter {
  return parsing("filter", value, (text) => {
    const cursor = new Cursor(text);
    const expression = operationExpression(cursor, (each) => each.rest());
    if (!cursor.done) cursor.fail("expecting end of input");
    return { column: field.column, ...(field.path.length > 0 ? { path: field.path } : {}), ...expression };
  });
}

/** True when `value` starts like a filter operation (so a `GET /rpc` parameter is a filter, not an argument). */
function looksLikeFilter(value: string): boolean {
  const body = value.startsWith("not.") ? value.slice(4) : value;
  const operators = [
    ...quantOperators,
    ...simpleOperators,
    "in",
    "is",
    "isdistinct",
    "fts",
    "plfts",
    "phfts",
    "wfts",
  ];
  return operators.some((operator) => new RegExp(`^${operator}(\\((any|all|[A-Za-z_ ]+)\\))?\\.`).test(body));
}

/** A filter key: `[embedded.…]column[->json path]`. */
function fieldKey(key: string): { embedded: string[]; column: string; path: JsonStep[] } {
  return parsing("tree path", key, (text) => {
    const cursor = new Cursor(text);
    const names = [fieldName(cursor)];
    while (cursor.take(".")) names.push(fieldName(cursor));
    const path = jsonPathOf(cursor);
    if (!cursor.done) cursor.fail("expecting end of input");
    return { embedded: names.slice(0, -1), column: names.at(-1)!, path };
  });
}

function scopeOf(result: QueryParams, embedded: string[]): Scope {
  if (embedded.length === 0) return result;
  const key = embedded.join(".");
  return result.embedded[key] ??= { filters: [], logic: [], order: [] };
}

/**
 * Parses a request's query string as PostgREST does. `rpcRead` is true for `GET /rpc/<fn>`, where a
 * parameter that is not a filter is a named argument of the function.
 */
export function parseQueryParams(search: URLSearchParams, rpcRead = false): QueryParams {
  const result: QueryParams = {
    select: [{ kind: "star" }],
    filters: [],
    logic: [],
    order: [],
    embedded: {},
    rpcArgs: {},
  };
  for (const [key, value] of search) {
    if (key === "select") {
      result.select = parsing("select parameter", value, parseSelect);
      continue;
    }
    if (key === "columns") {
      result.columns = parsing("columns parameter", value, parseColumns);
      continue;
    }
    if (key === "on_conflict") {
      result.onConflict = parsing("on_conflict parameter", value, parseColumns);
      continue;
    }
    const path = key.split(".");
    const last = path.at(-1)!;
    if (reservedEmbeddable.has(last)) {
      const negated = path.length >= 2 && path.at(-2) === "not";
      const scope = scopeOf(result, path.slice(0, negated ? -2 : -1));
      if (last === "order") scope.order.push(...parsing("order", value, parseOrder));
      else if (last === "limit") scope.limit = integerOrUndefined(value);
      else if (last === "offset") scope.offset = integerOrUndefined(value);
      else {
        const text = `${negated ? "not." : ""}${last}${value}`;
        scope.logic.push(parsing("logic tree", text, (each) => {
          const cursor = new Cursor(each);
          const tree = logicTree(cursor);
          if (!cursor.done || tree.kind !== "logic") cursor.fail("expecting logic operator (and, or)");
          return tree;
        }));
      }
      continue;
    }
    if (reserved.has(key)) continue;
    if (rpcRead && !looksLikeFilter(value)) {
      result.rpcArgs[key] = value;
      continue;
    }
    const field = fieldKey(key);
    scopeOf(result, field.embedded).filters.push(filterOf(field, value));
  }
  checkEmbeddedScopes(result);
  return result;
}

/** Every embedded scope must name a resource the select embeds (by alias or name), else PGRST108. */
function checkEmbeddedScopes(result: QueryParams): void {
  const paths = new Set<string>();
  const walk = (items: SelectItem[], prefix: string[]) => {
    for (const item of items) {
      if (item.kind !== "embed") continue;
      for (const label of new Set([item.alias ?? item.name, item.name])) {
        paths.add([...prefix, label].join("."));
        walk(item.children, [...prefix, label]);
      }
    }
  };
  walk(result.select, []);
  for (const key of Object.keys(result.embedded)) {
    if (!paths.has(key)) throw pgrstErrors.notEmbedded(key);
  }
}

function integerOrUndefined(value: string): number | undefined {
  return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
