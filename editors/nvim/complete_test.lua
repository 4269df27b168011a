-- Headless Neovim test (tests/editors/test_neovim.py): open a query file, type `QueueStatus.`
-- after `status := `, ask the schemac server for completion through Neovim's LSP client, and
-- write the labels (in the server's order) to $SCHEMAC_NVIM_OUT, one per line.
--   nvim --headless --clean -u NONE -l? (0.7 has no -l): nvim --headless --clean -c 'luafile complete_test.lua'
local out = assert(os.getenv('SCHEMAC_NVIM_OUT'))
local file = assert(os.getenv('SCHEMAC_NVIM_FILE'))
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
package.path = here .. '/?.lua;' .. package.path
local schemac = require('schemac')

local function finish(lines, code)
  local f = assert(io.open(out, 'w'))
  f:write(table.concat(lines, '\n') .. '\n')
  f:close()
  vim.cmd((code == 0 and 'qa!') or 'cq!')
end

local ok, err = pcall(function()
  schemac.setup({ cmd = { os.getenv('SCHEMAC_NVIM_SERVER') } })
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  assert(vim.bo.filetype == 'edgeql', 'filetype: ' .. vim.bo.filetype)
  assert(vim.wait(20000, function()
    local clients = vim.lsp.buf_get_clients(0)
    for _, c in pairs(clients) do
      if c.initialized then return true end
    end
    return false
  end, 50), 'the schemac server did not start')
  -- type over the member: `status := QueueStatus.Running,` -> `status := QueueStatus.`
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local row, col
  for i, line in ipairs(lines) do
    local s = line:find('status := QueueStatus.Running', 1, true)
    if s then
      row = i - 1
      local before = line:sub(1, s - 1) .. 'status := QueueStatus.'
      vim.api.nvim_buf_set_lines(0, row, row + 1, false, { before .. line:sub(s + #'status := QueueStatus.Running') })
      col = #before
      break
    end
  end
  assert(row, 'the seed line is not in the file')
  vim.api.nvim_win_set_cursor(0, { row + 1, col })
  vim.wait(300)
  local params = vim.lsp.util.make_position_params()
  params.context = { triggerKind = 2, triggerCharacter = '.' }
  local results = vim.lsp.buf_request_sync(0, 'textDocument/completion', params, 20000)
  local labels = {}
  for _, res in pairs(results or {}) do
    local items = res.result and (res.result.items or res.result) or {}
    table.sort(items, function(a, b) return (a.sortText or a.label) < (b.sortText or b.label) end)
    for _, item in ipairs(items) do
      table.insert(labels, item.label)
    end
  end
  finish(labels, 0)
end)
if not ok then
  finish({ 'ERROR: ' .. tostring(err) }, 1)
end
