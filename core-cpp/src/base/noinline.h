#ifndef TENSORPLAN_NOINLINE_H
#define TENSORPLAN_NOINLINE_H

// Keeps a function out of its callers. The WASM build runs in V8, which
// compiles a function with its optimising compiler (TurboFan) once that
// function alone has run long enough, and uses the optimised code only from
// its next call. One phase of a once-per-plan step inlined into the step makes
// one body that crosses that threshold, costs TurboFan tens of ms on the first
// plan() and is never called again; as separate functions, few phases cross
// it, and a loop's body that is called anew each pass gets its optimised code
// on the next pass. Native builds lose nothing measurable (one call per phase).
#if defined(__GNUC__)
#define TP_NOINLINE __attribute__((noinline))
#else
#define TP_NOINLINE
#endif

#endif  // TENSORPLAN_NOINLINE_H
