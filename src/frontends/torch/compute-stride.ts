// Whether a reshape can be a view: a port of computeStride_impl in aten/src/ATen/TensorUtils.cpp
// (pytorch/pytorch, BSD-3-Clause), which `reshape` (aten/src/ATen/native/TensorShape.cpp,
// reshape_symint / _reshape_copy) calls: strides for `newShape` over the same memory, or undefined
// when the elements are not laid out so (reshape then copies: clone(contiguous) + _unsafe_view).

export function computeStride(oldShape: readonly number[], oldStride: readonly number[], newShape: readonly number[]): number[] | undefined {
  const newStride = new Array<number>(newShape.length).fill(0);
  const numel = oldShape.reduce((a, b) => a * b, 1);
  if (numel === 0) {
    if (oldShape.length === newShape.length && oldShape.every((d, i) => d === newShape[i])) return [...oldStride];
    // Empty tensors: contiguous strides of the new shape.
    let stride = 1;
    for (let d = newShape.length - 1; d >= 0; d--) { newStride[d] = stride; stride *= Math.max(newShape[d], 1); }
    return newStride;
  }
  if (oldShape.length === 0) return newStride.fill(1); // a 0-dim tensor holds one element
  let viewD = newShape.length - 1;
  let chunkBaseStride = oldStride[oldStride.length - 1];
  let tensorNumel = 1;
  let viewNumel = 1;
  for (let tensorD = oldShape.length - 1; tensorD >= 0; tensorD--) {
    tensorNumel *= oldShape[tensorD];
    if (tensorD === 0 || (oldShape[tensorD - 1] !== 1 && oldStride[tensorD - 1] !== tensorNumel * chunkBaseStride)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] === 1)) {
        newStride[viewD] = viewNumel * chunkBaseStride;
        viewNumel *= newShape[viewD];
        viewD--;
      }
      if (viewNumel !== tensorNumel) return undefined;
      if (tensorD > 0) {
        chunkBaseStride = oldStride[tensorD - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  return viewD === -1 ? newStride : undefined;
}
