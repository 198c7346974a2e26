/**
 * Tagged-template queries, as the code base writes them (tx`select … ${x}`), turned into one statement
 * with `$1…$n` parameters: every interpolated value is a bound parameter, never spliced into the text.
 * Pure: no I/O.
 */

/** A value node-postgres sends as the JSON text of `value` (`sql.json(v)`). */
export interface JsonParameter {
  toPostgres(): string;
}

export function jsonParameter(value: unknown): JsonParameter {
  const text = JSON.stringify(value);
  return { toPostgres: () => text };
}

export interface Statement {
  text: string;
  values: unknown[];
}

export function statementFrom(
  strings: TemplateStringsArray | readonly string[],
  values: unknown[],
): Statement {
  let text = strings[0];
  for (let index = 1; index < strings.length; index++) text += `$${index}${strings[index]}`;
  return { text, values };
}
