/**
 * docs/configuration.md and the code agree: every environment variable the functions read has a row in its
 * table (the ones Supabase provides, `SUPABASE_*`, may be left out), every row names a variable the code reads,
 * and a default written in the code (a number given to `intEnv`/`numberEnv`, a string after `env(…) ??`) is the
 * one the row states.
 */
import { assertEquals } from "../support/assert.ts";

const functionsRoot = new URL("../../supabase/functions/", import.meta.url);

async function sources(dir: URL): Promise<string[]> {
  const texts: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) texts.push(...await sources(new URL(`${entry.name}/`, dir)));
    else if (entry.name.endsWith(".ts")) texts.push(await Deno.readTextFile(new URL(entry.name, dir)));
  }
  return texts;
}

interface CodeVariable {
  name: string;
  /** The default as written in the code, when it is a literal. */
  default?: string;
}

async function variablesInCode(): Promise<Map<string, CodeVariable>> {
  const found = new Map<string, CodeVariable>();
  for (const text of await sources(functionsRoot)) {
    for (const match of text.matchAll(/(?:\benv|numberEnv|intEnv|Deno\.env\.get)\("([A-Z0-9_]+)"/g)) {
      if (!found.has(match[1])) found.set(match[1], { name: match[1] });
    }
    for (const match of text.matchAll(/(?:numberEnv|intEnv)\("([A-Z0-9_]+)", ([0-9_]+)/g)) {
      found.set(match[1], { name: match[1], default: match[2].replaceAll("_", "") });
    }
    for (const match of text.matchAll(/\benv\("([A-Z0-9_]+)"\) \?\? "([^"]+)"/g)) {
      found.set(match[1], { name: match[1], default: match[2] });
    }
  }
  return found;
}

/** Variable → its row's default cell, from the first table of docs/configuration.md. */
async function documentedVariables(): Promise<Map<string, string>> {
  const doc = await Deno.readTextFile(new URL("../../docs/configuration.md", import.meta.url));
  const rows = new Map<string, string>();
  // The functions' table is the first; later tables (the app's build settings) are not read by functions.
  const firstTable = doc.slice(doc.indexOf("\n|")).split(/\n(?!\|)/)[0];
  for (const line of firstTable.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const name = cells[1]?.match(/^`([A-Z0-9_]+)`$/)?.[1];
    if (name) rows.set(name, cells[3] ?? "");
  }
  return rows;
}

Deno.test("docs/configuration.md lists exactly the variables the functions read", async () => {
  const code = await variablesInCode();
  const documented = await documentedVariables();
  const providedBySupabase = (name: string) => name.startsWith("SUPABASE_");
  assertEquals(
    [...code.keys()].filter((name) => !documented.has(name) && !providedBySupabase(name)).sort(),
    [],
  );
  assertEquals([...documented.keys()].filter((name) => !code.has(name)).sort(), []);
});

Deno.test("docs/configuration.md states the defaults written in the code", async () => {
  const documented = await documentedVariables();
  const mismatches: string[] = [];
  for (const variable of (await variablesInCode()).values()) {
    const cell = documented.get(variable.name);
    if (variable.default === undefined || cell === undefined) continue;
    if (!cell.includes(`\`${variable.default}\``)) {
      mismatches.push(`${variable.name}: ${variable.default} ≠ ${cell}`);
    }
  }
  assertEquals(mismatches, []);
});
