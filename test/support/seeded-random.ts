import { mersenne, unsafeUniformIntDistribution } from 'pure-rand';

/** A seeded PRNG (pure-rand's Mersenne Twister) giving numbers in [0, 1): a seed fixes every generated graph, input and weight. */
export function seededRandom(seed: number): () => number {
  const generator = mersenne(seed);
  return () => unsafeUniformIntDistribution(0, 0xffffffff, generator) / 4294967296;
}
