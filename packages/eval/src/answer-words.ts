/**
 * The words extraction reads an answer by, per language. The noun "answer" is lighteval's translation literal
 * `answer` of each language (huggingface/lighteval src/lighteval/tasks/templates/utils/translation_literals.py @
 * 3fd15266bc8448b797e61462d293aa3fd40b3580; its extractive match, src/lighteval/metrics/utils/extractive_match_utils.py,
 * anchors on it), with a common synonym. The rest keeps the strictness of the English rules: the verbs that state a
 * value (English "is", "are", "equals", "was"), and the words that make a number no answer: a negation or bound just
 * before the verb ("n'est", "no es", "不是", "至少为"), a negation, bound or hedge in a sentence of one number ("at
 * least 5", "environ 5"), a bound or range after the number ("or more", "以上", "3 bis 5"), a second value joined by
 * "and"/"or", and a reason that ends the answer ("because", "parce que", "因为"). Every language is read in every
 * response, so no word of another language here is a common English word (Spanish "son" and "era", German "war",
 * French "car" are left out). Lists are "|"-separated; a space inside an entry matches any run of spaces.
 */
interface LanguageWords {
  /** The noun "answer": "réponse" starts an answer phrase with a colon or a stating verb after it. */
  readonly answer: string;
  /** Verbs that state a value: "is", "are", "equals", "was". */
  readonly states: string;
  /** Words just before a stating verb that negate or bound it: "n'" of "n'est", "不" of "不是", "至少" of "至少为". */
  readonly beforeVerb?: string;
  /** A negation, bound or hedge in a sentence of one number: it states no value ("at least 5", "environ 5"). */
  readonly bounds: string;
  /** After a number, a bound: "or more", "以上". */
  readonly boundsAfter: string;
  /** After a number and before another, a range: "3 to 5", "3 bis 5", "3至5". */
  readonly rangeTo: string;
  /** Words that join a second value: "and", "or". */
  readonly joins: string;
  /** Words that offer an alternative value ("or", "ou", "或"): an answer followed by one is a hedge (issue 45). */
  readonly or: string;
  /** Words after a stated value that reject another: "6, not 5", "6 rather than 5", "6，不是5" (issue 45). */
  readonly rejects: string;
  /**
   * Words that take a stated answer back or qualify it when they follow it: "Answer: 5. Wait, ...", "No, 7.", "But
   * $4$ also works" (issue 45).
   */
  readonly retracts: string;
  /** Words that open a condition: a number its clause states is supposed, not answered ("If n is 5, ..."). */
  readonly conditions: string;
  /** Words that start a reason, which ends the answer: "because", "since". */
  readonly reasons: string;
  /** Words are separated by spaces, so they need word boundaries; not in Chinese and Japanese. */
  readonly spaced: boolean;
}

const english: LanguageWords = {
  answer: 'answer',
  states: 'is|are|equals|was',
  bounds:
    'at least|at most|less than|more than|greater than|fewer than|larger than|smaller than|bigger than|' +
    'higher than|lower than|up to|under|over|between|below|above|not|' +
    'about|around|approximately|roughly|nearly|almost|maybe|perhaps|possibly|probably',
  boundsAfter: 'or more|or less|or fewer|or so|or greater|or higher|or lower',
  rangeTo: 'to',
  joins: 'and|or',
  or: 'or',
  rejects: 'not|rather than|instead of|but not|and not|never',
  retracts: 'wait|actually|oops|correction|hmm|no,|but|however',
  conditions: 'if|when|whenever|suppose|assume|assuming',
  reasons: 'because|since|as shown|which is|which gives|which means',
  spaced: true,
};

const foreign: readonly LanguageWords[] = [
  {
    // French
    answer: 'réponse|solution',
    states: 'est|sont|égale|égal à|vaut|était',
    beforeVerb: "n'|ne",
    bounds:
      'au moins|au plus|plus de|moins de|environ|près de|entre|pas|jusqu|presque|peut-être|probablement',
    boundsAfter: 'ou plus|ou moins|au plus|au moins|environ',
    rangeTo: 'à',
    joins: 'et|ou',
    or: 'ou',
    rejects: 'pas|non|et non|mais pas|plutôt que|au lieu de',
    retracts: 'attendez|attends|en fait|non,|mais|cependant',
    conditions: 'si|soit|supposons',
    reasons: 'parce que|puisque',
    spaced: true,
  },
  {
    // German
    answer: 'antwort|lösung',
    states: 'ist|sind|beträgt|betragen|ergibt|lautet|gleich',
    beforeVerb: 'nicht',
    bounds:
      'mindestens|höchstens|mehr als|weniger als|etwa|ungefähr|circa|ca|zwischen|über|unter|bis zu|nicht|kein|' +
      'fast|vielleicht|wahrscheinlich',
    boundsAfter: 'oder mehr|oder weniger',
    rangeTo: 'bis',
    joins: 'und|oder',
    or: 'oder',
    rejects: 'nicht|statt|anstatt|anstelle von',
    retracts: 'warte|moment|eigentlich|nein|aber|jedoch',
    conditions: 'wenn|falls|angenommen',
    reasons: 'weil|da|denn',
    spaced: true,
  },
  {
    // Spanish
    answer: 'respuesta|solución',
    states: 'es|igual a|equivale a|fue',
    beforeVerb: 'no',
    bounds:
      'al menos|como mucho|más de|menos de|aproximadamente|alrededor de|entre|no|casi|quizás|quizá|tal vez|probablemente',
    boundsAfter: 'o más|o menos',
    rangeTo: 'a',
    joins: 'y|o|e|u',
    or: 'o|u',
    rejects: 'no|y no|en vez de|en lugar de',
    retracts: 'espera|en realidad|no,|pero|sin embargo',
    conditions: 'si|supongamos',
    reasons: 'porque|ya que|pues|dado que',
    spaced: true,
  },
  {
    // Portuguese
    answer: 'resposta|solução',
    states: 'é|são|igual a|foi|dá',
    beforeVerb: 'não',
    bounds:
      'pelo menos|no máximo|mais de|menos de|aproximadamente|cerca de|entre|não|quase|talvez|provavelmente',
    boundsAfter: 'ou mais|ou menos',
    rangeTo: 'a',
    joins: 'e|ou',
    or: 'ou',
    rejects: 'não|e não|em vez de|ao invés de',
    retracts: 'espera|na verdade|não,|mas|porém',
    conditions: 'se|suponha',
    reasons: 'porque|pois|já que',
    spaced: true,
  },
  {
    // Italian
    answer: 'risposta|soluzione',
    states: 'è|sono|uguale a|vale',
    beforeVerb: 'non',
    bounds: 'almeno|al massimo|più di|meno di|circa|tra|fra|non|quasi|forse|probabilmente',
    boundsAfter: 'o più|o meno',
    rangeTo: 'a',
    joins: 'e|ed|o|oppure',
    or: 'o|oppure',
    rejects: 'non|e non|invece di|anziché',
    retracts: 'aspetta|in realtà|no,|ma|però',
    conditions: 'se|supponiamo',
    reasons: 'perché|poiché|dato che',
    spaced: true,
  },
  {
    // Russian
    answer: 'ответ|решение',
    states: 'равно|равен|равна|равны|составляет|составит|это|будет|получается',
    beforeVerb: 'не',
    bounds:
      'не менее|не более|более|менее|больше|меньше|около|примерно|приблизительно|хотя бы|по крайней мере|между|не|' +
      'почти|возможно|наверное|вероятно',
    boundsAfter: 'или больше|или меньше',
    rangeTo: 'до',
    joins: 'и|или',
    or: 'или',
    rejects: 'не|а не|вместо',
    retracts: 'подождите|погодите|на самом деле|нет|но|однако',
    conditions: 'если|пусть|допустим',
    reasons: 'потому что|так как|поскольку',
    spaced: true,
  },
  {
    // Arabic
    answer: 'إجابة|الإجابة|الجواب',
    states: 'هو|هي|يساوي|تساوي',
    beforeVerb: 'لا|ليس|ليست',
    bounds: 'على الأقل|على الأكثر|أكثر من|أقل من|حوالي|تقريبا|تقريبًا|بين|ليس|ليست|لا|ربما',
    boundsAfter: 'أو أكثر|أو أقل',
    rangeTo: 'إلى',
    joins: 'و|أو',
    or: 'أو',
    rejects: 'ليس|وليس|لا',
    retracts: 'انتظر|لكن',
    conditions: 'إذا|لو',
    reasons: 'لأن',
    spaced: true,
  },
  {
    // Chinese. Before a verb: the negations, bounds and hedges ("可能是" may be, "也许", "大概"), and the words a
    // stating verb ends ("因为" because, "作为" as, "以为" wrongly thought, "称为" / "记为" called, "认为" think, "但是" /
    // "可是" but, "还是" or, "要是" / "若是" / "如果是" if, "于是" thereupon, "分为" divided into, "设为" let be, "变为" /
    // "成为" / "化为" become, "改为" changed to, "视为" seen as, "定为" / "列为" set as).
    answer: '答案|答',
    states: '是|为|為|等于|等於|共有',
    beforeVerb:
      '因|作|以|称|记|认|但|可|还|要|若|果|于|分|设|变|成|化|改|视|定|列|能|许|概|乎|不|没|沒|非|未|约|約|' +
      '至少|至多|最多|最少|大于|小于|超过|少于|多于|或',
    bounds: '至少|至多|最多|最少|超过|不到|少于|多于|大于|小于|约|約|左右|不|可能|也许|或许|大概|几乎',
    boundsAfter: '以上|以下|以内|左右|上下|多|余|或更|不',
    rangeTo: '至|到|~|～',
    joins: '和|或|与|及|、',
    or: '或|或者',
    rejects: '不是|而不是|而非',
    retracts: '等等|不对|其实|但|不过',
    conditions: '如果|假设|假如|若|设',
    reasons: '因为|由于',
    spaced: false,
  },
  {
    // Japanese: "は" marks what the number after it states ("答えは5です"); "では", "には", "とは" are other particles.
    answer: '回答|答え|解答',
    states: 'は',
    beforeVerb: 'で|に|と',
    bounds: '少なくとも|以上|以下|未満|約|およそ|程度|くらい|ぐらい|ない|たぶん|多分|おそらく',
    boundsAfter: 'では|じゃ|以上|以下|未満|程度|前後|くらい|ぐらい|ほど|以外|から|か',
    rangeTo: '〜|～',
    joins: 'と|や|または|か',
    or: 'または',
    rejects: 'ではなく|じゃなく',
    retracts: '待って|いや|でも|しかし',
    conditions: 'もし|仮に',
    reasons: 'なぜなら',
    spaced: false,
  },
];

const all = [english, ...foreign];
const escapeWord = (word: string): string =>
  word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
/** The entries of lists as one alternation, longest first, so "не менее" wins over "не". */
const alternatives = (lists: readonly string[]): string =>
  [...new Set(lists.flatMap((list) => list.split('|')))]
    .sort((a, b) => b.length - a.length)
    .map(escapeWord)
    .join('|');
const wordStart = String.raw`(?<![\p{L}\p{M}\p{N}_])`;
const wordEnd = String.raw`(?![\p{L}\p{M}\p{N}_])`;
type WordField =
  | 'answer'
  | 'states'
  | 'bounds'
  | 'boundsAfter'
  | 'rangeTo'
  | 'joins'
  | 'or'
  | 'rejects'
  | 'retracts'
  | 'conditions'
  | 'reasons';

/**
 * The words of one field, with word boundaries where their language spaces words; `capitalized` adds each word with
 * a capital first letter, for a regex that must stay case-sensitive ("If n is 5" in statedNumber).
 */
function wordsOf(field: WordField, only: readonly LanguageWords[] = all, capitalized = false): string {
  const withCapitals = (list: string): string =>
    capitalized
      ? `${list}|${list.replace(/(^|\|)(.)/g, (_, bar: string, first: string) => bar + first.toUpperCase())}`
      : list;
  const spaced = only.filter((language) => language.spaced).map((language) => withCapitals(language[field]));
  const unspaced = only.filter((language) => !language.spaced).map((language) => language[field]);
  const parts = [];
  if (spaced.length > 0) parts.push(`${wordStart}(?:${alternatives(spaced)})${wordEnd}`);
  if (unspaced.length > 0) parts.push(`(?:${alternatives(unspaced)})`);
  return `(?:${parts.join('|')})`;
}

/**
 * A stating verb of another language, unless a negation or bound stands just before it ("n'est", "不是", "至少为").
 * English keeps its own verbs in each rule (statingVerb, statedNumber).
 */
const foreignVerb = `(?:${foreign
  .map((language) => {
    const verb = wordsOf('states', [language]);
    if (language.beforeVerb === undefined) return verb;
    const refused = language.spaced
      ? String.raw`${wordStart}(?:${alternatives([language.beforeVerb])})\s*`
      : `(?:${alternatives([language.beforeVerb])})`;
    return `(?<!${refused})${verb}`;
  })
  .join('|')})`;

/**
 * Another language's answer phrase: the noun "answer" followed by a colon (also the full-width "：") or a stating
 * verb, with one word between them allowed ("Réponse :", "la réponse finale est", "Die Antwort lautet", "La
 * respuesta correcta es", "答案是", "答案应该是", "答えは", "الإجابة هي").
 */
export const foreignAnswerPhrase = [
  String.raw`${wordsOf(
    'answer',
    foreign.filter((language) => language.spaced),
  )}(?:\s+[\p{L}\p{M}]+)?\s*(?:[:：]|${foreignVerb})`,
  String.raw`${wordsOf(
    'answer',
    foreign.filter((language) => !language.spaced),
  )}[\p{L}\p{M}]{0,3}?\s*(?:[:：]|${foreignVerb})`,
].join('|');

/** An answer phrase: "Answer:", "the answer is" (English, as before), or another language's (foreignAnswerPhrase). */
export const answerPhrase = new RegExp(String.raw`answer\s*:|the answer is|${foreignAnswerPhrase}`, 'giu');

/** A verb that states the value after it ("is", "it's", "are", "equals", "=", and other languages' verbs). */
export const statingVerb = new RegExp(
  String.raw`\b(?:is|it's|are|equals)\b:?|=|${foreignVerb}\s*[:：]?`,
  'giu',
);

/** A negation, bound or hedge in any language: a sentence of one number with one of these states no value. */
export const bound = new RegExp(wordsOf('bounds'), 'iu');

/** A bound that follows a number in any language ("以上" of "5以上", "or more"): never a measure word or unit. */
export const boundAfter = new RegExp(String.raw`^\s*${wordsOf('boundsAfter')}`, 'iu');

/** The start of a reason, which ends an answer: "because", "since", "parce que", "因为". */
export const reasonStart = new RegExp(
  [
    String.raw`(?<=[\s,;，、])${wordsOf(
      'reasons',
      all.filter((language) => language.spaced),
    )}`,
    wordsOf(
      'reasons',
      all.filter((language) => !language.spaced),
    ),
  ].join('|'),
  'iu',
);

/** A Japanese sentence ends in its copula, after the value ("5です" states 5): it ends the sentence like a stop. */
export const finalCopulas: readonly string[] =
  'です|でした|である|だ|となります|になります|となる|になる'.split('|');

const sentenceEnd = String.raw`.!?\n。！？؟`;
const numberText = String.raw`-?\d(?:[\d,]*\d)?(?:\.\d+)?(?:\/\d+)?%?`;

/**
 * A stating verb, then a number or a chain of arithmetic on numbers (in Markdown bold or not), then what the chain
 * equals: "is 2/3", "are 12 distinct", "is 3 + 10 = 13 birds" (13), "هو **92**", "为13/28", "一共有3 + 10 = 13只".
 * Nothing is stated by a number that other operators follow ("is 15 × 3"), one a bound or range follows ("is 5 or
 * more", "为5以上", "ist 3 bis 5"), or one that "and"/"or" and another number follow in its sentence ("There are 4
 * objects and 4/9 remain.", "总共有3只鸟和10只鹳鸟"), nor one in a clause that opens with a condition ("If n is 5, ...",
 * "如果是5，..."): it is supposed, not answered. Groups: 2 the number or chain, 3 what the chain equals.
 */
export const statedNumber = new RegExp(
  [
    `(?<!${wordsOf('conditions', all, true)}[^${sentenceEnd},;，；、]{0,40})`,
    String.raw`(?:\b(?:is|are|equals|was)\s+|${foreignVerb}\s*)(\*\*)?`,
    String.raw`(${numberText}(?:\s*[-+*/]\s*${numberText})*)(?:\s*=\s*(${numberText}))?\1`,
    String.raw`(?![\d,.]*\d)(?!\s*[-+*/×÷=^(\d])`,
    String.raw`(?!\s*(?:${wordsOf('boundsAfter')}|${wordsOf('rangeTo')}\s*-?\d))`,
    String.raw`(?![^${sentenceEnd}]{0,80}?${wordsOf('joins')}\s*-?\d)`,
  ].join(''),
  'gu',
);

/** A word that joins two values in any language ("or", "ou", "oder", "或", "か", "أو"): two options so joined are a hedge. */
export const joinWord = wordsOf('joins');

/**
 * After a stated value, a word that rejects another ("6, not 5", "6 rather than 5", "6，不是5"): the stated value is
 * the answer and the rejected one never is (issue 45). Spaced languages need a space, comma or bracket before it.
 */
export const rejectionStart = new RegExp(
  [
    String.raw`(?<=[\s,;(，、])${wordsOf(
      'rejects',
      all.filter((language) => language.spaced),
    )}`,
    wordsOf(
      'rejects',
      all.filter((language) => !language.spaced),
    ),
  ].join('|'),
  'iu',
);

/** Only a rejection word between two values: the gap of "$6$, not $5$" (issue 45). */
export const rejectionGap = new RegExp(String.raw`^[\s,;(，、]*${wordsOf('rejects')}\s*$`, 'iu');

/** A rejection word just before a value: the "$5$" of "$6$, not $5$" is rejected, never the answer (issue 45). */
export const rejectionBefore = new RegExp(
  [
    String.raw`(?:^|[\s,;(，、])${wordsOf(
      'rejects',
      all.filter((language) => language.spaced),
    )}\s*$`,
    String.raw`${wordsOf(
      'rejects',
      all.filter((language) => !language.spaced),
    )}\s*$`,
  ].join('|'),
  'iu',
);

/**
 * At the start of what follows a stated answer, a word offering another value or taking the answer back: "Answer: 5.
 * Or maybe 7.", "Answer: 5. Wait, ..." (issue 45).
 */
export const alternativeAfter = new RegExp(
  String.raw`^[\s.,;:!?。，；！？$]*(?:${wordsOf('or')}|${wordsOf('retracts')})`,
  'iu',
);

/** Within a stated answer, an alternative offered with a hedge: "$3$ or maybe $4$", "5 ou peut-être 7" (issue 45). */
export const hedgedAlternative = new RegExp(String.raw`${wordsOf('or')}[\s,]*${wordsOf('bounds')}`, 'iu');
