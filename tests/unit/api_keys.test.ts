/**
 * The new Supabase API keys of the local stack and the role each stands for (platform/secrets.ts), as
 * Supabase's gateway maps them: publishable → anon, secret → service_role, anything else → no key.
 */
import {
  keysOfJson,
  localPublishableKey,
  localSecretKey,
  namedKeysJson,
  roleOfApiKey,
} from "../../platform/secrets.ts";
import { assertEquals } from "../support/assert.ts";

const noEnv = () => undefined;

Deno.test("the local keys have the new formats", () => {
  assertEquals(localPublishableKey.startsWith("sb_publishable_"), true);
  assertEquals(localSecretKey.startsWith("sb_secret_"), true);
  assertEquals(keysOfJson(namedKeysJson(localSecretKey)), [localSecretKey]);
});

Deno.test("without configured keys, the local publishable key is anon and the local secret key service_role", () => {
  assertEquals(roleOfApiKey(localPublishableKey, noEnv), "anon");
  assertEquals(roleOfApiKey(localSecretKey, noEnv), "service_role");
  assertEquals(roleOfApiKey("sb_secret_other", noEnv), undefined);
  assertEquals(roleOfApiKey("", noEnv), undefined);
  assertEquals(roleOfApiKey(null, noEnv), undefined);
});

Deno.test("configured keys (JSON of named keys) and the legacy JWT keys map to their roles", () => {
  const env: Record<string, string> = {
    SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_a","web":"sb_publishable_b"}',
    SUPABASE_SECRET_KEYS: '{"default":"sb_secret_a"}',
    SUPABASE_ANON_KEY: "eyJ.anon",
    SUPABASE_SERVICE_ROLE_KEY: "eyJ.service",
  };
  const read = (name: string) => env[name];
  assertEquals(roleOfApiKey("sb_publishable_b", read), "anon");
  assertEquals(roleOfApiKey("sb_secret_a", read), "service_role");
  assertEquals(roleOfApiKey("eyJ.anon", read), "anon");
  assertEquals(roleOfApiKey("eyJ.service", read), "service_role");
  // The configured sets replace the local defaults.
  assertEquals(roleOfApiKey(localSecretKey, read), undefined);
  assertEquals(roleOfApiKey(localPublishableKey, read), undefined);
});

Deno.test("a malformed key set is no keys", () => {
  assertEquals(keysOfJson("not json"), []);
  assertEquals(keysOfJson('["sb_secret_a"]'), []);
  assertEquals(
    roleOfApiKey("sb_secret_a", (name) => name === "SUPABASE_SECRET_KEYS" ? "[" : undefined),
    undefined,
  );
});
