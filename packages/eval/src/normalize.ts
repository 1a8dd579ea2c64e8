/** An answer string after normalisation, with the facts normalisation removed but comparison still needs. */
export interface NormalizedAnswer {
  readonly text: string;
  readonly percent: boolean;
}

/** Unit words dropped after a number ("5 cm", "30 degrees"), after Qwen's unit list in spirit: common units only. */
const unitWord =
  /^(?:cm|mm|km|m|meters?|centimeters?|kilometers?|inch(?:es)?|in|feet|foot|ft|miles?|mph|hours?|hrs?|minutes?|mins?|seconds?|secs?|s|days?|weeks?|years?|months?|dollars?|cents?|degrees?|units?|square|sq|cubic|grams?|g|kg|kilograms?|pounds?|lbs?|liters?|l|ml|points?|ways?|people|students?|times|percent)$/i;

/**
 * String-level rewrites before parsing: the union of Qwen2.5-Math's strip_string and Math-Verify's normalisation
 * (each rule is listed with an example in docs/packages/eval.md). Structure-level rules (x = 3, \frac12) live in
 * the parser and the comparison instead.
 */
export function normalizeAnswer(raw: string): NormalizedAnswer {
  let text = raw.trim();
  text = stripDelimiters(text);
  text = text.replace(/\\(?:boxed|fbox)\s*\{((?:[^{}]|\{[^{}]*\})*)\}/g, '$1');
  // Newlines, display styles and the negative thin space \! (12,\!000) carry no mathematics.
  text = text.replace(/\n/g, ' ').replace(/\\(?:displaystyle|textstyle)|\\!/g, '');
  // Degrees: a unit to drop (90^\circ, 90^{\circ}, 90°, \degree), except inside trigonometry (\sin 30^\circ).
  if (/\\(?:sin|cos|tan|sec|csc|cot)/.test(text)) {
    text = text.replace(/(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\\degree)/g, '(\\frac{$1\\pi}{180})');
  }
  text = text.replace(/\^\s*\{?\s*\\circ\s*\}?|\\circ|°|\\degree/g, '');
  text = text.replace(/\\mathbb\s*\{?R\}?/g, '(-\\infty, \\infty)');
  text = text.replace(/(\d*)\.(\d*)\\overline\s*\{(\d+)\}/g, repeatingDecimal);
  // Currency.
  text = text.replace(/\\\$|\$/g, '').trim();
  // Thousands separators inside numbers: 1{,}000, 1\,000 and (whole-answer only) 1,000,000.
  text = text.replace(/(\d)\{,\}(?=\d{3})/g, '$1').replace(/(\d)\\[,!;: ](?=\d{3}(?!\d))/g, '$1');
  if (/^-?\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?$/.test(text)) text = text.replace(/[, ]/g, '');
  // A plain-text mixed number "4 4/9" is 4 + 4/9 (the LaTeX form 4\frac{4}{9} is read by the parser).
  text = text.replace(/^([+-]?)(\d+) +(\d+)\/(\d+)$/, '$1($2+\\frac{$3}{$4})');
  const percent = /\\?%|\bpercent(?:age)?\b|\bpct\b/.test(text);
  text = text.replace(/\\?%|\\text\{\s*percent\s*\}|\s*\b(?:percent(?:age)?|pct)\b/g, '');
  text = stripUnits(text);
  // "1 and 2", "x=1 \text{ or } x=2": several answers.
  text = text.replace(/\\(?:text|mbox|textrm)\{\s*(?:and|or)\s*\}|\s+(?:and|or)\s+/g, ', ');
  text = text.replace(/\\(?:text|mbox|textrm)\{\s*\}/g, '');
  text = text.replace(/\\(?:dfrac|tfrac|cfrac)/g, '\\frac').replace(/\\(?:left|right)(?![a-zA-Z])\.?/g, '');
  text = text
    .replace(/^[\s,:;]+|[\s,;:]+$/g, '')
    .replace(/\.$/, '')
    .trim();
  text = text.replace(/^(-?)\s*(?:\\text\{\s*)?(-?)\s*(?:infinity|inf)(?:\s*\})?$/i, '$1$2\\infty');
  text = wordNumber(text) ?? text;
  // Leading decimal point: .5 -> 0.5 (the tokenizer reads both, this keeps text comparisons aligned).
  text = text.replace(/(^|[^\d])\.(\d)/g, '$10.$2');
  return { text, percent };
}

const units = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** A whole answer written in words below one hundred ("five", "twenty-one", "\text{Seven}"), as digits. */
function wordNumber(text: string): string | null {
  const words = /^(?:\\text\{\s*)?([a-zA-Z]+)(?:[\s-]+([a-zA-Z]+))?(?:\s*\})?$/.exec(text.trim());
  if (!words) return null;
  const first = words[1]!.toLowerCase();
  const second = words[2]?.toLowerCase();
  if (second === undefined && units.includes(first)) return String(units.indexOf(first));
  const ten = tens.indexOf(first);
  if (ten < 2) return null;
  if (second === undefined) return String(10 * ten);
  const unit = units.indexOf(second);
  return unit >= 1 && unit <= 9 ? String(10 * ten + unit) : null;
}

/** 0.1\overline{6} = (16 - 1) / 90: the exact fraction of a repeating decimal. */
function repeatingDecimal(_: string, whole: string, fixed: string, repeating: string): string {
  const all = BigInt(`${whole}${fixed}${repeating}` || '0');
  const prefix = BigInt(`${whole}${fixed}` || '0');
  const denominator = (10n ** BigInt(repeating.length) - 1n) * 10n ** BigInt(fixed.length);
  return `\\frac{${all - prefix}}{${denominator}}`;
}

function stripDelimiters(text: string): string {
  let result = text;
  for (let pass = 0; pass < 3; pass++) {
    const inner = /^\$\$([\s\S]*)\$\$$|^\$([\s\S]*)\$$|^\\\[([\s\S]*)\\\]$|^\\\(([\s\S]*)\\\)$/.exec(result);
    if (!inner) break;
    result = (inner[1] ?? inner[2] ?? inner[3] ?? inner[4] ?? '').trim();
  }
  return result;
}

/**
 * Drops trailing units: "\text{ cm}^2", "\mbox{ inches}", "\mathrm{~m/s}", "5 dollars"; never the whole answer,
 * so "\text{Evelyn}" survives as text.
 */
function stripUnits(text: string): string {
  let result = text;
  for (let pass = 0; pass < 3; pass++) {
    const unit =
      /^(.*?[\d})a-zA-Z])\s*\\(?:text|mbox|mathrm|textrm|operatorname)\s*\{\s*~?[a-zA-Z][^{}]*\}(?:\s*\^\s*\{?\d\}?)?$/.exec(
        result,
      );
    if (unit && !/\\(?:text|mbox|mathrm)\s*\{[^}]*$/.test(unit[1]!)) {
      result = unit[1]!.trim();
      continue;
    }
    const words = /^(.*\d)\s+([a-zA-Z]+(?:\s+[a-zA-Z]+)*)(?:\s*\^\s*\{?\d\}?)?$/.exec(result);
    if (words && words[2]!.split(/\s+/).every((word) => unitWord.test(word))) {
      result = words[1]!.trim();
      continue;
    }
    break;
  }
  return result;
}
