// `runtime: 'ort-cpu'` gives a Conv the scratch ONNX Runtime's CPU kernel allocates.
// Every figure is derived by hand from microsoft/onnxruntime (read, not copied):
// - float Conv rank 1-3: onnxruntime/core/providers/cpu/nn/conv.cc (commit 009855cfa44f,
//   Conv<float>::Compute) allocates MlasConvPrepare's WorkingBufferSize floats;
//   onnxruntime/core/mlas/lib/convolve.cpp (commit 00b8ce23ed3b, MlasConvPrepare) picks the
//   algorithm; mlasi.h: MLAS_SGEMM_STRIDEN = MLAS_SGEMM_STRIDEK = 128 (a thread's buffer is
//   128 * 128 = 16384 floats = 65536 B), MLAS_MAXIMUM_THREAD_COUNT 16,
//   MLAS_SGEMM_STRIDEN_THREAD_ALIGN 16, MLAS_SGEMM_THREAD_COMPLEXITY 65536. MlasGetMaximumThreadCount
//   is ThreadPool::DegreeOfParallelism: intra_op_num_threads (`ortThreads`, default 1).
// - ConvTranspose<float>::DoConvTranspose (nn/conv_transpose.cc, commit 009855cfa44f): kernel_dim *
//   input_image_size floats, kernel_dim = W.shape[1] * prod(kernel).
// - ConvInteger::Compute (quantization/conv_integer.cc, commit 009855cfa44f): C/group * prod(kernel)
//   * output_image_size uint8, none for a 1x1 kernel with strides 1 and no pads.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BACKENDS, session } from '../../support/backends';
import { T, oneNode, weight } from './onnx-models.mjs';

const PER_THREAD = 128 * 128 * 4;

describe.each(BACKENDS)("runtime 'ort-cpu' Conv scratch on %s", (backend) => {
  const tp = session(backend);
  const scratch = (op: string, x: number[], w: number[], attrs: Record<string, unknown> = {}, ortThreads?: number, type = T.FLOAT) => {
    const model = oneNode(op, { x }, { initializers: [weight('w', w, type)], extraInputs: ['w'], attrs, types: { x: type } });
    const r = tp.importOnnx(model, { runtime: 'ort-cpu', ...(ortThreads ? { ortThreads } : {}) });
    return r.graph.ops[0].workspaceBytes ?? 0;
  };

  it('GemmDirect (no buffer): a pointwise kernel, or one input channel with the kernel as wide as the input', () => {
    expect(scratch('Conv', [1, 8, 16, 16], [16, 8, 1, 1])).toBe(0);
    // InputChannels 1, strides 1, no pads, dilations 1, kernel width 20 == input width 20.
    expect(scratch('Conv', [1, 1, 10, 20], [4, 1, 3, 20])).toBe(0);
    // Rank 1 is promoted to [1, W]: a kernel of the input's length is GemmDirect too.
    expect(scratch('Conv', [1, 1, 50], [8, 1, 50])).toBe(0);
    // Padding breaks it: 1 * 3 * 20 = K 60 > InputChannels, FilterCount 4 <= OutputSize 10 * 3 -> one thread's buffer.
    expect(scratch('Conv', [1, 1, 10, 20], [4, 1, 3, 20], { pads: [1, 1, 1, 1] })).toBe(PER_THREAD);
  });

  it('ExpandThenGemm when FilterCount > OutputSize: the whole im2col, OutputSize * K floats', () => {
    // 4x4 input, 3x3 kernel, no pads -> 2x2 = 4 outputs; 64 filters > 4; K = 16 * 9 = 144.
    expect(scratch('Conv', [1, 16, 4, 4], [64, 16, 3, 3])).toBe(4 * 144 * 4);
    expect(scratch('Conv', [1, 16, 4, 4], [64, 16, 3, 3], {}, 8)).toBe(4 * 144 * 4);
  });

  it('ExpandThenGemmSegmented: one 128x128 float buffer per thread, threads from the complexity and ortThreads', () => {
    // 1x3x64x64, 16 filters 3x3, stride 2, pads 1 -> 32x32 = 1024 outputs, K 27.
    // Complexity 16 * 1024 * 27 = 442368 -> floor(442368 / 65536) + 1 = 7 threads at most.
    const stem = (threads?: number) => scratch('Conv', [1, 3, 64, 64], [16, 3, 3, 3], { strides: [2, 2], pads: [1, 1, 1, 1] }, threads);
    expect(stem()).toBe(PER_THREAD);
    // 4 threads: StrideN ceil(1024 / 4) = 256 (16-aligned), 256 * 3 < 1024: all 4 work.
    expect(stem(4)).toBe(4 * PER_THREAD);
    // 8 threads -> 7 (complexity); StrideN ceil(1024 / 7) = 147 -> 160, 160 * 6 = 960 < 1024: 7.
    expect(stem(8)).toBe(7 * PER_THREAD);
    expect(stem(16)).toBe(7 * PER_THREAD);
    // 1x64x4x5, 20 filters 3x3, pads 1 -> 20 outputs, K 576: complexity 230400 -> 4 threads;
    // StrideN ceil(20 / 4) = 5 -> 16, and 16 * 3 = 48 >= 20: one thread would idle, 3.
    expect(scratch('Conv', [1, 64, 4, 5], [20, 64, 3, 3], { pads: [1, 1, 1, 1] }, 4)).toBe(3 * PER_THREAD);
    // 1x64x4x4, 16 filters -> 16 outputs, complexity 147456 -> 3, 2 threads: StrideN 8 -> 16 >= 16: one thread.
    expect(scratch('Conv', [1, 64, 4, 4], [16, 64, 3, 3], { pads: [1, 1, 1, 1] }, 2)).toBe(PER_THREAD);
    // Rank 3: 1x2x4x4x4, 4 filters 3x3x3, pads 1 -> 64 outputs, K 54, 4 <= 64.
    expect(scratch('Conv', [1, 2, 4, 4, 4], [4, 2, 3, 3, 3], { pads: [1, 1, 1, 1, 1, 1] })).toBe(PER_THREAD);
    // auto_pad SAME_UPPER, 1x1 kernel, stride 2 on 8x8: pads resolve to 0 but the stride is 2 -> segmented.
    expect(scratch('Conv', [1, 4, 8, 8], [8, 4, 1, 1], { strides: [2, 2], auto_pad: 'SAME_UPPER' })).toBe(PER_THREAD);
  });

  it('groups or a batch above 1: min(threads, batch * group) buffers of max(OutputSize * K, FilterCount * OutputSize, 16384) floats', () => {
    // Depthwise 1x32x16x16, 3x3, pads 1: OutputSize 256, K 9 -> max(2304, 256, 16384) = 16384.
    const dw = (threads?: number) => scratch('Conv', [1, 32, 16, 16], [32, 1, 3, 3], { group: 32, pads: [1, 1, 1, 1] }, threads);
    expect(dw()).toBe(PER_THREAD);
    expect(dw(4)).toBe(4 * PER_THREAD);
    // Depthwise 1x8x64x64: OutputSize 4096, K 9 -> 36864 floats; 16 threads -> min(16, 8) = 8 buffers.
    expect(scratch('Conv', [1, 8, 64, 64], [8, 1, 3, 3], { group: 8, pads: [1, 1, 1, 1] })).toBe(36864 * 4);
    expect(scratch('Conv', [1, 8, 64, 64], [8, 1, 3, 3], { group: 8, pads: [1, 1, 1, 1] }, 16)).toBe(8 * 36864 * 4);
    // Batch 2: 2x3x8x8, 4 filters 3x3, pads 1: OutputSize 64, K 27 -> 16384; 4 threads -> min(4, 2) = 2.
    expect(scratch('Conv', [2, 3, 8, 8], [4, 3, 3, 3], { pads: [1, 1, 1, 1] }, 4)).toBe(2 * PER_THREAD);
  });

  it('ConvTranspose: kernel_dim * input_image_size floats; ConvInteger: the uint8 im2col', () => {
    // W 8x4x3x3 (M/group = 4), 5x5 input: 4 * 9 * 25 floats.
    expect(scratch('ConvTranspose', [1, 8, 5, 5], [8, 4, 3, 3])).toBe(4 * 9 * 25 * 4);
    // 1x4x6x6 uint8, 8 filters 3x3 -> 4x4: 4 * 9 * 16 bytes; a 1x1 kernel reads X directly.
    expect(scratch('ConvInteger', [1, 4, 6, 6], [8, 4, 3, 3], {}, undefined, T.UINT8)).toBe(4 * 9 * 16);
    expect(scratch('ConvInteger', [1, 4, 6, 6], [8, 4, 1, 1], {}, undefined, T.UINT8)).toBe(0);
  });

  it('ortThreads is checked by name and needs the ort-cpu runtime', () => {
    const model = oneNode('Conv', { x: [1, 3, 8, 8] }, { initializers: [weight('w', [4, 3, 3, 3])], extraInputs: ['w'] });
    expect(() => tp.importOnnx(model, { runtime: 'ort-cpu', ortThreads: 0 })).toThrow(/options\.ortThreads = 0: must be an integer >= 1/);
    expect(() => tp.importOnnx(model, { runtime: 'ort-cpu', ortThreads: 1.5 })).toThrow(/options\.ortThreads = 1\.5: must be an integer >= 1/);
    expect(() => tp.importOnnx(model, { ortThreads: 2 })).toThrow(/options\.ortThreads = 2: must be given with runtime: 'ort-cpu'/);
  });
});

describe('--ort-threads', () => {
  const bin = new URL('../../../bin/tensorplan.mjs', import.meta.url).pathname;
  const model = new URL('../../fixtures/onnx-real/mobilenet_v3_small.onnx', import.meta.url).pathname;
  const run = (...args: string[]) => spawnSync(process.execPath, [bin, 'plan', model, '--backend', 'wasm', ...args], { encoding: 'utf8' });
  it('sizes the Conv working buffer by the thread count, and is refused without --runtime ort-cpu or with a bad count', () => {
    const one = run('--runtime', 'ort-cpu', '--json'), four = run('--runtime', 'ort-cpu', '--ort-threads', '4', '--json');
    expect(one.status, one.stderr).toBe(0);
    expect(four.status, four.stderr).toBe(0);
    // The stem's buffer grows from one thread's 65536 B to four (complexity allows 7): the arena grows.
    expect(JSON.parse(four.stdout).arenaBytes).toBeGreaterThan(JSON.parse(one.stdout).arenaBytes);
    const bare = run('--ort-threads', '2');
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toMatch(/--ort-threads 2: expected an integer >= 1 \(ONNX Runtime's intra_op_num_threads\), with --runtime ort-cpu/);
    expect(run('--runtime', 'ort-cpu', '--ort-threads', '0').stderr).toMatch(/--ort-threads 0: expected an integer >= 1/);
  });
});
