/**
 * The extensions the local cluster offers beyond Debian's packages, and the rights Supabase gives `postgres`
 * over them. On hosted, supautils lets `postgres` (not a superuser) create the extensions Supabase lists as
 * privileged (pg_cron, pg_net, pgtap, …): the extension's script runs as the superuser. Here the same comes
 * from PostgreSQL's own `trusted` flag in the extension's control file. So the migrations create pg_cron and
 * pg_net themselves, exactly as a deploy to a new hosted project must (docs/database.md, "A new project").
 *
 * - pg_cron (Debian's postgresql-15-cron): `trusted = true` is added to its control file.
 * - pg_net: a stand-in (platform/pg_net/pg_net.control and its script; SQL only, no Debian package exists),
 *   whose background worker is platform/pg_net/worker.ts.
 * - supabase_vault: a stand-in (platform/postgres/extensions/), created by the bootstrap as on every project.
 * - pgtap (Debian's postgresql-15-pgtap): the same (it says `superuser = false`, which would make postgres own
 *   its functions, and postgres's default privileges give new functions to nobody); the pgTAP tests create it.
 *
 * Files are written into PostgreSQL's extension folder only when missing or different (root, as apt-get).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../paths.ts";

export const extensionDir = "/usr/share/postgresql/15/extension";

/** The stand-ins' files: source in this repository → name in PostgreSQL's extension folder. */
export const standInFiles: { source: string; name: string }[] = [
  { source: join(repoRoot, "platform", "pg_net", "pg_net.control"), name: "pg_net.control" },
  { source: join(repoRoot, "platform", "pg_net", "pg_net--0.20.4.sql"), name: "pg_net--0.20.4.sql" },
  {
    source: join(repoRoot, "platform", "postgres", "extensions", "supabase_vault.control"),
    name: "supabase_vault.control",
  },
  {
    source: join(repoRoot, "platform", "postgres", "extensions", "supabase_vault--0.3.1.sql"),
    name: "supabase_vault--0.3.1.sql",
  },
];

/** Extensions from Debian's packages that `postgres` may create, as supautils lets it on Supabase. */
export const trustedPackaged = ["pg_cron", "pgtap"];

/**
 * A control file's text with `trusted = true` and without `superuser = false`: its script then runs as the
 * superuser whoever creates it, as supautils runs a privileged extension's (unchanged when already so).
 */
export function withTrusted(control: string): string {
  const lines = control.replace(/\n$/, "").split("\n")
    .filter((line) => !/^\s*(trusted|superuser)\s*=/.test(line));
  return `${[...lines, "trusted = true"].join("\n")}\n`;
}

async function writeIfDifferent(path: string, text: string): Promise<void> {
  const current = existsSync(path) ? await Deno.readTextFile(path) : null;
  if (current === text) return;
  // Write then rename, so a cluster reading the folder meanwhile never sees half a file.
  const temporary = `${path}.${Deno.pid}.tmp`;
  await Deno.writeTextFile(temporary, text);
  await Deno.rename(temporary, path);
}

/** Puts the stand-ins into PostgreSQL's extension folder and marks the packaged ones trusted. */
export async function ensureExtensionFiles(): Promise<void> {
  for (const file of standInFiles) {
    await writeIfDifferent(join(extensionDir, file.name), await Deno.readTextFile(file.source));
  }
  for (const name of trustedPackaged) {
    const control = join(extensionDir, `${name}.control`);
    await writeIfDifferent(control, withTrusted(await Deno.readTextFile(control)));
  }
}
