// The VS Code client of the schemac language server (python -m schemac lsp, over stdio).
'use strict';
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');
const { serverCommand, DOCUMENT_SELECTOR, WATCHED } = require('./server');

let client;

function createClient() {
  const config = vscode.workspace.getConfiguration('schemac');
  const folders = (vscode.workspace.workspaceFolders || []).map((f) => f.uri.fsPath);
  const { command, args } = serverCommand(config.get('server.command'), folders);
  const env = Object.assign({}, process.env, config.get('server.env') || {});
  const serverOptions = {
    command,
    args,
    transport: TransportKind.stdio,
    options: { env, cwd: folders[0] },
  };
  const clientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher(WATCHED) },
  };
  return new LanguageClient('schemac', 'schemac language server', serverOptions, clientOptions);
}

async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand('schemac.restartServer', async () => {
      if (client) {
        await client.stop();
      }
      client = createClient();
      await client.start();
    }),
  );
  await client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
