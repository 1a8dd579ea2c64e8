/**
 * Re-rendered forms of a gold answer that a grader must accept, and perturbed forms it must reject. They stand in
 * for model predictions in the benchmark-gold tests and in bench/grade-throughput.ts.
 */

/** Rewrites that keep the value: \frac <-> \dfrac, spacing after commas, exact decimals as fractions, integers
 * wrapped as fractions (forcing the parser path), and a trailing unit in \text. */
export function rerenderings(gold: string): string[] {
  const forms = new Set<string>();
  forms.add(
    gold.includes('\\dfrac') ? gold.replace(/\\dfrac/g, '\\frac') : gold.replace(/\\frac/g, '\\dfrac'),
  );
  // Scientific notation (3.3e12), prose and thousands separators (10,\!080) keep their digits and commas:
  // rewriting them changes the reading.
  if (/\de[+-]?\d|[a-zA-Z]{3,}\s|^(\\\$)?\d{1,3}(,(\\!)?\s*\d{3})+$/.test(gold)) {
    forms.delete(gold);
    return [...forms];
  }
  forms.add(gold.replace(/,\s*/g, ', '));
  forms.add(
    gold.replace(
      /(^|[^\d.^_{])(\d+)\.(\d+)(?![\d.])/g,
      (_, before: string, whole: string, fraction: string) => {
        const denominator = 10 ** fraction.length;
        return `${before}\\frac{${Number(whole) * denominator + Number(fraction)}}{${denominator}}`;
      },
    ),
  );
  // Wrapping the whole part of a mixed number (1\frac{4}{5}) in a fraction would make it a product.
  if (!/[_^]|\\begin|\\text|\\mathrm|\\sqrt\[|\d\s*\\[dt]?frac/.test(gold)) {
    forms.add(
      gold.replace(
        /(^|[^\d.\\a-zA-Z])(\d+)(?![\d.])/g,
        (_, before: string, digits: string) => `${before}\\frac{${2 * Number(digits)}}{2}`,
      ),
    );
  }
  if (/^-?\d+(\.\d+)?$/.test(gold)) {
    forms.add(`${gold}\\text{ cm}`);
    forms.add(`x = ${gold}`);
  }
  forms.delete(gold);
  return [...forms];
}

/** A changed answer: the first digit moved by one (or "+ 1" appended when there is no digit). */
export function perturbation(gold: string): string {
  const match = /\d/.exec(gold);
  if (match === null) return `${gold} + 1`;
  const digit = Number(match[0]);
  return `${gold.slice(0, match.index)}${(digit + 1) % 10}${gold.slice(match.index + 1)}`;
}
