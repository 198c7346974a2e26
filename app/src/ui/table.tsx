/** A table in its scrolling wrapper: column headers (and an unlabelled actions column), then the rows. */
import type { ComponentChildren } from "preact";

export function Table(
  { columns, actions = false, caption, compact = false, children }: {
    columns: string[];
    /** A last column of buttons, its header named "Actions" for screen readers only. */
    actions?: boolean;
    /** A caption for screen readers only. */
    caption?: string;
    /**
     * Below 640 px each row is a few short lines (cells marked `none`, empty, and `wide-only` are left out)
     * rather than one line per cell.
     */
    compact?: boolean;
    children: ComponentChildren;
  },
) {
  return (
    <div class="table-wrap">
      <table class={compact ? "compact" : undefined}>
        {caption ? <caption class="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((column) => <th key={column} scope="col">{column}</th>)}
            {actions
              ? (
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              )
              : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
