module gantry.local/pause

go 1.24
