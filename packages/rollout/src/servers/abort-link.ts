/** A signal tied to others, and the way to untie it. */
export interface AbortLink {
  readonly signal: AbortSignal;
  /** Detaches from the sources and stops the timer; call it when the work is done. */
  dispose(): void;
}

/**
 * A signal that aborts when any source does (with its reason) or, with `timeout`, after `timeout.ms` (with
 * `timeout.reason()`). Built by hand rather than with AbortSignal.any / AbortSignal.timeout: on Node 20 a timeout
 * signal inside AbortSignal.any can be garbage-collected before it fires (nodejs/node#57736), which leaves a
 * request hanging forever, and every AbortSignal.any of a long-lived source stays attached to it (#48419).
 */
export function linkAbort(
  sources: readonly AbortSignal[],
  timeout?: { ms: number; reason: () => unknown },
): AbortLink {
  const controller = new AbortController();
  const listeners: [AbortSignal, () => void][] = [];
  let timer: NodeJS.Timeout | undefined;
  const dispose = () => {
    clearTimeout(timer);
    for (const [source, listener] of listeners) source.removeEventListener('abort', listener);
  };
  const abort = (reason: unknown) => {
    dispose();
    controller.abort(reason);
  };
  for (const source of sources) {
    if (source.aborted) {
      abort(source.reason);
      return { signal: controller.signal, dispose };
    }
    const listener = () => abort(source.reason);
    source.addEventListener('abort', listener);
    listeners.push([source, listener]);
  }
  if (timeout !== undefined) timer = setTimeout(() => abort(timeout.reason()), timeout.ms);
  return { signal: controller.signal, dispose };
}
