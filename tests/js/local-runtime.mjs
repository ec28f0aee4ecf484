// `node --import ./tests/js/local-runtime.mjs ...`: resolve the package
// `response-template-runtime` to runtime/js/ under the current directory
// instead of node_modules (the mutation run tests a mutated copy of the
// project in a sandbox whose node_modules still points at the original).

import { register } from "node:module";
import { pathToFileURL } from "node:url";

const runtime = pathToFileURL(`${process.cwd()}/runtime/js/index.mjs`).href;
register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === "response-template-runtime") return { url: ${JSON.stringify(runtime)}, shortCircuit: true };
  return next(specifier, context);
}`)}`,
);
