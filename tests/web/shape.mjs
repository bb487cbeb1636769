// The web client's function lengths, for tests/web/test_web_checks.py: every function,
// method and arrow function of the .js files under the folders given on the command line,
// parsed with TypeScript's parser (no regular expressions), printed as JSON lines
// {"file", "name", "line", "lines"} (lines: from the line of its first token to the line
// of its last, both counted). Usage: node tests/web/shape.mjs DIR...
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** Every .js file under `dir`, sorted. */
function jsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...jsFiles(path));
    else if (name.endsWith(".js")) out.push(path);
  }
  return out;
}

/** The name a function is known by: its own, its variable's or property's, or "(anonymous)". */
function nameOf(node) {
  if (node.name && node.name.getText) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  return "(anonymous)";
}

for (const file of process.argv.slice(2).flatMap(jsFiles)) {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      console.log(JSON.stringify({ file, name: nameOf(node), line, lines: end - line + 1 }));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
