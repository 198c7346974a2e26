/**
 * "Removed x · Undo": a short-lived note after an action that can be taken back. Undo runs the action's
 * opposite through the server (which applies its own rules, the quota too); the note leaves after `seconds`.
 */
import { useEffect, useState } from "preact/hooks";

export interface UndoOffer {
  /** What was done, e.g. "Removed example.com". */
  message: string;
  /** The accessible name of the Undo button, e.g. "Undo removing example.com". */
  label: string;
  undo: () => Promise<void>;
}

/** The offer on screen (one at a time: a new one replaces the last), and how to make or drop one. */
export function useUndo(seconds = 10) {
  const [offer, setOffer] = useState<UndoOffer | null>(null);
  useEffect(() => {
    if (!offer) return;
    const timer = setTimeout(() => setOffer(null), seconds * 1000);
    return () => clearTimeout(timer);
  }, [offer]);
  return { offer, offerUndo: setOffer, dismiss: () => setOffer(null) };
}

export function UndoNote(
  { offer, busy, onUndo }: { offer: UndoOffer | null; busy?: boolean; onUndo: (offer: UndoOffer) => void },
) {
  return (
    <div class="toast-slot" role="status">
      {offer
        ? (
          <div class="toast">
            <span>{offer.message}</span>
            <button
              type="button"
              class="link"
              disabled={busy}
              aria-label={offer.label}
              onClick={() => onUndo(offer)}
            >
              Undo
            </button>
          </div>
        )
        : null}
    </div>
  );
}
