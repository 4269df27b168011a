'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { serverCommand, startFailureMessage, DOCUMENT_SELECTOR } = require('../server');

test('the setting wins', () => {
  assert.deepStrictEqual(serverCommand(['/opt/py', '-m', 'schemac', 'lsp'], ['/x']),
    { command: '/opt/py', args: ['-m', 'schemac', 'lsp'] });
});

test("the workspace's launcher, else an installed schemac, else python3 -m schemac lsp", () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'schemac-ws-'));
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'schemac-bin-'));
  assert.deepStrictEqual(serverCommand([], [ws], bin), { command: 'python3', args: ['-m', 'schemac', 'lsp'] });
  fs.writeFileSync(path.join(bin, 'schemac'), '#!/bin/sh\n', { mode: 0o755 });
  assert.deepStrictEqual(serverCommand([], [ws], `/nonexistent${path.delimiter}${bin}`),
    { command: path.join(bin, 'schemac'), args: ['lsp'] });
  fs.mkdirSync(path.join(ws, 'editors'));
  fs.writeFileSync(path.join(ws, 'editors', 'schemac-lsp'), '#!/bin/sh\n');
  assert.deepStrictEqual(serverCommand(undefined, [ws]), { command: path.join(ws, 'editors', 'schemac-lsp'), args: [] });
});

test('a server that does not start is explained', () => {
  const m = startFailureMessage({ command: 'python3', args: ['-m', 'schemac', 'lsp'] });
  assert.match(m, /did not start \(python3 -m schemac lsp\)/);
  assert.match(m, /pip install "schemac\[lsp\]"/);
  assert.match(m, /output panel/);
});

test('both languages are served', () => {
  assert.deepStrictEqual(DOCUMENT_SELECTOR.map((s) => s.language), ['esdl', 'edgeql']);
});

test('the manifest declares both file kinds and grammars', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const langs = Object.fromEntries(pkg.contributes.languages.map((l) => [l.id, l.extensions]));
  assert.deepStrictEqual(langs, { esdl: ['.esdl', '.gel'], edgeql: ['.edgeql'] });
  for (const g of pkg.contributes.grammars) {
    assert.ok(fs.existsSync(path.join(__dirname, '..', g.path)), g.path);
  }
});
