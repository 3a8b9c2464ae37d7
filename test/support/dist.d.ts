// Tests import the built package, as users do.
declare module '../../dist/index.mjs' {
  export * from '../../dist/index';
}
