/** The pure parts of `deno task suites:auth` (scripts/lib/suites/auth_js.ts). */
import {
  type CaseResult,
  countByFeature,
  featureOf,
  npmPackageJson,
  pnpmCatalog,
  summary,
} from "../../scripts/lib/suites/auth_js.ts";
import { assert, assertEquals } from "../support/assert.ts";

Deno.test("suites:auth: a case's feature from its file and describe titles", () => {
  const file = "/tmp/x/packages/core/auth-js/test/GoTrueApi.test.ts";
  assertEquals(featureOf(file, ["GoTrueAdminApi", "List users"], "listUsers()"), "admin users API");
  assertEquals(
    featureOf(file, ["GoTrueAdminApi", "User registration"], "generateLink supports signUp"),
    "generate_link",
  );
  assertEquals(
    featureOf(file, ["GoTrueAdminApi", "OAuth Admin", "Core Lifecycle"], "x"),
    "OAuth server admin API",
  );
  assertEquals(featureOf(file, ["GoTrueAdminApi", "MFA Admin"], "x"), "MFA (TOTP)");
  const client = "/tmp/x/packages/core/auth-js/test/GoTrueClient.test.ts";
  assertEquals(featureOf(client, ["WebAuthn MFA"], "enroll"), "passkeys / WebAuthn");
  assertEquals(featureOf(client, ["SSO Authentication"], "signInWithSSO"), "SSO");
  assertEquals(featureOf(client, ["Reauthentication"], "reauthenticate()"), "reauthenticate");
  assertEquals(featureOf(client, ["Somewhere"], "nothing known"), "other client behaviour");
});

Deno.test("suites:auth: pnpm catalog versions resolved for npm; workspace packages dropped", () => {
  const catalog = pnpmCatalog(
    "packages:\n  - 'packages/*'\n\ncatalog:\n  typescript: ~5.8.3\n  '@types/jest': 30.0.0\n  jest: 30.4.2\n\noverrides:\n  x: '1'\n",
  );
  assertEquals(catalog, { typescript: "~5.8.3", "@types/jest": "30.0.0", jest: "30.4.2" });
  const manifest = JSON.parse(npmPackageJson(
    JSON.stringify({
      scripts: { build: "tsc" },
      dependencies: { tslib: "2.8.1" },
      devDependencies: { jest: "catalog:", typescript: "catalog:", "@supabase/x": "workspace:*" },
    }),
    catalog,
  ));
  assertEquals(manifest.devDependencies, { jest: "30.4.2", typescript: "~5.8.3" });
  assertEquals(manifest.scripts, undefined);
});

Deno.test("suites:auth: counts only server cases, excluded features listed apart", () => {
  const cases: CaseResult[] = [
    { file: "a", name: "1", status: "passed", reachedServer: true, feature: "admin users API" },
    { file: "a", name: "2", status: "failed", reachedServer: true, feature: "admin users API" },
    { file: "a", name: "3", status: "failed", reachedServer: true, feature: "SSO" },
    { file: "a", name: "4", status: "passed", reachedServer: false, feature: "other client behaviour" },
  ];
  assertEquals(countByFeature(cases), [
    { feature: "admin users API", passed: 1, total: 2, excluded: false },
    { feature: "SSO", passed: 0, total: 1, excluded: true },
  ]);
  const text = summary(cases, false);
  assert(text.includes("without the excluded features: 1/2 (50 %)"), text);
  assert(text.includes("all server cases: 1/3"), text);
  assert(text.includes("[SSO] a › 3 (failed)"), text);
});
