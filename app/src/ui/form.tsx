/** Form building blocks: a form that stays on the page when submitted, and a labelled input. */
import type { ComponentChildren, JSX } from "preact";

/** A form whose submit runs `onSubmit` instead of loading a page. */
export function Form(
  { class: className, onSubmit, children }: {
    class?: string;
    onSubmit: () => unknown;
    children: ComponentChildren;
  },
) {
  return (
    <form
      class={className}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      {children}
    </form>
  );
}

type InputAttributes = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, "value" | "onInput" | "label">;

/** An input inside its label: the label's text is the input's accessible name. */
export function Field(
  { label, value, onValue, ...input }: InputAttributes & {
    label: string;
    value: string;
    onValue: (value: string) => void;
  },
) {
  return (
    <label>
      {label}
      <input {...input} value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} />
    </label>
  );
}
