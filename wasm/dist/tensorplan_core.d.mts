// Types of the Emscripten glue (written by hand; the glue itself is generated).
declare function createTensorplanCore(options?: { wasmBinary?: Uint8Array | ArrayBuffer }): Promise<unknown>;
export default createTensorplanCore;
