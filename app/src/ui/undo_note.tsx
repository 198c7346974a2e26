/** A done note with an Undo button (bulk remove and bulk tag on the watchlist). */
import { useAction } from "./components.tsx";
import { ErrorNote } from "./components.tsx";

export interface UndoableChange {
  message: string;
  undo: () => Promise<void>;
}

export function UndoNote(
  { change, onDone }: { change: UndoableChange; onDone: () => void },
) {
  const { busy, error, act } = useAction();
  return (
    <div class="note ok undo" role="status">
      <span>{change.message}</span>
      <button
        type="button"
        class="secondary"
        disabled={busy}
        onClick={() =>
          act(async () => {
            await change.undo();
            onDone();
          })}
      >
        Undo
      </button>
      <ErrorNote error={error} />
    </div>
  );
}
