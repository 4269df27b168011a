// The VS Code client of the schemac language server (python -m schemac lsp, over stdio).
'use strict';
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');
const { serverCommand, startFailureMessage, DOCUMENT_SELECTOR, WATCHED } = require('./server');

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
  const c = new LanguageClient('schemac', 'schemac language server', serverOptions, clientOptions);
  c.schemacCommand = { command, args };
  return c;
}

/** Start the client; when the server does not come up, say so plainly (not only "Client quit"). */
async function start(c) {
  try {
    await c.start();
  } catch (e) {
    c.outputChannel.show(true);
    vscode.window.showErrorMessage(startFailureMessage(c.schemacCommand));
  }
}

async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand('schemac.restartServer', async () => {
      if (client) {
        await client.stop();
      }
      client = createClient();
      await start(client);
    }),
  );
  await start(client);
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
