import { ResponseBuilder, type Trajectory } from '../src/index';

/** A small but complete trajectory: policy text, one failed and one successful tool call, a final answer. */
export function sampleTrajectory(overrides: Partial<Trajectory> = {}): Trajectory {
  const builder = new ResponseBuilder();
  builder.appendPolicy([10, 11, 12], [-0.5, -1.25, -0.125], [1.5, 0.25, 2]);
  builder.appendObservation([20, 21], { status: 'error', code: 'print(1/0)', output: 'ZeroDivisionError' });
  builder.appendPolicy([13, 14], [-0.1, Math.fround(-1 / 3)], [0.3, 0.7]);
  builder.appendObservation([22], { status: 'ok', code: 'print(2)', output: '2' });
  builder.appendPolicy([15], [-2], [3]);
  return {
    groupId: 'q-7',
    promptIds: Int32Array.from([1, 2, 3]),
    ...builder.build(),
    reward: 1,
    correct: true,
    truncated: false,
    text: 'code … \u{1F600} <|im_end|> "quoted"\n',
    ...overrides,
  };
}
