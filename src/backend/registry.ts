import { TensorplanError, shown } from '../errors.js';
import type { CoreBinding } from '../abi/core-binding.js';
import type { CudaProbe } from './native-core.js';

/**
 * Names of the backends tensorplan knows, highest default priority first.
 *
 * @group Session
 */
export type BackendName = 'cuda' | 'native' | 'wasm';

/**
 * Which backend to use: a name, or `'auto'` for the highest-priority one that loads.
 *
 * @group Session
 */
export type BackendChoice = BackendName | 'auto';

/** A backend that loaded: its core, and what it knows about the machine. */
export interface LoadedBackend {
  readonly name: BackendName;
  readonly core: CoreBinding;
  /** Where the core came from (addon path, wasm URL), for `info()`. */
  readonly source: string;
  /** The CUDA probe, for backends built on the native addon. */
  readonly cuda?: CudaProbe;
  /** @internal The addon's exports (native and cuda backends): the executors that run off the JS thread. */
  readonly addon?: unknown;
}

/**
 * A backend's availability as `info()` reports it.
 *
 * @group Session
 */
export interface BackendStatus {
  readonly name: BackendName;
  readonly priority: number;
  readonly available: boolean;
  /** Why it cannot be used; empty when available. */
  readonly reason: string;
  readonly source?: string;
  readonly coreVersion?: string;
}

interface Entry {
  readonly name: BackendName;
  readonly priority: number;
  readonly load: () => Promise<LoadedBackend>;
  attempt?: Promise<LoadedBackend>;
}

/**
 * Backends by priority, each loaded lazily at most once (success and failure
 * are both remembered, so a broken backend is not retried on every call).
 */
export class BackendRegistry {
  private readonly entries = new Map<BackendName, Entry>();

  /** Adds a backend; a name registers once. */
  register(name: BackendName, priority: number, load: () => Promise<LoadedBackend>): void {
    if (this.entries.has(name)) throw new TensorplanError('INTERNAL', `backend '${name}' is already registered`);
    this.entries.set(name, { name, priority, load });
  }

  /** Registered names, highest priority first. */
  names(): BackendName[] {
    return [...this.entries.values()].sort((a, b) => b.priority - a.priority).map((entry) => entry.name);
  }

  /** Loads one backend (memoised); rejects with BACKEND_UNAVAILABLE and the reason. */
  load(name: BackendName): Promise<LoadedBackend> {
    const entry = this.entries.get(name);
    if (!entry) {
      const known = this.names().join(', ') || 'none';
      return Promise.reject(
        new TensorplanError('BACKEND_UNAVAILABLE', `backend '${name}' is not part of this build (available here: ${known})`, {
          [name]: 'not part of this build',
        }),
      );
    }
    entry.attempt ??= entry.load().catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TensorplanError('BACKEND_UNAVAILABLE', `backend '${name}' is unavailable: ${reason}`, { [name]: reason });
    });
    return entry.attempt;
  }

  /**
   * The backend to use. A named backend that cannot load is an error, never a
   * silent fallback; `'auto'` takes the first that loads by priority and, if
   * none does, fails with every backend's reason.
   */
  async resolve(choice: BackendChoice): Promise<LoadedBackend> {
    if (choice !== 'auto') {
      if (!this.isBackendName(choice)) {
        throw new TensorplanError('INVALID_ARGUMENT', `backend = ${typeof choice === 'string' ? `'${choice}'` : shown(choice)}: expected 'auto', 'cuda', 'native' or 'wasm'`);
      }
      return this.load(choice);
    }
    const reasons: Record<string, string> = {};
    for (const name of this.names()) {
      try {
        return await this.load(name);
      } catch (error) {
        reasons[name] = error instanceof TensorplanError ? (error.reasons[name] ?? error.message) : String(error);
      }
    }
    const detail = Object.entries(reasons).map(([name, reason]) => `[${name}] ${reason}`).join('; ');
    throw new TensorplanError('NO_BACKEND', `no tensorplan backend could be loaded: ${detail || 'none registered'}`, reasons);
  }

  /** Tries every backend and reports each one's availability. */
  async status(): Promise<BackendStatus[]> {
    const statuses: BackendStatus[] = [];
    for (const name of this.names()) {
      const priority = this.entries.get(name)!.priority;
      try {
        const backend = await this.load(name);
        statuses.push({ name, priority, available: true, reason: '', source: backend.source, coreVersion: backend.core.coreVersion });
      } catch (error) {
        const reason = error instanceof TensorplanError ? (error.reasons[name] ?? error.message) : String(error);
        statuses.push({ name, priority, available: false, reason });
      }
    }
    return statuses;
  }

  private isBackendName(name: string): name is BackendName {
    return name === 'cuda' || name === 'native' || name === 'wasm';
  }
}

/** Default priorities (ARCHITECTURE.md decision 4): cuda > native > wasm. */
export const BACKEND_PRIORITY: Readonly<Record<BackendName, number>> = { cuda: 30, native: 20, wasm: 10 };
