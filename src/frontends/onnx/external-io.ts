// Graph inputs and outputs outside the arena (`externalIO`): ONNX Runtime keeps them in user
// buffers (the arrays passed to and returned by run), outside its memory pattern. They become
// persistent tensors listed in the graph's externalIO, so the core keeps them out of the arena
// and reports their bytes apart from the weights.

/** The graph document's `persistent` and (with `externalIO`) `externalIO` lists. */
export function persistentAndIO(externalIO: boolean, usedConstants: ReadonlySet<string>, graphInputs: readonly string[], outputs: readonly string[]): { persistent: string[]; externalIO?: string[] } {
  return {
    persistent: externalIO
      ? [...new Set([...usedConstants, ...graphInputs, ...outputs])]
      : [...usedConstants],
    // Constants that are graph outputs stay weights: only what the runtime receives or returns is I/O.
    ...(externalIO ? { externalIO: [...new Set([...graphInputs, ...outputs.filter((o) => !usedConstants.has(o))])] } : {}),
  };
}
