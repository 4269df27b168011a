-- schemac for Neovim (0.7+, built-in LSP client; no plugin needed).
--
--   -- init.lua
--   package.path = '/path/to/schemac/editors/nvim/?.lua;' .. package.path
--   require('schemac').setup()            -- or setup({ cmd = { 'python3', '-m', 'schemac', 'lsp' } })
--
-- `.esdl` and `.gel` files get filetype `esdl`, `.edgeql` files `edgeql`; opening one starts (once
-- per root) the schemac language server, by default the root's `editors/schemac-lsp` when there is
-- one (it finds a Python that can run the server, or creates a venv for it once, and says in
-- :LspLog / stderr what is missing when it cannot), else an installed `schemac lsp`
-- (pip install "schemac[lsp]"), else `python3 -m schemac lsp`. Completion: <C-x><C-o> (omnifunc); formatting:
-- vim.lsp.buf.formatting_sync() (0.7) or vim.lsp.buf.format() (0.8+); see docs/editors.md.
local M = {}

local function find_root(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while true do
    for _, marker in ipairs({ 'pants.toml', '.git' }) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return vim.fn.fnamemodify(path, ':p:h')
    end
    dir = parent
  end
end

local function default_cmd(root)
  local launcher = root .. '/editors/schemac-lsp'
  if vim.fn.executable(launcher) == 1 then
    return { launcher }
  end
  if vim.fn.executable('schemac') == 1 then -- pip install "schemac[lsp]"
    return { 'schemac', 'lsp' }
  end
  return { 'python3', '-m', 'schemac', 'lsp' }
end

M.clients = {} -- root -> client id

function M.setup(opts)
  opts = opts or {}
  local group = vim.api.nvim_create_augroup('schemac', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    group = group,
    pattern = { '*.esdl', '*.gel' },
    callback = function() vim.bo.filetype = 'esdl' end,
  })
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    group = group,
    pattern = { '*.edgeql' },
    callback = function() vim.bo.filetype = 'edgeql' end,
  })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = { 'esdl', 'edgeql' },
    callback = function(args)
      vim.bo[args.buf].commentstring = '# %s'
      vim.bo[args.buf].omnifunc = 'v:lua.vim.lsp.omnifunc'
      local root = find_root(vim.api.nvim_buf_get_name(args.buf))
      local id = M.clients[root]
      if id == nil or vim.lsp.get_client_by_id(id) == nil then
        id = vim.lsp.start_client({
          name = 'schemac',
          cmd = opts.cmd or default_cmd(root),
          cmd_env = opts.cmd_env,
          root_dir = root,
          workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
          flags = { debounce_text_changes = 50 },
          on_attach = opts.on_attach,
        })
        M.clients[root] = id
      end
      if id then
        vim.lsp.buf_attach_client(args.buf, id)
      end
    end,
  })
end

return M
