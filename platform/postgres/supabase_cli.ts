/**
 * The real supabase CLI, from the npm registry (the last release whose npm package ships this platform's
 * build), run with npx. `deno task start` and `deno task test` apply the migrations with its `db push`, as
 * a deploy to hosted Supabase does. Telemetry is off: the only network here is loopback.
 */
import { repoRoot } from "../paths.ts";

export const supabaseCliVersion = "2.117.0";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `supabase <args>` in the repository (its `supabase/` folder is the project); never throws. */
export async function supabaseCli(args: string[]): Promise<CliResult> {
  const output = await new Deno.Command("npx", {
    args: ["-y", `supabase@${supabaseCliVersion}`, ...args, "--workdir", repoRoot],
    cwd: repoRoot,
    env: { DO_NOT_TRACK: "1", SUPABASE_TELEMETRY_DISABLED: "1", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    // npm's own notices (e.g. about the machine's npmrc) are not the CLI's.
    stderr: decoder.decode(output.stderr).split("\n").filter((line) => !line.startsWith("npm warn")).join(
      "\n",
    ),
  };
}

/** Like `supabaseCli`, but throws with the CLI's whole output when it fails. */
export async function requireSupabaseCli(args: string[]): Promise<CliResult> {
  const result = await supabaseCli(args);
  if (result.code !== 0) {
    throw new Error(
      `supabase ${args[0]} ${args[1] ?? ""} failed (exit ${result.code}):\n${result.stdout}${result.stderr}`,
    );
  }
  return result;
}

/** The migration files `supabase db push` reported applying ("Applying migration <file>..."). */
export function appliedMigrationFiles(stderr: string): string[] {
  return [...stderr.matchAll(/^Applying migration (\S+\.sql)\.\.\.$/gm)].map((match) => match[1]);
}

/**
 * Pushes every pending migration to the database at `url` (a connection string the CLI may use over TLS:
 * it refuses a plain connection to any database but its own local one). Returns the files it applied.
 */
export async function pushMigrations(url: string): Promise<string[]> {
  const result = await requireSupabaseCli(["db", "push", "--db-url", url, "--yes"]);
  return appliedMigrationFiles(result.stderr);
}
