// How the extension starts the language server: pure Node (no `vscode` import), so node's test
// runner checks it (test/server.test.js).
'use strict';
const fs = require('fs');
const path = require('path');

/**
 * An executable `name` on `PATH` (the installed `schemac` command), or null.
 * @param {string} name
 * @param {string} [pathVar] defaults to process.env.PATH
 * @returns {string|null}
 */
function findOnPath(name, pathVar) {
  for (const dir of (pathVar === undefined ? process.env.PATH || '' : pathVar).split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch (e) {
      // not there
    }
  }
  return null;
}

/**
 * The server command: the `schemac.server.command` setting when given, else the workspace's
 * editors/schemac-lsp (this repository's launcher: it finds a Python that can start the server,
 * or creates a venv for it once, and says what is missing when it cannot), else an installed
 * `schemac` command (`pip install "schemac[lsp]"`) as `schemac lsp`, else
 * `python3 -m schemac lsp` (the compiler on PYTHONPATH, see "Editor setup").
 * @param {string[]} configured the setting's value
 * @param {string[]} workspaceFolders absolute paths of the workspace folders
 * @param {string} [pathVar] PATH to search for `schemac` (default: the process's)
 * @returns {{command: string, args: string[]}}
 */
function serverCommand(configured, workspaceFolders, pathVar) {
  if (Array.isArray(configured) && configured.length > 0) {
    return { command: configured[0], args: configured.slice(1) };
  }
  for (const folder of workspaceFolders || []) {
    const launcher = path.join(folder, 'editors', 'schemac-lsp');
    if (fs.existsSync(launcher)) {
      return { command: launcher, args: [] };
    }
  }
  const installed = findOnPath('schemac', pathVar);
  if (installed) {
    return { command: installed, args: ['lsp'] };
  }
  return { command: 'python3', args: ['-m', 'schemac', 'lsp'] };
}

/**
 * What the extension says when the server did not start: the command, where its own words are
 * (the output panel: the launcher and the server name what is missing there), and the ways to
 * get a working server.
 * @param {{command: string, args: string[]}} cmd
 * @returns {string}
 */
function startFailureMessage(cmd) {
  return `schemac: the language server did not start (${[cmd.command, ...cmd.args].join(' ')}). ` +
    'The "schemac language server" output panel says what is missing. Fixes: pip install "schemac[lsp]" ' +
    '(a `schemac` command on PATH), or open the schemac repository (its editors/schemac-lsp creates a venv ' +
    'once), or set `schemac.server.command`.';
}

/** The documents the server handles. */
const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'esdl' },
  { scheme: 'file', language: 'edgeql' },
];

/** Files whose changes the server is told about (schema and query files, BUILD files). */
const WATCHED = '**/{*.esdl,*.gel,*.edgeql,BUILD,BUILD.pants}';

module.exports = { serverCommand, findOnPath, startFailureMessage, DOCUMENT_SELECTOR, WATCHED };
