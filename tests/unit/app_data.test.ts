/** The app's pure pieces: how failures are told (what to do next), splitting pasted names, the CSV export. */
import { describeFailure, overQuotaNext } from "../../app/src/data/errors.ts";
import { namesFromText, watchlistCsv } from "../../app/src/data/csv.ts";
import { readConfig } from "../../app/src/config.ts";
import { domainInput } from "../../app/src/data/domain_input.ts";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";

Deno.test("failures say what to do next", () => {
  const cases: [Parameters<typeof describeFailure>[0], RegExp | undefined, string][] = [
    [{ network: true }, /try again; what you typed is still here/, "The server could not be reached."],
    [
      { status: 429, message: "Too many requests", resetAt: "2026-11-27T00:00:00Z" },
      /^Try again after /,
      "Too many requests",
    ],
    [
      { status: 400, code: "DW429", message: "DW429: Too many delivery log requests." },
      /Wait a little/,
      "Too many delivery log requests.",
    ],
    [
      { status: 400, code: "DWUPG", message: "DWUPG: Webhooks need Pro." },
      /^This needs Pro or higher\. See Account → Plan and limits/,
      "Webhooks need Pro.",
    ],
    [{ status: 401, code: "PGRST301", message: "JWT expired" }, /sign in again/, "JWT expired"],
    [{ status: 503, message: "Service unavailable" }, /try again in a minute/, "Service unavailable"],
    [
      { status: 400, code: "reauthentication_needed", message: "Password update requires reauthentication" },
      /Forgot password/,
      "Password update requires reauthentication",
    ],
    [
      { status: 400, code: "DW400", message: "DW400: Invalid domain names: x" },
      undefined,
      "Invalid domain names: x",
    ],
  ];
  for (const [input, next, message] of cases) {
    const told = describeFailure(input);
    assertEquals(told.message, message);
    if (next) assertMatch(told.next ?? "", next);
    else assertEquals(told.next, undefined);
  }
  assertEquals(overQuotaNext(0), undefined);
  assertMatch(overQuotaNext(3)!, /^3 name\(s\) did not fit .* still in the box/);
  for (const [input] of cases) {
    assert(!/deno task|--plan/.test(describeFailure(input).next ?? ""), "no command line for an end user");
  }
  assert(!/deno task/.test(overQuotaNext(3)!));
});

Deno.test("pasted text and CSV files become a list of names; the server judges them", () => {
  assertEquals(namesFromText("a.com\nb.org, c.net;d.io  e.dev\r\n\n"), [
    "a.com",
    "b.org",
    "c.net",
    "d.io",
    "e.dev",
  ]);
  assertEquals(namesFromText('domain\n"x.com"\ny.com'), ["x.com", "y.com"], "a header cell is skipped");
  assertEquals(namesFromText("Not A Name!"), ["Not", "A", "Name!"], "no rule here: the server refuses them");
  assertEquals(namesFromText("   "), []);
});

Deno.test("the watchlist CSV quotes what needs quoting", () => {
  const csv = watchlistCsv([{
    domain_name: "xn--bcher-kva.example",
    unicode_name: "bücher.example",
    status: "registered",
    added_at: "2026-01-01T00:00:00Z",
    last_checked_at: null,
    status_changed_at: null,
    expires_at: "2027-01-01T00:00:00Z",
    registrar: 'Example "Registrar", Inc.',
    predicted_drop_at: null,
    prediction_basis: null,
    unknown_reason: null,
    next_check_at: null,
    tags: ["clients", "q3"],
    note: 'Renew "soon", please',
  }]);
  const [header, row] = csv.split("\r\n");
  assertEquals(
    header,
    "domain_name,unicode_name,status,expires_at,registrar,last_checked_at,predicted_drop_at,added_at,tags,note",
  );
  assertEquals(
    row,
    'xn--bcher-kva.example,bücher.example,registered,2027-01-01T00:00:00Z,"Example ""Registrar"", Inc.",,,2026-01-01T00:00:00Z,"clients,q3","Renew ""soon"", please"',
  );
});

Deno.test("config.json needs the project URL and the publishable key", () => {
  const config = readConfig({ supabaseUrl: "https://ref.supabase.co/", publishableKey: "sb_publishable_x" });
  assertEquals(config.functionsUrl, "https://ref.supabase.co/functions/v1");
  assertEquals(config.supabaseUrl, "https://ref.supabase.co");
  let refused = false;
  try {
    readConfig({ supabaseUrl: "https://ref.supabase.co" });
  } catch {
    refused = true;
  }
  assert(refused);
  assertEquals(config.upgradeUrl, undefined, "no APP_UPGRADE_URL: no Upgrade button");
  const upgrade = (value: unknown) => readConfig({ ...baseConfig, upgradeUrl: value }).upgradeUrl;
  assertEquals(upgrade("https://buy.stripe.com/abc"), "https://buy.stripe.com/abc");
  assertEquals(upgrade("mailto:billing@example.com"), "mailto:billing@example.com");
  assertEquals(upgrade("javascript:alert(1)"), undefined);
  assertEquals(upgrade("data:text/html,x"), undefined);
  assertEquals(upgrade("not a url"), undefined);
  assertEquals(upgrade(42), undefined);
});

const baseConfig = { supabaseUrl: "https://ref.supabase.co", publishableKey: "sb_publishable_x" };

Deno.test("typed names go to the database in its stored form; anything else goes as typed, for it to refuse", () => {
  const cases: [string, string][] = [
    ["example.com", "example.com"],
    [" Example.COM ", "example.com"],
    ["bücher.de", "xn--bcher-kva.de"],
    ["BÜCHER.de", "xn--bcher-kva.de"],
    ["www.example.com", "www.example.com"], // a sub-domain: the database says why not
    ["example.com.", "example.com."], // the database says to drop the dot
    ["https://example.com/", "https://example.com/"],
    ["exa mple.com", "exa mple.com"],
    ["a_b.com", "a_b.com"],
    ["", ""],
  ];
  for (const [typed, sent] of cases) assertEquals(domainInput(typed), sent, typed);
});

Deno.test("an expired assistant connection request says to connect again from the assistant", () => {
  const told = describeFailure({
    status: 404,
    code: "oauth_authorization_not_found",
    message: "authorization not found",
  });
  assertEquals(told.message, "This connection request has expired or was already answered.");
  assert(told.next?.includes("go back to the assistant and connect again"), told.next);
});
