import { assertEquals } from "../support/assert.ts";
import {
  normaliseStatus,
  parseDomainResponse,
} from "../../supabase/functions/_shared/rdap/domain_response.ts";

async function fixture(name: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(new URL(`../fixtures/rdap/${name}`, import.meta.url)));
}

Deno.test("thin registry answer: upper-case name, escaped slashes, registrar referral", async () => {
  assertEquals(parseDomainResponse(await fixture("thin_registry_upper_case.200.json")), {
    ldhName: "example-thin.com",
    unicodeName: null,
    status: ["client delete prohibited", "client transfer prohibited", "server update prohibited"],
    registrar: "Example Registrar, Inc.",
    registrationDate: "1999-03-15T05:00:00.000Z",
    expirationDate: "2030-03-15T04:00:00.000Z",
    lastChangedDate: "2024-02-11T18:22:09.000Z",
    registrarRdapUrl: "https://rdap.registrar.test/rdap/domain/EXAMPLE-THIN.COM",
  });
});

Deno.test("registrar answer: +0000 offsets, `last update`, vCard org without fn", async () => {
  const domain = parseDomainResponse(await fixture("registrar_offset_without_colon.200.json"))!;
  assertEquals(domain.registrar, "Example Registrar, Inc.");
  assertEquals(domain.expirationDate, "2030-03-14T07:00:00.000Z");
  assertEquals(domain.registrationDate, "1999-03-15T08:00:00.000Z");
  assertEquals(domain.lastChangedDate, "2024-02-11T18:22:09.000Z");
  assertEquals(domain.registrarRdapUrl, null);
});

Deno.test("`soft expiration`, a date without zone, no links, no registrar", async () => {
  const domain = parseDomainResponse(await fixture("soft_expiration_no_zone.200.json"))!;
  assertEquals(domain.expirationDate, "2025-12-12T00:00:00.000Z");
  assertEquals(domain.lastChangedDate, "2024-10-28T11:02:20.000Z");
  assertEquals(domain.registrar, null);
  assertEquals(domain.registrarRdapUrl, null);
  assertEquals(domain.unicodeName, "example.is");
});

Deno.test("space-separated dates; `related` links that are not RDAP are no referral", async () => {
  const domain = parseDomainResponse(await fixture("space_separated_dates.200.json"))!;
  assertEquals(domain.registrationDate, "2017-09-24T19:25:32.000Z");
  assertEquals(domain.expirationDate, "2025-09-24T23:59:59.000Z");
  assertEquals(domain.registrar, "PT Some Registrar");
  assertEquals(domain.registrarRdapUrl, null);
});

Deno.test("no status and no expiration event", async () => {
  const domain = parseDomainResponse(await fixture("no_status_no_expiration.200.json"))!;
  assertEquals(domain.status, []);
  assertEquals(domain.expirationDate, null);
  assertEquals(domain.registrationDate, "2017-01-24T12:09:23.000Z");
  assertEquals(domain.registrar, "Example Registrar AS");
});

Deno.test("pending delete with an end-of-time expiry", async () => {
  const domain = parseDomainResponse(await fixture("pending_delete_redemption.200.json"))!;
  assertEquals(domain.status, ["pending delete", "redemption period"]);
  assertEquals(domain.expirationDate, null);
  assertEquals(domain.registrationDate, "1999-01-01T00:00:00.000Z");
});

Deno.test("trailing dots, `.0Z` fractions, a link without rel, a `related` link back to self", async () => {
  const domain = parseDomainResponse(await fixture("trailing_dots_fraction.200.json"))!;
  assertEquals(domain.ldhName, "example.top");
  assertEquals(domain.unicodeName, "example.top");
  assertEquals(domain.expirationDate, "2031-11-17T16:00:29.000Z");
  assertEquals(domain.lastChangedDate, "2020-09-14T20:40:57.009Z");
  assertEquals(domain.registrar, "成都示例科技有限公司");
  assertEquals(domain.registrarRdapUrl, null);
});

Deno.test("two registrar entities, capitalised roles, `secureDns`, non-standard statuses", async () => {
  const domain = parseDomainResponse(await fixture("two_registrars_odd_casing.200.json"))!;
  assertEquals(domain.registrar, "PG", "the first registrar entity is used");
  assertEquals(domain.status, ["server update prohibited", "server recover prohibited", "inactive"]);
  assertEquals(domain.lastChangedDate, "2024-06-12T22:09:39.881Z");
});

Deno.test("`redacted`, no handle, `related` listed before `self`", async () => {
  const domain = parseDomainResponse(await fixture("redacted_related_first.200.json"))!;
  assertEquals(domain.registrarRdapUrl, "https://rdap.registrar.test/rdap/domain/example.org");
  assertEquals(domain.registrar, "Example Registrar");
  assertEquals(domain.expirationDate, "2027-01-13T00:12:14.000Z");
  assertEquals(domain.registrationDate, "2001-01-13T00:12:14.754Z");
});

Deno.test("EPP-style statuses, a capitalised event name, no objectClassName, handle as registrar", async () => {
  const domain = parseDomainResponse(await fixture("epp_style_status.200.json"))!;
  assertEquals(domain.ldhName, "legacy-style.test");
  assertEquals(domain.status, ["pending delete", "client hold", "redemption period"]);
  assertEquals(domain.expirationDate, "2026-01-01T00:00:00.000Z");
  assertEquals(domain.registrar, "REG-LEGACY");
});

Deno.test("what is not a domain object gives null", async () => {
  assertEquals(parseDomainResponse(await fixture("error_object.404.json")), null);
  assertEquals(parseDomainResponse({ objectClassName: "entity", handle: "X" }), null);
  assertEquals(parseDomainResponse("<html></html>"), null);
  assertEquals(parseDomainResponse(null), null);
  assertEquals(parseDomainResponse([{ ldhName: "x.test" }]), null);
});

Deno.test("a related link needs both rel=related and the RDAP media type", () => {
  const base = { objectClassName: "domain", ldhName: "x.test" };
  const referral = (link: Record<string, unknown>) =>
    parseDomainResponse({ ...base, links: [link] })!.registrarRdapUrl;
  assertEquals(referral({ rel: "related", href: "https://r.test/domain/x.test" }), null);
  assertEquals(
    referral({ rel: "RELATED", type: "application/rdap+json; charset=utf-8", href: "https://r.test/d" }),
    "https://r.test/d",
  );
  assertEquals(referral({ rel: "related", type: "application/rdap+json", href: "/relative" }), null);
  assertEquals(referral({ rel: "related", type: "application/rdap+json", href: "mailto:x@r.test" }), null);
});

Deno.test("status spelling is normalised", () => {
  assertEquals(normaliseStatus("pendingDelete"), "pending delete");
  assertEquals(normaliseStatus("PENDING_DELETE"), "pending delete");
  assertEquals(normaliseStatus("  Redemption   Period "), "redemption period");
  assertEquals(normaliseStatus("client-transfer-prohibited"), "client transfer prohibited");
});
