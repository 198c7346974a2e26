/** The look-up a judged request's connection uses: the judged addresses only, never a fresh resolution. */
import { assertEquals } from "../support/assert.ts";
import { judgedLookup } from "../../supabase/functions/_shared/net/judged_fetch.ts";
import type { JudgedTarget } from "../../supabase/functions/_shared/net/url_policy.ts";

const target: JudgedTarget = {
  url: "https://hooks.example.com/a",
  host: "hooks.example.com",
  addresses: [{ address: "192.0.2.10", family: 4 }, { address: "2001:db8::10", family: 6 }],
};

function ask(hostname: string, options: { family?: number | string; all?: boolean }) {
  return new Promise<{ error: string | null; address?: unknown; family?: number }>((resolve) =>
    judgedLookup(target)(
      hostname,
      options,
      (error, address, family) =>
        resolve({
          error: error ? (error as Error & { code?: string }).code ?? "error" : null,
          address,
          family,
        }),
    )
  );
}

Deno.test("judged look-up: every judged address, in the judge's order, or those of the family asked", async () => {
  assertEquals(await ask("hooks.example.com", { all: true }), {
    error: null,
    address: target.addresses,
    family: undefined,
  });
  assertEquals(await ask("hooks.example.com", {}), { error: null, address: "192.0.2.10", family: 4 });
  assertEquals(await ask("HOOKS.example.com", { family: 6 }), {
    error: null,
    address: "2001:db8::10",
    family: 6,
  });
  assertEquals(await ask("hooks.example.com", { family: "IPv4", all: true }), {
    error: null,
    address: [{ address: "192.0.2.10", family: 4 }],
    family: undefined,
  });
});

Deno.test("judged look-up: any other name is not found (nothing is resolved)", async () => {
  assertEquals((await ask("elsewhere.example.com", { all: true })).error, "ENOTFOUND");
  const v4only = { ...target, addresses: [{ address: "192.0.2.10", family: 4 as const }] };
  const answer = await new Promise<string | null>((resolve) =>
    judgedLookup(v4only)("hooks.example.com", { family: 6 }, (error) => resolve(error ? "error" : null))
  );
  assertEquals(answer, "error");
});
