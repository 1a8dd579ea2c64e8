import { boundAfter } from './answer-words';

/** An answer string after normalisation, with the facts normalisation removed but comparison still needs. */
export interface NormalizedAnswer {
  readonly text: string;
  readonly percent: boolean;
  /**
   * The percent sign belongs to the number and may not be dropped: after a mixed number ("4 4/9%" is 40/900,
   * never 40/9). The percent policy 'either' then only scales, as 'ratio' does.
   */
  readonly percentBinding: boolean;
  /** Units removed after the number, canonical (cm, m, h, ...); 5 km and 5 m differ although both read 5. */
  readonly units: readonly string[];
}

/** Unit words dropped after a number ("5 cm", "30 degrees"), after Qwen's unit list in spirit: common units only. */
const unitWord =
  /^(?:cm|mm|km|m|meters?|centimeters?|kilometers?|inch(?:es)?|in|feet|foot|ft|miles?|mph|hours?|hrs?|minutes?|mins?|seconds?|secs?|s|days?|weeks?|years?|months?|dollars?|cents?|degrees?|units?|square|sq|cubic|grams?|g|kg|kilograms?|pounds?|lbs?|liters?|l|ml|points?|ways?|people|students?|times|percent)$/i;

/**
 * String-level rewrites before parsing: the union of Qwen2.5-Math's strip_string and Math-Verify's normalisation
 * (each rule is listed with an example in docs/explanation/grading.md). Structure-level rules (x = 3, \frac12) live in
 * the parser and the comparison instead.
 */
export function normalizeAnswer(raw: string): NormalizedAnswer {
  let text = raw.trim();
  text = stripDelimiters(text);
  // "= \frac{10}{9}": what follows a bare equals sign is the value.
  text = text.replace(/^=\s*/, '');
  text = text.replace(/\\(?:boxed|fbox)\s*\{((?:[^{}]|\{[^{}]*\})*)\}/g, '$1');
  // Digit groups written with a comma and a negative thin space (11,\! 111,\! 100) are one number, not a list.
  text = text.replace(/(\d),\s*\\!\s*(?=\d{3}(?!\d))/g, '$1');
  // Newlines, display styles and the negative thin space \! carry no mathematics; "\ " is a space.
  text = text
    .replace(/\n/g, ' ')
    .replace(/\\(?:displaystyle|textstyle)|\\!/g, '')
    .replace(/(?<!\\)\\ /g, ' ');
  // A command escaped twice (\\le from a raw string) outside a matrix, where \\ breaks rows.
  if (!text.includes('\\begin')) text = text.replace(/\\\\(?=[a-zA-Z])/g, '\\');
  // A matrix escaped twice (\\begin{matrix} a \\\\ b): every backslash is doubled, rows breaks included.
  else if (/\\\\begin\{/.test(text)) text = text.replace(/\\\\/g, '\\');
  // "x = 1/3 \approx 0.33": the exact value stated before the approximation is the answer.
  const approx = /\\approx(?![a-zA-Z])/.exec(text);
  if (approx && !/^\s*[a-zA-Z](?:_\{?\w+\}?)?\s*$/.test(text.slice(0, approx.index))) {
    text = text.slice(0, approx.index).trim();
  }
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
  text = text.replace(/(\d)\s*\{\s*,\s*\}\s*(?=\d{3})/g, '$1').replace(/(\d)\\[,!;: ](?=\d{3}(?!\d))/g, '$1');
  text = ungroupDigits(text);
  // A percent word may be glued to the number ("28pct", "4 4/9percent"), never part of a longer word.
  const percent = /\\?%|(?<![A-Za-z_])(?:percent(?:age)?|pct)\b/.test(text);
  text = text.replace(/\\?%|\\text\{\s*percent\s*\}|\s*(?<![A-Za-z_])(?:percent(?:age)?|pct)\b/g, '').trim();
  const percentBinding = percent && isMixedNumber(text);
  text = text.replace(plainMixedNumberPattern, plainMixedNumber);
  const stripped = stripUnits(text);
  text = stripped.text;
  text = ungroupDigits(text);
  // "1 and 2", "x=1 \text{ or } x=2": several answers.
  text = text.replace(
    /\\(?:text|mbox|textrm)\{\s*(?:and|or)\s*\}|\s+(?:and|or)\s+|(?<=\))(?:and|or)(?=\()/g,
    ', ',
  );
  // "7, -2, \text{ and } -5": the comma before "and" already separates the last item.
  text = text.replace(/,\s*,/g, ',');
  text = text.replace(/\\(?:text|mbox|textrm)\{\s*\}/g, '');
  // Python-style answers: 2**(1/4), sqrt(2), pi/2.
  text = text
    .replace(/\*\*/g, '^')
    .replace(/(?<![\\a-zA-Z])(sqrt|pi|sin|cos|tan|ln|log|exp)(?![a-zA-Z])/g, '\\$1');
  text = text.replace(/\\(?:dfrac|tfrac|cfrac)/g, '\\frac').replace(/\\(?:left|right)(?![a-zA-Z])\.?/g, '');
  text = text
    .replace(/^[\s,:;]+|[\s,;:]+$/g, '')
    .replace(/\.$/, '')
    .trim();
  text = text.replace(/^(-?)\s*(?:\\text\{\s*)?(-?)\s*(?:infinity|inf)(?:\s*\})?$/i, '$1$2\\infty');
  text = wordNumber(text) ?? text;
  // Leading decimal point: .5 -> 0.5 (the tokenizer reads both, this keeps text comparisons aligned).
  text = text.replace(/(^|[^\d])\.(\d)/g, '$10.$2');
  return { text, percent, percentBinding, units: stripped.units };
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

/**
 * A plain-text mixed number, its whole part with or without digit groups ("4 4/9", "1 000 4/9", "1,000 4/9").
 * The groups of the whole part take one separator throughout, as ungroupDigits reads them.
 */
const plainMixedNumberPattern = /^([+-]?)([1-9]\d{0,2}(?:([, ])\d{3})(?:\3\d{3})*|\d+) +(\d+)\/(\d+)$/;
/** A mixed number in LaTeX: 4\frac{4}{9}, -1\frac12 (the parser reads its value). */
const latexMixedNumberPattern = /^[+-]?\d+\s*\\[dtc]?frac\s*(?:\{\s*\d+\s*\}|\d)\s*(?:\{\s*\d+\s*\}|\d)$/;

function isMixedNumber(text: string): boolean {
  return plainMixedNumberPattern.test(text) || latexMixedNumberPattern.test(text);
}

/**
 * A plain-text mixed number "4 4/9" is 4 + 4/9; the LaTeX form 4\frac{4}{9} is read by the parser. Only a proper
 * fraction makes a mixed number: "11 6/6" or "4 4/0" could be read as 12, 11, 4 or 4·4/0, so it is kept as text,
 * equal to no number (Math-Verify's test_mixed_number_extraction decides so too).
 */
function plainMixedNumber(
  written: string,
  sign: string,
  whole: string,
  _separator: string | undefined,
  num: string,
  den: string,
): string {
  if (BigInt(num) >= BigInt(den)) return `\\text{${written}}`;
  return `${sign}(${whole.replace(/[, ]/g, '')}+\\frac{${num}}{${den}})`;
}

/** A whole answer that is one number with grouped digits (1,000,000 or 1 000) without its separators. */
function ungroupDigits(text: string): string {
  // A first group of 0 groups nothing: "0,111" is a decimal comma or a list, never 111.
  return /^-?[1-9]\d{0,2}(?:[, ]\d{3})+(?:\.\d+)?$/.test(text) ? text.replace(/[, ]/g, '') : text;
}

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

/**
 * A time of day ("12:00", "3:30 p.m.", "20:34:00", "08:34 \\text{P.M.}") as "h:mm:ss" on a 24-hour clock, or null.
 * Read from the answer as written (the unit stripping of normalizeAnswer would drop "\\text{P.M.}"). Two answers
 * that are both times compare as times (12:00 is not 1:00, 20:34 is 08:34 P.M.); otherwise a colon is a ratio (7:32).
 */
export function timeOfDay(text: string): string | null {
  const bare = text
    .replace(/\$/g, '')
    .replace(/\\(?:text|mathrm|mbox|textrm)\s*\{([^{}]*)\}/g, '$1')
    .replace(/\\[ ,;:!]|~/g, ' ')
    .trim();
  const time = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*(?:([ap])\.?\s*m\.?)?$/i.exec(bare);
  if (!time) return null;
  let hours = Number(time[1]);
  const meridiem = time[4]?.toLowerCase();
  if (meridiem !== undefined && (hours < 1 || hours > 12)) return null;
  if (meridiem === 'p' && hours < 12) hours += 12;
  if (meridiem === 'a' && hours === 12) hours = 0;
  return `${hours % 24}:${time[2]}:${time[3] ?? '00'}`;
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
function stripUnits(text: string): { text: string; units: string[] } {
  let result = text;
  const units: string[] = [];
  for (let pass = 0; pass < 3; pass++) {
    const unit =
      /^(.*?[\d})a-zA-Z])\s*\\(?:text|mbox|mathrm|textrm|textbf|textnormal|textit|operatorname)\s*\{\s*~?([a-zA-Z][^{}]*)\}(?:\s*\^\s*\{?\d\}?)?$/.exec(
        result,
      );
    if (unit && !/\\(?:text|mbox|mathrm|textbf|textnormal|textit)\s*\{[^}]*$/.test(unit[1]!)) {
      result = unit[1]!.trim();
      units.push(...unit[2]!.trim().split(/\s+/));
      continue;
    }
    // A unit glued to the number: 1,000.99m², 5cm, 20€, 4000千克 (a CJK measure word). One letter alone (6m)
    // may be a variable: it stays.
    const glued = /^(.*\d)\s*([a-zA-Z]+|€|£|¥|[\u4e00-\u9fff]+)(²|³|\^\s*\{?\d\}?)?$/.exec(result);
    const unitLike = glued && (glued[2]!.length > 1 || glued[3] !== undefined) && unitWord.test(glued[2]!);
    // "5以上" (5 or more), "5左右" (about 5) are bounds, not measure words.
    const measureWord = glued && /^[\u4e00-\u9fff]+$/.test(glued[2]!) && !boundAfter.test(glued[2]!);
    if (glued && (/^[€£¥]$/.test(glued[2]!) || measureWord || unitLike)) {
      result = glued[1]!.trim();
      units.push(glued[2]!);
      continue;
    }
    // A CJK measure word after a bracketed value: "(\\frac{2}{5}) 吨".
    const measured = /^(.*[)}])\s*([\u4e00-\u9fff]+)$/.exec(result);
    if (measured && !boundAfter.test(measured[2]!)) {
      result = measured[1]!.trim();
      units.push(measured[2]!);
      continue;
    }
    const words = /^(.*\d)\s+([a-zA-Z]+(?:\s+[a-zA-Z]+)*)(?:\s*\^\s*\{?\d\}?)?$/.exec(result);
    if (words && words[2]!.split(/\s+/).every((word) => unitWord.test(word))) {
      result = words[1]!.trim();
      units.push(...words[2]!.split(/\s+/));
      continue;
    }
    break;
  }
  return { text: result, units: units.map(canonicalUnit).filter((unit): unit is string => unit !== null) };
}

/** Spellings of one unit; a unit missing here (ways, people, square) does not fix the scale of the number. */
const unitSpellings: Record<string, readonly string[]> = {
  mm: ['mm', 'millimeter', 'millimeters', 'millimetre', 'millimetres'],
  cm: ['cm', 'centimeter', 'centimeters', 'centimetre', 'centimetres'],
  m: ['m', 'meter', 'meters', 'metre', 'metres'],
  km: ['km', 'kilometer', 'kilometers', 'kilometre', 'kilometres'],
  in: ['in', 'inch', 'inches'],
  ft: ['ft', 'foot', 'feet'],
  mi: ['mi', 'mile', 'miles'],
  s: ['s', 'sec', 'secs', 'second', 'seconds'],
  min: ['min', 'mins', 'minute', 'minutes'],
  h: ['h', 'hr', 'hrs', 'hour', 'hours'],
  day: ['day', 'days'],
  week: ['week', 'weeks'],
  month: ['month', 'months'],
  year: ['year', 'years'],
  g: ['g', 'gram', 'grams'],
  kg: ['kg', 'kilogram', 'kilograms'],
  lb: ['lb', 'lbs', 'pound', 'pounds'],
  l: ['l', 'liter', 'liters', 'litre', 'litres'],
  ml: ['ml', 'milliliter', 'milliliters'],
  dollar: ['dollar', 'dollars'],
  cent: ['cent', 'cents'],
};
const canonicalUnits = new Map(
  Object.entries(unitSpellings).flatMap(([unit, spellings]) => spellings.map((spelling) => [spelling, unit])),
);

function canonicalUnit(word: string): string | null {
  return canonicalUnits.get(word.toLowerCase()) ?? null;
}
