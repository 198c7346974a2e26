/** Domain-name normalisation (UTS #46 + Public Suffix List) against the WHATWG URL parser alone. */
import { normalizeDomainName } from "../supabase/functions/_shared/domain/normalize.ts";

const inputs = ["Example.COM.", "bücher.de", "www.example.co.uk", "shop.example.com.au", "xn--bcher-kva.de"];

Deno.bench("new URL(…).hostname", { group: "normalize", baseline: true }, () => {
  for (const input of inputs) new URL(`http://${input}`).hostname;
});

Deno.bench("normalizeDomainName", { group: "normalize" }, () => {
  for (const input of inputs) normalizeDomainName(input);
});
