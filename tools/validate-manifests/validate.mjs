#!/usr/bin/env node
// Validates rendered Kubernetes manifests offline: `node validate.mjs FILE...` (multi-document YAML,
// e.g. the output of `kubectl kustomize`). Each object is checked twice against its kind's schema,
// both generated from the Kubernetes (and prometheus-operator) OpenAPI by the kubernetes-models packages:
//  1. at run time with the package's JSON-schema validator (types, formats, required fields, enums);
//  2. with the TypeScript compiler against the package's types, whose excess-property check refuses
//     any field the schema does not have, at any depth (a misspelled field passes step 1).
// An object whose apiVersion and kind have no schema here is an error: nothing passes unchecked.
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnSync } from "node:child_process";
import { parseAllDocuments } from "yaml";

const here = dirname(fileURLToPath(import.meta.url));

/** The kubernetes-models module of an apiVersion and kind, or null. */
function modelModule(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const candidates = group === "monitoring.coreos.com"
    ? [`@kubernetes-models/prometheus-operator/${group}/${version}/${kind}`]
    : [`kubernetes-models/${group ? group + "/" : ""}${version}/${kind}`];
  for (const m of candidates) {
    if (existsSync(join(here, "node_modules", m + ".js"))) {
      return m;
    }
  }
  return null;
}

const objects = [];
const problems = [];
for (const file of process.argv.slice(2)) {
  parseAllDocuments(readFileSync(file, "utf8")).forEach((doc, i) => {
    if (doc.errors.length > 0) {
      problems.push(`${file}: document ${i + 1}: ${doc.errors[0].message}`);
      return;
    }
    const obj = doc.toJS();
    if (obj === null) {
      return;
    }
    // kustomize wraps long base64 values of generated Secrets at 70 characters; the API server decodes
    // them with Go's base64, which skips newlines, so they are checked as the server reads them.
    if (obj.kind === "Secret" && obj.data !== null && typeof obj.data === "object") {
      for (const k of Object.keys(obj.data)) {
        if (typeof obj.data[k] === "string") {
          obj.data[k] = obj.data[k].replace(/[\r\n]/g, "");
        }
      }
    }
    const where = `${file}: ${obj.kind ?? "?"}/${obj.metadata?.name ?? "?"}`;
    const module = typeof obj.apiVersion === "string" && typeof obj.kind === "string" ? modelModule(obj.apiVersion, obj.kind) : null;
    if (module === null) {
      problems.push(`${where}: no schema for apiVersion ${obj.apiVersion} kind ${obj.kind}`);
      return;
    }
    objects.push({ where, obj, module });
  });
}

for (const o of objects) {
  const Model = (await import(o.module))[o.obj.kind];
  try {
    new Model(o.obj).validate();
  } catch (e) {
    problems.push(`${o.where}: ${e.message}`);
  }
}

// The type check: one typed constant per object; an error's line names its object.
// Inside this directory, so that the compiler resolves the packages from its node_modules.
const dir = mkdtempSync(join(here, ".check-"));
try {
  const lines = [];
  const lineOf = [];
  objects.forEach((o, n) => {
    lines.push(`import type { I${o.obj.kind} as T${n} } from "${o.module}";`);
  });
  objects.forEach((o, n) => {
    lineOf[lines.length + 1] = o;
    lines.push(`export const o${n}: T${n} = ${JSON.stringify(o.obj)};`);
  });
  const check = join(dir, "check.mts");
  writeFileSync(check, lines.join("\n") + "\n");
  writeFileSync(join(dir, "package.json"), '{"type": "module"}\n');
  const tsc = join(here, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "--noEmit", "--strict", "--skipLibCheck", "--module", "node16",
    "--moduleResolution", "node16", check],
    { encoding: "utf8", cwd: here });
  for (const line of (r.stdout + r.stderr).split("\n")) {
    const m = /check\.mts\((\d+),\d+\): error TS\d+: (.*)$/.exec(line);
    if (m) {
      const o = lineOf[Number(m[1])];
      problems.push(`${o ? o.where : "check.mts:" + m[1]}: ${m[2]}`);
    } else if (line.trim() && !/^\s/.test(line) && r.status !== 0 && !/check\.mts/.test(line)) {
      problems.push(`tsc: ${line}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (problems.length > 0) {
  for (const p of problems) {
    console.error(p);
  }
  console.error(`validate-manifests: ${problems.length} problem(s) in ${objects.length} object(s)`);
  process.exit(1);
}
console.log(`validate-manifests: ${objects.length} objects valid (${process.argv.slice(2).join(", ")})`);
