/** The expiry-reminder days of a channel: a text box ("30, 7, 1") and its save button. */
import { Field, Form } from "./form.tsx";

/** Days list: "30, 7, 1" ⇄ [30, 7, 1] (the server judges the values). */
export function parseDays(text: string): number[] {
  return text.split(/[\s,]+/).filter(Boolean).map(Number);
}

export function ReminderDaysForm(
  { label, days, onDays, busy, onSave }: {
    label: string;
    /** The box's text, as typed. */
    days: string;
    onDays: (days: string) => void;
    busy: boolean;
    onSave: (days: number[]) => unknown;
  },
) {
  return (
    <Form class="row" onSubmit={() => onSave(parseDays(days))}>
      <Field label={label} value={days} onValue={onDays} />
      <button type="submit" class="secondary" disabled={busy}>Save days</button>
    </Form>
  );
}
