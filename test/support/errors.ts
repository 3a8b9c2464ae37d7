// The error a call throws, for tests that read its code and message.
import { expect } from 'vitest';
import { TensorplanError } from '../../dist/index.mjs';

/** Runs `fn`, which must throw a TensorplanError, and returns that error. */
export function errorOf(fn: () => unknown): TensorplanError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TensorplanError);
    return error as TensorplanError;
  }
  throw new Error('expected a TensorplanError');
}
