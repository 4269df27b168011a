select Wallet { coins, holder_handle, holder: { handle } } order by .holder_handle then .coins
