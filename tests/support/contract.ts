/**
 * Checks responses against the contract the API publishes: the OpenAPI document served at
 * `GET /openapi.json`. A REST response must match the schema of its operation's response for that status
 * (an undocumented status fails too); a response no operation owns (unknown path, wrong method, the MCP
 * endpoint's HTTP errors) must be an error body. A tool result's `structuredContent` must match the
 * response of the REST operation the tool mirrors (contract/mcp_tools.ts), or the error body on `isError`.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { mcpToolContracts, type McpToolName } from "../../supabase/functions/_shared/contract/mcp_tools.ts";
import { call, type JsonResponse } from "./http.ts";

type Json = Record<string, unknown>;
type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

export interface PublishedContract {
  /** The document as served. */
  document: Json;
  /** Throws unless `response` (to `method` on `url`) matches what the document publishes. */
  assertResponse(method: string, url: string, response: JsonResponse<unknown>): void;
  /** Throws unless a tool result matches the REST operation's response (or the error body on isError). */
  assertToolResult(tool: string, result: object): void;
  /** Throws unless `body` is the published error body. */
  assertErrorBody(body: unknown, what: string): void;
}

/** Fetches `{apiBase}/openapi.json` and builds the checks from it. */
export async function publishedContract(apiBase: string): Promise<PublishedContract> {
  const served = await call<Json>(`${apiBase}/openapi.json`);
  if (served.status !== 200) throw new Error(`GET /openapi.json answered ${served.status}`);
  return contractFrom(served.body, new URL(apiBase).pathname.replace(/\/$/, ""));
}

/** Calls like `call` and checks the response against the published contract. */
export async function callChecked<T = Json>(
  contract: PublishedContract,
  url: string,
  init: Parameters<typeof call>[1] = {},
): Promise<JsonResponse<T>> {
  const response = await call<T>(url, init);
  contract.assertResponse(init.method ?? "GET", url, response);
  return response;
}

/** The checks for a document already at hand (`basePath`: the path part of the API's base URL). */
export function contractFrom(document: Json, basePath: string): PublishedContract {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const compiled = new Map<string, Validate>();
  const paths = document.paths as Record<string, Record<string, Json>>;

  const validator = (pointer: string, schema: unknown): Validate => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile(dereference(document, schema) as Json) as Validate;
      compiled.set(pointer, validate);
    }
    return validate;
  };

  const errorSchema = () => validator("#/components/schemas/Error", { $ref: "#/components/schemas/Error" });

  const check = (validate: Validate, body: unknown, what: string) => {
    if (!validate(body)) {
      throw new Error(
        `${what} does not match the published schema: ${JSON.stringify(validate.errors)}\n` +
          `body: ${JSON.stringify(body).slice(0, 2000)}`,
      );
    }
  };

  const assertErrorBody = (body: unknown, what: string) => check(errorSchema(), body, what);

  const operationById = (operationId: string): { pointer: string; operation: Json } => {
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (operation.operationId === operationId) return { pointer: `${method} ${path}`, operation };
      }
    }
    throw new Error(`the document has no operation ${operationId}`);
  };

  const responseSchema = (pointer: string, operation: Json, status: number, what: string) => {
    const responses = operation.responses as Record<string, unknown>;
    const declared = responses[String(status)] ?? responses.default;
    if (declared === undefined) {
      throw new Error(`${what}: status ${status} is not documented (documented: ${Object.keys(responses)})`);
    }
    const response = dereference(document, declared) as Json;
    const schema = (response.content as Record<string, Json> | undefined)?.["application/json"]?.schema;
    if (schema === undefined) throw new Error(`${what}: status ${status} documents no JSON body`);
    return { validate: validator(`${pointer} ${status}`, schema), headers: (response.headers ?? {}) as Json };
  };

  return {
    document,
    assertErrorBody,
    assertResponse(method, url, response) {
      const path = new URL(url).pathname;
      const relative = path.startsWith(basePath) ? path.slice(basePath.length) : path;
      const what = `${method.toUpperCase()} ${relative} → ${response.status}`;
      const template = Object.keys(paths).find((candidate) => matches(candidate, relative));
      const operation = template === undefined ? undefined : paths[template][method.toLowerCase()];
      if (template === undefined || operation === undefined) {
        // No operation owns it (unknown path or method, /openapi.json, /mcp): only errors are expected.
        if (response.status >= 400) assertErrorBody(response.body, what);
        return;
      }
      const { validate, headers } = responseSchema(`${method} ${template}`, operation, response.status, what);
      check(validate, response.body, what);
      for (const [name, header] of Object.entries(headers as Record<string, Json>)) {
        const value = response.headers.get(name);
        if (value === null && header.required === true) throw new Error(`${what}: header ${name} is missing`);
        const type = (header.schema as Json | undefined)?.type;
        if (value !== null && type === "integer" && !/^\d+$/.test(value)) {
          throw new Error(`${what}: header ${name} is not an integer: ${value}`);
        }
      }
    },
    assertToolResult(tool, toolResult) {
      const result = toolResult as { isError?: unknown; structuredContent?: unknown };
      const contract = mcpToolContracts[tool as McpToolName];
      if (contract === undefined) throw new Error(`no tool ${tool} in the contract`);
      const what = `tool ${tool}${result.isError ? " (isError)" : ""}`;
      if (result.isError) return assertErrorBody(result.structuredContent, what);
      const { pointer, operation } = operationById(contract.operationId);
      check(responseSchema(pointer, operation, 200, what).validate, result.structuredContent, what);
    },
  };
}

/** `/domains/{name}` matches `/domains/example.com`. */
function matches(template: string, path: string): boolean {
  const pattern = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"))
    .join("[^/]+");
  return new RegExp(`^${pattern}$`).test(path);
}

/** Replaces every local `$ref` (`#/…`) with what it points to, so the schema stands alone. */
function dereference(document: Json, value: unknown, depth = 0): unknown {
  if (depth > 50) throw new Error("$ref nesting too deep");
  if (Array.isArray(value)) return value.map((item) => dereference(document, item, depth + 1));
  if (value === null || typeof value !== "object") return value;
  const ref = (value as Json).$ref;
  if (typeof ref === "string" && ref.startsWith("#/")) {
    const target = ref.slice(2).split("/").reduce<unknown>(
      (node, part) => (node as Json)?.[part.replaceAll("~1", "/").replaceAll("~0", "~")],
      document,
    );
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    return dereference(document, target, depth + 1);
  }
  return Object.fromEntries(
    Object.entries(value as Json).map(([key, item]) => [key, dereference(document, item, depth + 1)]),
  );
}
