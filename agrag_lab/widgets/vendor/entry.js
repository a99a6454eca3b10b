// Bundled by esbuild into agrag_lab/widgets/vendor/graph-explorer-vendor.mjs (see vendor/README.md).
export { default as Sigma } from "sigma";
export { default as Graph } from "graphology";
export { default as FA2Layout } from "graphology-layout-forceatlas2/worker";
export { default as forceAtlas2 } from "graphology-layout-forceatlas2";
