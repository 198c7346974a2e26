/**
 * Builds the app (app/) into static files in app/dist: `deno bundle` (esbuild, minified, for browsers) of
 * app/src/main.tsx into app.js, plus index.html and styles.css. `deno bundle` is in Deno 2.4 and later; on
 * an older Deno (the tests' 2.1.4) the tools' Deno is run through npx. A config.json is written only when
 * given (static hosts; the local server serves its own). The static hosts' own files (`_headers`,
 * `_redirects`, `vercel.json`: the security headers and the SPA fallback, ./headers.ts) are always written,
 * their content security policy naming the project's URL when the config does.
 */
import { join } from "node:path";
import { repoRoot } from "../paths.ts";
import { type HostConfig, hostFiles } from "./headers.ts";

export const appDir = join(repoRoot, "app");
export const appDistDir = join(appDir, "dist");
const toolsDeno = "deno@2.9.6";

function denoWithBundle(): { command: string; prefix: string[] } {
  const [major, minor] = Deno.version.deno.split(".").map(Number);
  if (major > 2 || (major === 2 && minor >= 4)) return { command: Deno.execPath(), prefix: [] };
  // `deno task test` names its own Deno (the tools' one) to the tests it runs on Deno 2.1.
  const tools = Deno.env.get("TOOLS_DENO");
  if (tools) return { command: tools, prefix: [] };
  return { command: "npx", prefix: ["-y", toolsDeno] };
}

export interface BuildResult {
  dir: string;
  jsBytes: number;
}

export async function buildApp(
  options: { config?: Record<string, string> & HostConfig; quiet?: boolean } = {},
): Promise<BuildResult> {
  await Deno.mkdir(appDistDir, { recursive: true });
  const { command, prefix } = denoWithBundle();
  const output = await new Deno.Command(command, {
    args: [
      ...prefix,
      "bundle",
      "--quiet",
      "--platform=browser",
      "--minify",
      "--lock=deno.tools.lock",
      "--output",
      join(appDistDir, "app.js"),
      join(appDir, "src", "main.tsx"),
    ],
    cwd: repoRoot,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`deno bundle failed:\n${new TextDecoder().decode(output.stderr)}`);
  }
  for (const file of ["index.html", "styles.css"]) {
    await Deno.copyFile(join(appDir, file), join(appDistDir, file));
  }
  if (options.config) {
    await Deno.writeTextFile(join(appDistDir, "config.json"), JSON.stringify(options.config, null, 2) + "\n");
  }
  for (const [name, text] of Object.entries(hostFiles(options.config ?? {}))) {
    await Deno.writeTextFile(join(appDistDir, name), text);
  }
  const jsBytes = (await Deno.stat(join(appDistDir, "app.js"))).size;
  return { dir: appDistDir, jsBytes };
}
