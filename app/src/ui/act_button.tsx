/** A button that runs one piece of work through `useAction`'s `act`. */
import type { ComponentChildren } from "preact";

export function ActButton(
  { act, run, busy, variant = "secondary", label, children }: {
    /** `act` of the `useAction` that shows this work's busy state and error. */
    act: (work: () => Promise<unknown>) => unknown;
    run: () => Promise<unknown>;
    /** Given: the button is disabled while the action is busy. */
    busy?: boolean;
    /** The button's class ("" for the primary look). */
    variant?: string;
    /** The accessible name, where the visible text alone would be ambiguous. */
    label?: string;
    children: ComponentChildren;
  },
) {
  return (
    <button
      type="button"
      class={variant || undefined}
      disabled={busy}
      aria-label={label}
      onClick={() => act(run)}
    >
      {children}
    </button>
  );
}
