/**
 * Reads an RDAP domain object (RFC 9083 §5.3) into the few facts the service uses, tolerating what
 * real servers send: upper-case or dotted names, camelCase statuses, missing `status`/`events`/`links`,
 * non-standard event names (`last update`, `soft expiration`), capitalised roles, and vCards with
 * `org` but no `fn`.
 */
import { parseRdapDate } from "./dates.ts";
import { isRecord } from "../encoding.ts";

export interface RdapDomain {
  /** ASCII name, lower case, no trailing dot; null when the server sent none. */
  ldhName: string | null;
  unicodeName: string | null;
  /** Status values in RDAP's spelling (`pending delete`), lower case. Empty when the server sent none. */
  status: string[];
  registrar: string | null;
  registrationDate: string | null;
  expirationDate: string | null;
  lastChangedDate: string | null;
  /** The registrar's RDAP record for this name (`rel=related`, `type=application/rdap+json`), if offered. */
  registrarRdapUrl: string | null;
}

const RDAP_MEDIA_TYPE = "application/rdap+json";

/** Event names in order of preference for each date. */
const REGISTRATION_EVENTS = ["registration"];
const EXPIRATION_EVENTS = ["expiration", "soft expiration"];
const LAST_CHANGED_EVENTS = ["last changed", "last update"];

/** The domain facts, or null when `body` is not a domain object (an error object, HTML decoded as a string…). */
export function parseDomainResponse(body: unknown): RdapDomain | null {
  if (!isRecord(body) || !isDomainObject(body)) return null;
  const events = readEvents(body.events);
  return {
    ldhName: normaliseName(body.ldhName),
    unicodeName: normaliseName(body.unicodeName),
    status: readStatus(body.status),
    registrar: readRegistrar(body.entities),
    registrationDate: firstEventDate(events, REGISTRATION_EVENTS),
    expirationDate: firstEventDate(events, EXPIRATION_EVENTS),
    lastChangedDate: firstEventDate(events, LAST_CHANGED_EVENTS),
    registrarRdapUrl: readRegistrarLink(body.links),
  };
}

/** `pendingDelete`, `PENDING_DELETE` and ` Pending  Delete ` all become `pending delete`. */
export function normaliseStatus(value: string): string {
  return value
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

function isDomainObject(body: Record<string, unknown>): boolean {
  if (typeof body.objectClassName === "string") {
    return body.objectClassName.trim().toLowerCase() === "domain";
  }
  return typeof body.ldhName === "string" || typeof body.unicodeName === "string";
}

function normaliseName(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const name = value.trim().replace(/\.+$/, "").toLowerCase();
  return name === "" ? null : name;
}

function readStatus(value: unknown): string[] {
  const values = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  const status: string[] = [];
  for (const item of values) {
    if (typeof item !== "string") continue;
    const normalised = normaliseStatus(item);
    if (normalised !== "" && !status.includes(normalised)) status.push(normalised);
  }
  return status;
}

interface DatedEvent {
  action: string;
  date: string;
}

function readEvents(value: unknown): DatedEvent[] {
  if (!Array.isArray(value)) return [];
  const events: DatedEvent[] = [];
  for (const event of value) {
    if (!isRecord(event) || typeof event.eventAction !== "string") continue;
    const date = parseRdapDate(event.eventDate);
    if (date === null) continue;
    events.push({ action: event.eventAction.trim().toLowerCase().replace(/\s+/g, " "), date });
  }
  return events;
}

function firstEventDate(events: DatedEvent[], actions: string[]): string | null {
  for (const action of actions) {
    const event = events.find((candidate) => candidate.action === action);
    if (event) return event.date;
  }
  return null;
}

/** The first top-level entity with the role `registrar`: its vCard `fn`, else `org`, else its handle. */
function readRegistrar(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  for (const entity of value) {
    if (!isRecord(entity) || !hasRole(entity, "registrar")) continue;
    return vcardText(entity.vcardArray, "fn") ?? vcardText(entity.vcardArray, "org") ??
      usableText(entity.handle);
  }
  return null;
}

function hasRole(entity: Record<string, unknown>, role: string): boolean {
  return Array.isArray(entity.roles) &&
    entity.roles.some((candidate) =>
      typeof candidate === "string" && candidate.trim().toLowerCase() === role
    );
}

/** The text of the first vCard property `name` (jCard, RFC 7095): `["vcard", [[name, params, type, value…]]]`. */
function vcardText(vcardArray: unknown, name: string): string | null {
  if (!Array.isArray(vcardArray) || !Array.isArray(vcardArray[1])) return null;
  for (const property of vcardArray[1]) {
    if (!Array.isArray(property) || typeof property[0] !== "string") continue;
    if (property[0].toLowerCase() !== name) continue;
    const values = property.slice(3).flat();
    const text = values.filter((part) => typeof part === "string" && part.trim() !== "").join(", ");
    const usable = usableText(text);
    if (usable !== null) return usable;
  }
  return null;
}

function usableText(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (text === "" || /^redacted/i.test(text)) return null;
  return text;
}

/** The registrar referral: `rel=related` and `type=application/rdap+json`, not pointing back at `self`. */
function readRegistrarLink(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const links = value.filter(isRecord);
  const selfHref = links.find((link) => lowerText(link.rel) === "self")?.href;
  const self = typeof selfHref === "string" ? absoluteHttpUrl(selfHref) : null;
  for (const link of links) {
    if (lowerText(link.rel) !== "related") continue;
    if (lowerText(link.type).split(";")[0].trim() !== RDAP_MEDIA_TYPE) continue;
    if (typeof link.href !== "string") continue;
    const href = absoluteHttpUrl(link.href);
    if (href === null || (self !== null && href.toLowerCase() === self.toLowerCase())) continue;
    return href;
  }
  return null;
}

function absoluteHttpUrl(value: string): string | null {
  try {
    const url = new URL(value.trim());
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

function lowerText(value: unknown): string {
  return typeof value === "string" ? value.trim().toLowerCase() : "";
}
