/** Parsing an RDAP domain answer: JSON.parse alone against JSON.parse plus the tolerant domain parser. */
import { parseDomainResponse } from "../supabase/functions/_shared/rdap/domain_response.ts";

const fixture = await Deno.readTextFile(
  new URL("../tests/fixtures/rdap/thin_registry_upper_case.200.json", import.meta.url),
);

Deno.bench("JSON.parse", { group: "rdap-parse", baseline: true }, () => {
  JSON.parse(fixture);
});

Deno.bench("JSON.parse + parseDomainResponse", { group: "rdap-parse" }, () => {
  parseDomainResponse(JSON.parse(fixture));
});
