/**
 * Alert event types as a person reads them: one table, used wherever the app shows an event (the event
 * check boxes of every channel, a name's alerts, the delivery log). The ids stay what the API and the
 * payloads carry; unknown ids show as they are.
 */
export const eventLabels: Record<string, string> = {
  "domain.available": "Became available",
  "domain.pending_delete": "Entered pending delete",
  "domain.expiring": "Expiry reminder",
  "domain.registered": "Registered again",
  "domain.restored": "Restored by its owner",
  test: "Test alert",
};

export function eventLabel(type: string | null | undefined): string {
  if (!type) return "—";
  return eventLabels[type] ?? type;
}
