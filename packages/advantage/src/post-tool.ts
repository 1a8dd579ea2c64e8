import type { PostToolWindow, ToolCallSpan } from './types';

/** What M_post needs: the loss mask and the tool-call observation spans. */
export interface PostToolInput {
  readonly lossMask: Uint8Array;
  readonly toolCalls: readonly ToolCallSpan[];
}

export function checkWindow(where: string, window: unknown): PostToolWindow {
  if (window === 'segment') return window;
  const k = (window as { firstTokens?: unknown } | null)?.firstTokens;
  if (typeof window === 'object' && typeof k === 'number' && Number.isInteger(k) && k >= 1) {
    return window as PostToolWindow;
  }
  throw new Error(
    `${where}: option 'window' must be 'segment' or { firstTokens: integer >= 1 }, got ${JSON.stringify(window)}`,
  );
}

/**
 * M_post as position ranges, flat [start0, end0, start1, end1, ...]: for each successful call, from the end of
 * its observation to the next call's observation (or the end); with `firstTokens: k`, cut after the k-th policy
 * token. Only positions with lossMask != 0 inside a range belong to M_post.
 */
export function postToolRanges(t: PostToolInput, index: number, window: PostToolWindow): Int32Array {
  const { lossMask, toolCalls } = t;
  if (!(lossMask instanceof Uint8Array)) {
    throw new Error(`trajectory ${index}: field 'lossMask' must be a Uint8Array`);
  }
  if (!Array.isArray(toolCalls)) throw new Error(`trajectory ${index}: field 'toolCalls' must be an array`);
  const n = lossMask.length;
  const ranges: number[] = [];
  let previousEnd = 0;
  toolCalls.forEach((call, j) => {
    const { startToken: s, endToken: e } = call;
    if (!Number.isInteger(s) || !Number.isInteger(e) || s < previousEnd || e < s || e > n) {
      throw new Error(
        `trajectory ${index}: toolCalls[${j}] has observation span [${s}, ${e}); spans must be integer, ` +
          `half-open, in order, non-overlapping and within the ${n} response tokens`,
      );
    }
    previousEnd = e;
    if (call.status !== 'ok') return;
    const segmentEnd = j + 1 < toolCalls.length ? toolCalls[j + 1]!.startToken : n;
    let end = segmentEnd;
    if (window !== 'segment') {
      let policyTokens = 0;
      for (let p = e; p < segmentEnd; p++) {
        if (lossMask[p] !== 0 && ++policyTokens === window.firstTokens) {
          end = p + 1;
          break;
        }
      }
    }
    if (end > e) ranges.push(e, end);
  });
  return Int32Array.from(ranges);
}

/**
 * TAO-RL's M_post for one trajectory: 1 at the policy tokens that follow a successful tool call's observation,
 * up to the next tool call (`window: 'segment'`, default) or for its first k policy tokens.
 */
export function postToolMask(
  trajectory: PostToolInput,
  options: { readonly window?: PostToolWindow } = {},
): Uint8Array {
  const ranges = postToolRanges(trajectory, 0, checkWindow('postToolMask', options.window ?? 'segment'));
  const { lossMask } = trajectory;
  const mask = new Uint8Array(lossMask.length);
  for (let r = 0; r < ranges.length; r += 2) {
    for (let p = ranges[r]!; p < ranges[r + 1]!; p++) mask[p] = lossMask[p] !== 0 ? 1 : 0;
  }
  return mask;
}
