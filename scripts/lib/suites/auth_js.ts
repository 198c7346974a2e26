/**
 * Runs auth-js's own test suite (supabase-js `packages/core/auth-js/test`, jest) against the local Auth
 * stand-in, from a supabase-js checkout the developer fetched (never copied into this repository). The suite
 * is copied to a temporary folder; only what points it at a server changes: the Auth URL it hard-codes
 * (the CLI's `http://127.0.0.1:54321`) becomes the local gateway's. Its dependencies are installed there with
 * npm (the workspace's `catalog:` versions resolved from pnpm-workspace.yaml); its signing key is made by its
 * own `generate-signing-keys.js`, and the API keys the supabase CLI would derive from it (the same claims
 * test/lib/clients.ts signs) are the gateway's keys. The stand-in reads the suite's own
 * `test/supabase/config.toml` (AUTH_CONFIG_TOML), as `supabase start --workdir test` would.
 *
 * A case "reaches the server" when it sent at least one request to the gateway: a jest setup file in the
 * temporary copy wraps `fetch` and records the running test's name. Cases are grouped by feature
 * (`featureOf`); the features this project keeps switched off are listed apart (`excludedFeatures`).
 */
import { join } from "node:path";

export interface CaseResult {
  file: string;
  name: string;
  status: "passed" | "failed" | "pending" | "skipped" | "todo" | "disabled" | "focused";
  reachedServer: boolean;
  feature: string;
  failure?: string;
}

/** The features off in this project (and on hosted for it): their cases are counted apart, not in the target. */
export const excludedFeatures = ["passkeys / WebAuthn", "SSO", "web3", "id_token grant", "phone"] as const;

/** A case's feature, from its file and describe titles (first matching rule). */
export function featureOf(file: string, ancestors: string[], title: string): string {
  const path = [...ancestors, title].join(" › ");
  const rules: [RegExp, string][] = [
    [/passkey|webauthn/i, "passkeys / WebAuthn"],
    [/\bSSO\b/, "SSO"],
    [/web3|ethereum|solana/i, "web3"],
    [/ID Token/i, "id_token grant"],
    [/phone|sms/i, "phone"],
    [/OAuth Admin/, "OAuth server admin API"],
    [/MFA/, "MFA (TOTP)"],
    [/GoTrueAdminApi › (User creation|List users|Get user|User updates|User deletes)/, "admin users API"],
    [/generateLink|generate_link/i, "generate_link"],
    [/invite/i, "invite"],
    [/signInAnonymously|anonymous/i, "anonymous sign-ins"],
    [/Reauthentication|reauthenticate/i, "reauthenticate"],
    [/Identity Management|linkIdentity|unlinkIdentity|identities/i, "identity linking"],
    [/getClaims|fetchJwk|JWKS/i, "JWT claims and JWKS"],
    [/PKCE|pkce|exchangeCodeForSession/, "PKCE"],
    [/signInWithOtp|verifyOtp|Otp Verification|magic/i, "email OTP and magic links"],
    [/sign ?out/i, "sign-out"],
    [/third-party oAuth|signInWithOAuth/i, "OAuth providers (redirect URLs)"],
    [/refresh/i, "sessions and refresh"],
    [/Session/i, "sessions and refresh"],
    [/User management|Update User|updateUser|User registration|User authentication/, "user management"],
    [/Email Auth|signUp|signIn/i, "email sign-up and sign-in"],
  ];
  const subject = `${file.replace(/^.*\/test\//, "")} › ${path}`;
  for (const [pattern, feature] of rules) if (pattern.test(subject)) return feature;
  return "other client behaviour";
}

/** The auth-js package folder of a supabase-js checkout (or of an auth-js checkout itself). */
export async function authJsPackage(checkout: string): Promise<string> {
  for (const candidate of [join(checkout, "packages/core/auth-js"), checkout]) {
    try {
      await Deno.stat(join(candidate, "test/lib/clients.ts"));
      return candidate;
    } catch { /* next */ }
  }
  throw new Error(
    `${checkout} is not a supabase-js checkout: packages/core/auth-js/test/lib/clients.ts is missing ` +
      "(git clone https://github.com/supabase/supabase-js)",
  );
}

/** The `catalog:` versions of the checkout's pnpm-workspace.yaml (a flat `catalog:` block). */
export function pnpmCatalog(yaml: string): Record<string, string> {
  const catalog: Record<string, string> = {};
  const block = yaml.match(/^catalog:\s*\n((?:[ \t]+.*\n?|\s*\n|#.*\n)*)/m)?.[1] ?? "";
  for (const line of block.split("\n")) {
    const entry = line.match(/^\s+['"]?([^'":\s][^'":]*)['"]?\s*:\s*['"]?([^'"\s#]+)['"]?/);
    if (entry) catalog[entry[1]] = entry[2];
  }
  return catalog;
}

/** package.json with `catalog:` and `workspace:` specifiers resolved for plain npm. */
export function npmPackageJson(text: string, catalog: Record<string, string>): string {
  const manifest = JSON.parse(text);
  for (const field of ["dependencies", "devDependencies"]) {
    const deps = manifest[field] as Record<string, string> | undefined;
    if (!deps) continue;
    for (const [name, spec] of Object.entries(deps)) {
      if (spec.startsWith("catalog:")) {
        if (!catalog[name]) throw new Error(`pnpm catalog has no version for ${name}`);
        deps[name] = catalog[name];
      } else if (spec.startsWith("workspace:")) delete deps[name];
    }
  }
  delete manifest.scripts;
  return JSON.stringify(manifest, null, 2);
}

async function copyTree(from: string, to: string, skip: (name: string) => boolean): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (skip(entry.name)) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target, skip);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

async function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(command, { args, cwd, env, stdout: "piped", stderr: "piped" }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(`${command} is not installed: the suite runs on node (>= 20) with npm`);
    }
    throw error;
  }
  if (!output.success) {
    const text = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    throw new Error(`${command} ${args.join(" ")} failed:\n${text.slice(-3000)}`);
  }
  return new TextDecoder().decode(output.stdout);
}

export interface PreparedSuite {
  /** The temporary copy of the auth-js package. */
  dir: string;
  /** The suite's signing keys (GOTRUE_JWT_KEYS form). */
  signingKeys: string;
  /** The API keys the supabase CLI derives from that key (test/lib/clients.ts signs the same claims). */
  anonKey: string;
  serviceRoleKey: string;
  /** The suite's own Auth settings (what `supabase start --workdir test` reads). */
  configToml: string;
  root: string;
}

/** The jest setup file of the copy: records which test sent a request to the server under test. */
const probe = `
const fs = require('fs')
const target = process.env.SUITE_SERVER_URL
const out = process.env.SUITE_PROBE_FILE
const original = globalThis.fetch
if (original && target && out) {
  globalThis.fetch = function (input, init) {
    try {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input && input.url
      if (typeof url === 'string' && url.startsWith(target)) {
        const state = expect.getState()
        fs.appendFileSync(out, JSON.stringify({ path: state.testPath, name: state.currentTestName || null }) + '\\n')
      }
    } catch (_) {}
    return original.apply(this, arguments)
  }
}
`;

/** The API keys as the supabase CLI derives them from the first signing key (node, in the copy). */
const keyScript = `
const jwt = require('jsonwebtoken'); const crypto = require('crypto'); const fs = require('fs')
const key = JSON.parse(fs.readFileSync('test/supabase/signing_keys.json', 'utf8'))[0]
const pem = crypto.createPrivateKey({ key, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' })
const sign = (role) => jwt.sign({ iss: 'supabase-demo', role, exp: 1983812996, iat: 1768925145 }, pem,
  { algorithm: 'RS256', keyid: key.kid })
process.stdout.write(JSON.stringify({ anon: sign('anon'), service_role: sign('service_role') }))
`;

/** Copies the auth-js package of `checkout` to a temporary folder and installs its test dependencies. */
export async function prepareSuite(checkout: string, log: (line: string) => void): Promise<PreparedSuite> {
  const source = await authJsPackage(checkout);
  const workspace = join(source, "../../..");
  const root = await Deno.makeTempDir({ prefix: "auth-js-suite-" });
  const dir = join(root, "packages/core/auth-js");
  await copyTree(source, dir, (name) => ["node_modules", "example", "coverage", "dist"].includes(name));
  for (const file of ["tsconfig.base.json", "tsconfig.json"]) {
    await Deno.copyFile(join(workspace, file), join(root, file)).catch(() => {});
  }
  const catalog = pnpmCatalog(
    await Deno.readTextFile(join(workspace, "pnpm-workspace.yaml")).catch(() => ""),
  );
  const manifest = join(dir, "package.json");
  await Deno.writeTextFile(manifest, npmPackageJson(await Deno.readTextFile(manifest), catalog));
  log(`npm install (test dependencies) in ${dir} …`);
  await run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], dir);
  await run("node", ["test/generate-signing-keys.js"], dir);
  const keys = JSON.parse(await run("node", ["-e", keyScript], dir));
  await Deno.writeTextFile(join(dir, "suite-probe.js"), probe);
  return {
    dir,
    root,
    signingKeys: await Deno.readTextFile(join(dir, "test/supabase/signing_keys.json")),
    anonKey: keys.anon,
    serviceRoleKey: keys.service_role,
    configToml: join(dir, "test/supabase/config.toml"),
  };
}

/** Points the copy's hard-coded Auth URL (the CLI's API port) at `serverUrl`. */
export async function pointAt(suite: PreparedSuite, serverUrl: string): Promise<void> {
  const clients = join(suite.dir, "test/lib/clients.ts");
  const text = await Deno.readTextFile(clients);
  await Deno.writeTextFile(clients, text.replaceAll("http://127.0.0.1:54321", serverUrl));
}

interface JestAssertion {
  ancestorTitles: string[];
  title: string;
  fullName: string;
  status: CaseResult["status"];
  failureMessages: string[];
}

/** Runs the suite (the CLI's jest config, without coverage) and reads which cases reached `serverUrl`. */
export async function runSuite(
  suite: PreparedSuite,
  serverUrl: string,
  only: string[] = [],
): Promise<CaseResult[]> {
  const probeFile = join(suite.root, "probe.jsonl");
  const resultsFile = join(suite.root, "results.json");
  const baseConfig = await Deno.stat(join(suite.dir, "jest.config.cli.js")).then(
    () => "./jest.config.cli.js",
    () => "./jest.config.js",
  );
  await Deno.writeTextFile(
    join(suite.dir, "jest.suite.config.js"),
    `const base = require('${baseConfig}')\nmodule.exports = { ...base, collectCoverage: false, ` +
      `testPathIgnorePatterns: [...(base.testPathIgnorePatterns || []), '/docker-tests/'], ` +
      `setupFilesAfterEnv: [...(base.setupFilesAfterEnv || []), '<rootDir>/suite-probe.js'] }\n`,
  );
  const child = new Deno.Command("node", {
    args: [
      "node_modules/jest/bin/jest.js",
      "--config",
      "jest.suite.config.js",
      "--runInBand",
      "--forceExit",
      "--json",
      `--outputFile=${resultsFile}`,
      ...only,
    ],
    cwd: suite.dir,
    env: { SUITE_SERVER_URL: serverUrl, SUITE_PROBE_FILE: probeFile },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = new TextDecoder().decode((await child.output()).stderr);
  let results: { testResults: { name: string; assertionResults: JestAssertion[]; message: string }[] };
  try {
    results = JSON.parse(await Deno.readTextFile(resultsFile));
  } catch {
    throw new Error(`jest wrote no results:\n${stderr.slice(-3000)}`);
  }
  const reached = new Set<string>();
  const probeText = await Deno.readTextFile(probeFile).catch(() => "");
  for (const line of probeText.split("\n").filter(Boolean)) {
    const { path, name } = JSON.parse(line) as { path: string; name: string | null };
    if (name) reached.add(`${path}\u0000${name}`);
  }
  const cases: CaseResult[] = [];
  for (const file of results.testResults) {
    for (const assertion of file.assertionResults) {
      cases.push({
        file: file.name.replace(`${suite.dir}/`, ""),
        name: assertion.fullName,
        status: assertion.status,
        reachedServer: reached.has(`${file.name}\u0000${assertion.fullName}`),
        feature: featureOf(file.name, assertion.ancestorTitles, assertion.title),
        failure: assertion.failureMessages[0]?.split("\n").slice(0, 6).join("\n"),
      });
    }
  }
  return cases;
}

export interface FeatureCount {
  feature: string;
  passed: number;
  total: number;
  excluded: boolean;
}

/** Server cases passed/total by feature; excluded features last. */
export function countByFeature(cases: CaseResult[]): FeatureCount[] {
  const counts = new Map<string, FeatureCount>();
  for (const result of cases.filter((one) => one.reachedServer)) {
    const count = counts.get(result.feature) ??
      {
        feature: result.feature,
        passed: 0,
        total: 0,
        excluded: (excludedFeatures as readonly string[]).includes(result.feature),
      };
    count.total++;
    if (result.status === "passed") count.passed++;
    counts.set(result.feature, count);
  }
  return [...counts.values()].sort((a, b) =>
    Number(a.excluded) - Number(b.excluded) || a.feature.localeCompare(b.feature)
  );
}

/** The printed summary: one line a feature, the target line, then the failing server cases. */
export function summary(cases: CaseResult[], verbose: boolean): string {
  const counts = countByFeature(cases);
  const lines = ["auth-js server cases by feature (passed/total):"];
  const width = Math.max(...counts.map((count) => count.feature.length), 10);
  for (const count of counts) {
    const mark = count.excluded ? "  (off in this project; excluded)" : "";
    lines.push(`  ${count.feature.padEnd(width)}  ${count.passed}/${count.total}${mark}`);
  }
  const all = counts.reduce((sum, c) => ({ p: sum.p + c.passed, t: sum.t + c.total }), { p: 0, t: 0 });
  const counted = counts.filter((count) => !count.excluded)
    .reduce((sum, c) => ({ p: sum.p + c.passed, t: sum.t + c.total }), { p: 0, t: 0 });
  lines.push(`  all server cases: ${all.p}/${all.t}`);
  const percent = counted.t === 0 ? 0 : Math.round((1000 * counted.p) / counted.t) / 10;
  lines.push(`  without the excluded features: ${counted.p}/${counted.t} (${percent} %)`);
  const offline = cases.filter((one) => !one.reachedServer);
  lines.push(
    `  (client-only cases, not counted: ${
      offline.filter((c) => c.status === "passed").length
    }/${offline.length})`,
  );
  const failing = cases.filter((one) => one.reachedServer && one.status !== "passed");
  if (failing.length > 0) {
    lines.push("", "failing server cases:");
    for (const result of failing) {
      lines.push(`  [${result.feature}] ${result.file} › ${result.name} (${result.status})`);
      if (verbose && result.failure) lines.push(result.failure.replace(/^/gm, "      "));
    }
  }
  return lines.join("\n");
}
