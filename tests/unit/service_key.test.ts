/** The Auth admin key: SUPABASE_SERVICE_ROLE_KEY, else the new SUPABASE_SECRET_KEYS (JSON of named keys). */
import { serviceKeyFrom } from "../../supabase/functions/_shared/service_key.ts";
import { assertEquals } from "../support/assert.ts";

Deno.test("the legacy service-role key wins when Supabase provides it", () => {
  assertEquals(serviceKeyFrom("eyJ.legacy", '{"default":"sb_secret_new"}'), "eyJ.legacy");
});

Deno.test("without it, the default secret key, else the first one", () => {
  assertEquals(serviceKeyFrom(undefined, '{"default":"sb_secret_a","ops":"sb_secret_b"}'), "sb_secret_a");
  assertEquals(serviceKeyFrom(undefined, '{"ops":"sb_secret_b"}'), "sb_secret_b");
});

Deno.test("nothing usable is no key", () => {
  for (const value of [undefined, "", "not json", "[]", '"sb_secret_x"', "{}", '{"default":""}']) {
    assertEquals(serviceKeyFrom(undefined, value), undefined, String(value));
  }
});
