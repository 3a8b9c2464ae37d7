import { dirname, resolve } from 'node:path';
import { parseGraph, parsePlan } from '../index.js';
import type { GraphDocument, PlanDocument } from '../index.js';
import { readJsonFile } from './read-input.js';

/**
 * Reads a plan file and the graph it was made for: `--graph` when given,
 * else the file the plan refers to (relative to the plan file); undefined
 * when the plan embeds its graph.
 */
export async function readPlanAndGraph(file: string, graphFile?: string): Promise<{ plan: PlanDocument; graph?: GraphDocument }> {
  const plan = parsePlan(await readJsonFile(file), file);
  if (graphFile) return { plan, graph: parseGraph(await readJsonFile(graphFile), graphFile) };
  if (!('format' in plan.graph)) {
    const path = resolve(dirname(file), plan.graph.path);
    return { plan, graph: parseGraph(await readJsonFile(path), path) };
  }
  return { plan };
}
