// esbuild bundles imported CSS into app.css; to TypeScript it is a side effect.
declare module '*.css';
