/**
 * Team alerts (issue 42, docs/organizations.md): an event of an organization's list names the organization
 * and, when a member claimed the name, the claimer. Personal alerts carry neither, and read as before.
 */
import type { AlertEvent } from "./alert_event.ts";

/**
 * An organization's name and a member's display name are people's text (1-200 characters): in a message
 * each is one line, without control or format characters, at most 100 characters.
 */
export function oneLine(text: string): string {
  const line = text.replace(/[\p{C}\s]+/gu, " ").trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/** `Acme's list · claimed by Mia M.` (or `· not claimed`), or null for a personal alert. */
export function teamLine(event: Pick<AlertEvent, "organization" | "claimedBy">): string | null {
  if (!event.organization) return null;
  const claim = event.claimedBy ? `claimed by ${oneLine(event.claimedBy)}` : "not claimed";
  return `${oneLine(event.organization.name)}'s list · ${claim}`;
}

/** The webhook body's `data.organization`: `{id, name, claimed_by}` (claimed_by null when unclaimed). */
export function teamData(
  event: Pick<AlertEvent, "organization" | "claimedBy">,
): { id: string; name: string; claimed_by: string | null } | null {
  if (!event.organization) return null;
  return { id: event.organization.id, name: event.organization.name, claimed_by: event.claimedBy ?? null };
}
