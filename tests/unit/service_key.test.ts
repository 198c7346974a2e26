/**
 * The Auth admin key: the new SUPABASE_SECRET_KEYS (JSON of named keys, as Supabase injects it) first, the
 * legacy SUPABASE_SERVICE_ROLE_KEY as the fallback; the start-up notice names the source, never the key.
 */
import { serviceKeyFrom, serviceKeyNotice } from "../../supabase/functions/_shared/service_key.ts";
import { assert, assertEquals } from "../support/assert.ts";

Deno.test("the new secret key wins over the legacy service-role key", () => {
  assertEquals(serviceKeyFrom('{"default":"sb_secret_new"}', "eyJ.legacy"), {
    key: "sb_secret_new",
    source: "SUPABASE_SECRET_KEYS",
  });
});

Deno.test("the default secret key, else the first one", () => {
  assertEquals(
    serviceKeyFrom('{"default":"sb_secret_a","ops":"sb_secret_b"}', undefined)?.key,
    "sb_secret_a",
  );
  assertEquals(serviceKeyFrom('{"ops":"sb_secret_b"}', undefined)?.key, "sb_secret_b");
});

Deno.test("without a usable secret key, the legacy service-role key", () => {
  for (const value of [undefined, "", "not json", "[]", '"sb_secret_x"', "{}", '{"default":""}']) {
    assertEquals(
      serviceKeyFrom(value, "eyJ.legacy"),
      { key: "eyJ.legacy", source: "SUPABASE_SERVICE_ROLE_KEY" },
      String(value),
    );
  }
});

Deno.test("nothing usable is no key", () => {
  assertEquals(serviceKeyFrom('{"default":""}', undefined), undefined);
  assertEquals(serviceKeyFrom(undefined, ""), undefined);
});

Deno.test("the notice names which key is used and never contains it", () => {
  const secret = serviceKeyFrom('{"default":"sb_secret_verysecret"}', "eyJ.legacy-secret");
  const legacy = serviceKeyFrom(undefined, "eyJ.legacy-secret");
  const secretNotice = serviceKeyNotice(secret);
  const legacyNotice = serviceKeyNotice(legacy);
  assert(
    secretNotice.includes("SUPABASE_SECRET_KEYS") && !secretNotice.includes("SERVICE_ROLE"),
    secretNotice,
  );
  assert(legacyNotice.includes("legacy SUPABASE_SERVICE_ROLE_KEY"), legacyNotice);
  for (const notice of [secretNotice, legacyNotice, serviceKeyNotice(undefined)]) {
    assert(!notice.includes("verysecret") && !notice.includes("legacy-secret"), notice);
  }
  assert(serviceKeyNotice(undefined).includes("no secret key"));
});
