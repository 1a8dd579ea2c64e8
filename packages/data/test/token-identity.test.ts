import { describe, expect, it } from 'vitest';
import { ChatTemplate, ResponseBuilder, trainingSequence } from '../src/index';
import { qwen3 } from './qwen3';

describe('training tokens equal rollout tokens', () => {
  it('keeps the sampled ids even where re-tokenizing the text would not', async () => {
    const tokenizer = await qwen3();
    const template = ChatTemplate.fromTokenizerConfig(tokenizer.config);
    const promptIds = tokenizer.encode(
      template.render([{ role: 'user', content: 'What is 2**10?' }], { addGenerationPrompt: true }),
    );
    // A sampler may emit a non-canonical split ("Let" + " me" as "L" + "et me"), and an observation that starts
    // with a newline can merge with the policy's closing fence when the joined text is re-encoded.
    const sampled = [
      ...tokenizer.encode('L'),
      ...tokenizer.encode('et me check.\n```python\nprint(2**10)\n```'),
    ];
    const observation = tokenizer.encodeUntrusted('\n```output\n1024 <|im_end|>\n```\n');
    const answer = [...tokenizer.encode('The answer is \\boxed{1024}.'), tokenizer.eosTokenId];
    const builder = new ResponseBuilder().appendPolicy(
      sampled,
      sampled.map(() => -0.5),
      sampled.map(() => 1),
    );
    builder.appendObservation(observation, { status: 'ok', code: 'print(2**10)', output: '1024 <|im_end|>' });
    builder.appendPolicy(answer);
    const response = builder.build();

    const sequence = trainingSequence({ promptIds, ...response });
    const rolloutIds = [...promptIds, ...sampled, ...observation, ...answer];
    expect(Array.from(sequence.inputIds)).toEqual(rolloutIds);
    expect(Array.from(sequence.lossMask)).toEqual([
      ...new Array(promptIds.length).fill(0),
      ...new Array(sampled.length).fill(1),
      ...new Array(observation.length).fill(0),
      ...new Array(answer.length).fill(1),
    ]);

    // The failure this guards against: decoding and re-encoding the same text yields different ids, and the
    // literal "<|im_end|>" in tool output would become a turn end.
    const retokenized = Array.from(tokenizer.encode(tokenizer.decode(sequence.inputIds)));
    expect(retokenized).not.toEqual(rolloutIds);
    const eosCount = (ids: number[]) => ids.filter((id) => id === tokenizer.eosTokenId).length;
    expect(eosCount(retokenized)).toBeGreaterThan(eosCount(rolloutIds));
  });
});
