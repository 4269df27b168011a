// How the extension starts the language server: pure Node (no `vscode` import), so node's test
// runner checks it (test/server.test.js).
'use strict';
const fs = require('fs');
const path = require('path');

/**
 * The server command: the `schemac.server.command` setting when given, else the workspace's
 * editors/schemac-lsp (this repository's launcher: python -m schemac lsp with the repository's
 * compiler), else `python3 -m schemac lsp` (the compiler on PYTHONPATH, see "Editor setup").
 * @param {string[]} configured the setting's value
 * @param {string[]} workspaceFolders absolute paths of the workspace folders
 * @returns {{command: string, args: string[]}}
 */
function serverCommand(configured, workspaceFolders) {
  if (Array.isArray(configured) && configured.length > 0) {
    return { command: configured[0], args: configured.slice(1) };
  }
  for (const folder of workspaceFolders || []) {
    const launcher = path.join(folder, 'editors', 'schemac-lsp');
    if (fs.existsSync(launcher)) {
      return { command: launcher, args: [] };
    }
  }
  return { command: 'python3', args: ['-m', 'schemac', 'lsp'] };
}

/** The documents the server handles. */
const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'esdl' },
  { scheme: 'file', language: 'edgeql' },
];

/** Files whose changes the server is told about (schema and query files, BUILD files). */
const WATCHED = '**/{*.esdl,*.gel,*.edgeql,BUILD,BUILD.pants}';

module.exports = { serverCommand, DOCUMENT_SELECTOR, WATCHED };
