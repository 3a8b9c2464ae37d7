// Where nvcc is, for the addon build and the GPU runners: $NVCC, then PATH,
// then the toolkit at $CUDA_HOME, $CUDA_PATH or /usr/local/cuda (the variables
// CUDA's own tools and PyTorch read). TP_CUDA=0 turns CUDA off (null).
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';

export function findNvcc() {
  if (process.env.TP_CUDA === '0') return null;
  const toolkit = process.env.CUDA_HOME || process.env.CUDA_PATH || '/usr/local/cuda';
  const candidates = [process.env.NVCC, `${toolkit}/bin/nvcc`];
  const which = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' });
  if (which.status === 0) candidates.splice(1, 0, which.stdout.trim());
  for (const candidate of candidates) {
    if (candidate && existsSync(candidate)) return realpathSync(candidate);
  }
  return null;
}
