import {
  ByteTokenizer,
  ChatTemplate,
  generateArithProblems,
  parseTrajectory,
  ResponseBuilder,
  serializeTrajectory,
  trainingSequence,
} from '@taorl/data';

/** The embedded tokenizer and chat template, the arith-tool task and the trajectory JSONL round-trip. */
export function run() {
  const tokenizer = new ByteTokenizer();
  const template = ChatTemplate.embedded();
  const [problem] = generateArithProblems({ seed: 3, split: 'train', count: 1 });
  if (problem === undefined) throw new Error('no problem generated');
  const prompt = template.render([{ role: 'user', content: problem.question }], {
    addGenerationPrompt: true,
  });
  const promptIds = tokenizer.encode(prompt);
  const builder = new ResponseBuilder();
  builder.appendPolicy(tokenizer.encode('```python\nprint(6 * 7)\n```\n```output\n'));
  builder.appendObservation(tokenizer.encodeUntrusted('42\n```\n'), {
    status: 'ok',
    code: 'print(6 * 7)',
    output: '42\n',
  });
  builder.appendPolicy([...tokenizer.encode('\\boxed{42}'), tokenizer.eosTokenId]);
  const trajectory = {
    groupId: problem.id,
    promptIds,
    ...builder.build(),
    reward: 1,
    correct: true,
    truncated: false,
    text: 'print(6 * 7) → 42',
  };
  const line = serializeTrajectory(trajectory);
  const parsed = parseTrajectory(line, { vocabSize: tokenizer.vocabSize });
  const sequence = trainingSequence(parsed);
  return {
    question: problem.question,
    answer: problem.answer,
    prompt,
    promptIds: Array.from(promptIds),
    decodedPrompt: tokenizer.decode(promptIds),
    imEnd: tokenizer.encode('<|im_end|>').length,
    line,
    roundTrip: serializeTrajectory(parsed) === line,
    inputIds: Array.from(sequence.inputIds),
    lossMask: Array.from(sequence.lossMask),
  };
}
