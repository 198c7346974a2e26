/** A name's lifecycle as ordered steps, the current one marked (aria-current="step"). */
import { type LifecycleStage, lifecycleStages } from "../data/lifecycle.ts";

export function LifecycleSteps({ stage }: { stage: LifecycleStage | null }) {
  const at = lifecycleStages.findIndex((s) => s.id === stage);
  return (
    <div class="card">
      <h2>Lifecycle</h2>
      <ol class="lifecycle">
        {lifecycleStages.map((s, index) => (
          <li
            key={s.id}
            class={index === at ? "current" : index < at ? "past" : undefined}
            aria-current={index === at ? "step" : undefined}
          >
            <strong>{s.label}</strong>
            {index === at ? <span class="visually-hidden">(the name is here)</span> : null}
            <span class="muted">{s.help}</span>
          </li>
        ))}
      </ol>
      {at < 0 ? <p class="muted">Where the name is will show once a check decides its status.</p> : (
        <p>
          The name is at <strong>{lifecycleStages[at].label}</strong>.
        </p>
      )}
    </div>
  );
}
