/** Secrets and links to copy: a value with its copy button, and a secret shown once. */
import { CopyButton } from "./components.tsx";

/** A selectable value (named `label` for screen readers) with a copy button. */
export function SecretValue(
  { label, value, copyLabel }: { label: string; value: string; copyLabel?: string },
) {
  return (
    <div class="row">
      <code class="secret" aria-label={label}>{value}</code>
      <CopyButton text={value} label={copyLabel} />
    </div>
  );
}

/** A secret shown once, selectable, with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="note ok shown-once" role="status">
      <strong>{label}</strong>
      <span>Copy it now: it is shown only once.</span>
      <SecretValue label={label} value={value} />
    </div>
  );
}
