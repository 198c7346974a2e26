/**
 * The folders of `supabase/functions/_shared` import each other without cycles and only from their own layer
 * or the layers above it, in the order `docs/architecture.md` lists (its `layers` block is the one place the
 * order is written); the services and the MCP tools never import the REST layer (`api/`); the contract
 * imports no other folder. Read from the sources' relative imports (type-only imports count too).
 */
import { assertEquals } from "../support/assert.ts";

const sharedRoot = new URL("../../supabase/functions/_shared/", import.meta.url);

async function sourceFiles(dir: URL, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) files.push(...await sourceFiles(new URL(`${entry.name}/`, dir), `${path}/`));
    else if (entry.name.endsWith(".ts")) files.push(path);
  }
  return files;
}

/** `api/middleware.ts` → `api`; a file at the root → `.`. */
const folderOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".");

/** Folder → the other folders of `_shared` it imports from. */
async function folderImports(): Promise<Map<string, Set<string>>> {
  const edges = new Map<string, Set<string>>();
  for (const file of await sourceFiles(sharedRoot)) {
    const text = await Deno.readTextFile(new URL(file, sharedRoot));
    const from = folderOf(file);
    for (const match of text.matchAll(/(?:from|import)\s+"(\.{1,2}\/[^"]+)"/g)) {
      const target = new URL(match[1], new URL(file, sharedRoot)).href;
      if (!target.startsWith(sharedRoot.href)) continue;
      const to = folderOf(target.slice(sharedRoot.href.length));
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  return edges;
}

function cycles(edges: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  const reaches = (start: string, goal: string, seen = new Set<string>()): boolean => {
    for (const next of edges.get(start) ?? []) {
      if (next === goal) return true;
      if (!seen.has(next)) {
        seen.add(next);
        if (reaches(next, goal, seen)) return true;
      }
    }
    return false;
  };
  for (const [from, targets] of edges) {
    for (const to of targets) if (reaches(to, from)) found.push(`${from} → ${to} → … → ${from}`);
  }
  return found.sort();
}

Deno.test("the _shared folders import each other without cycles", async () => {
  assertEquals(cycles(await folderImports()), []);
});

Deno.test("services and MCP tools do not import the REST layer; the contract imports no other folder", async () => {
  const edges = await folderImports();
  for (const folder of ["watchlist", "check", "availability", "mcp", "daily_limit", "contract", "http"]) {
    assertEquals(edges.get(folder)?.has("api") ?? false, false, `${folder} imports api/`);
  }
  assertEquals([...edges.get("contract") ?? []], [], "contract/ imports only zod");
});

/** Folder → its layer's position, from the `layers` block of docs/architecture.md. */
async function layerOrder(): Promise<Map<string, number>> {
  const doc = await Deno.readTextFile(new URL("../../docs/architecture.md", import.meta.url));
  const block = doc.match(/```layers\n([\s\S]*?)```/);
  if (!block) throw new Error("docs/architecture.md has no `layers` block");
  const order = new Map<string, number>();
  block[1].trim().split("\n").forEach((line, position) => {
    for (const folder of line.slice(line.indexOf(":") + 1).trim().split(/\s+/)) order.set(folder, position);
  });
  return order;
}

Deno.test("every _shared folder has a layer, and imports only from its own layer or the ones above it", async () => {
  const order = await layerOrder();
  const folders = new Set((await sourceFiles(sharedRoot)).map(folderOf));
  assertEquals([...folders].filter((folder) => !order.has(folder)).sort(), [], "folders without a layer");
  const upward: string[] = [];
  for (const [from, targets] of await folderImports()) {
    for (const to of targets) if (order.get(to)! > order.get(from)!) upward.push(`${from} → ${to}`);
  }
  assertEquals(upward.sort(), []);
});
