/**
 * The Deno that hosted Supabase Edge Functions run: edge-runtime vendors the Deno 2.1.4 crates
 * (`deno/Cargo.toml`: version 2.1.4; deno_lockfile 0.23.2, which reads lockfiles up to version 4).
 * `deno task test` runs the functions' tests and a type check on it, fetched from the npm registry.
 */
import { run } from "../../platform/run.ts";

export const hostedDenoVersion = "2.1.4";

/**
 * Deno 2.1 reads only lockfile version 4: `deno.lock` is written by it and read by it and by the deploy
 * bundler; the newer Deno of the tools keeps its own `deno.tools.lock` (version 5).
 */
export const hostedLockfile = "deno.lock";

/** Deno 2.1's own certificate store cannot verify the registry on every machine; the system's can. */
export const hostedDenoEnv = { DENO_TLS_CA_STORE: "system" };

/** The path of the Deno 2.1.4 executable (downloaded by npx on first use). */
export async function hostedDenoPath(): Promise<string> {
  const out = await run("npx", ["-y", `deno@${hostedDenoVersion}`, "eval", "console.log(Deno.execPath())"], {
    env: hostedDenoEnv,
    quiet: true,
  });
  const path = out.trim().split("\n").at(-1)!;
  const version = await run(path, ["--version"], { quiet: true });
  if (!version.startsWith(`deno ${hostedDenoVersion}`)) {
    throw new Error(`Expected Deno ${hostedDenoVersion} at ${path}, got: ${version.split("\n")[0]}`);
  }
  return path;
}
