/** RDAP domain objects the fake registry serves in end-to-end tests. */
import { minimalDomain } from "../fakes/rdap_server.ts";

/** A registered name with its registration and expiration dates and its registrar. */
export function registeredDomain(
  name: string,
  expiresAt: Date,
  registrar = "Example Registrar, Inc.",
): Record<string, unknown> {
  return {
    ...minimalDomain(name),
    events: [
      { eventAction: "registration", eventDate: "2015-03-01T00:00:00Z" },
      { eventAction: "expiration", eventDate: expiresAt.toISOString() },
    ],
    entities: [{
      objectClassName: "entity",
      handle: "292",
      roles: ["registrar"],
      vcardArray: ["vcard", [["version", {}, "text", "4.0"], ["fn", {}, "text", registrar]]],
    }],
  };
}

/** `date` without its milliseconds (whole seconds). */
export function wholeSeconds(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}
