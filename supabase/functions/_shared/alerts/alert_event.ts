/** An alert event as the senders see it (one row of `public.alert_events`). */

export type AlertEventType = "domain.available" | "test";

export interface AlertEvent {
  /** `evt_…`, the webhook body's `id`. */
  id: string;
  type: AlertEventType;
  createdAt: Date;
  domainName: string;
  /** The watcher's Unicode spelling of an IDN, or null. */
  unicodeName: string | null;
  previousStatus: string | null;
  status: string;
  /** When the check saw the new status. */
  checkedAt: Date;
}
